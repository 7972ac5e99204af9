"""English Wikipedia (about 2015) as WikiExtractor output: ``text/AA/wiki_NN.xz``, ``<doc>`` blocks.

WikiExtractor keeps section headings as their own lines ending in "." ("Etymology and terminology.",
"History.") and puts the title on the first line. Headings are not sentences: left in, a permuted
document would move them around and the model would learn heading positions, not coherence. The
heuristic that removes them:

- the first line (the title, kept as ``Document.title``) is dropped;
- a line of fewer than 4 words is a heading ("History.", "Origins.");
- a line of at most 10 words that ends in "." and does not start in lower case is a heading unless it
  holds an auxiliary or copula ("is", "was", "has", "can", ...): "Music schools and conservatory." goes,
  "The dates of composition are approximate." stays.

Measured on 15 of the 100 files (48,086 lines): 2,248 lines of 4-10 words end in "."; 2,000 are dropped.
Of 50 dropped lines drawn at random, 49 were headings (the 50th introduced a list the extractor had
already removed); of 25 kept lines drawn at random, all were sentences. One-line paragraphs without an
auxiliary ("He died in 1910.") are lost too, which costs little next to ~700k sentences.
"""

from __future__ import annotations

import html
import lzma
import re
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from coherence_metric.errors import InputError

from ..documents import Document
from .base import make_document, require_file

SOURCE = "wiki"
FILE_PATTERN = "text/*/wiki_*.xz"
MIN_WORDS = 4
HEADING_MAX_WORDS = 10
_VERB_WORDS = frozenset(
    "is are was were be been being am has have had do does did can could may might must shall should will would".split()
)
_DOC_START = re.compile(r'<doc id="([^"]+)"[^>]*?title="([^"]*)"[^>]*>')


def is_heading(line: str) -> bool:
    """Say whether a WikiExtractor line is a title or section heading rather than a paragraph.

    Args:
        line: one stripped line of an article.

    Returns:
        True for lines of fewer than 4 words, and for lines of at most 10 words that end in ".", do not
        start in lower case (a sentence continued after a formula does) and hold no auxiliary or copula.
    """
    words = line.split()
    if len(words) < MIN_WORDS:
        return True
    if len(words) <= HEADING_MAX_WORDS and line.endswith(".") and not line[:1].islower():
        return not any(word.strip("\"'(),;:.").lower() in _VERB_WORDS for word in words)
    return False


def parse_article(lines: List[str], page_id: str, title: str) -> Optional[Document]:
    """Turn the lines between ``<doc>`` and ``</doc>`` into a Document (one paragraph per kept line).

    Args:
        lines: the article's lines; the first is its title.
        page_id: the Wikipedia page id from the ``<doc id=...>`` tag.
        title: the article title from the tag.

    Returns:
        The Document, or ``None`` when nothing but headings is left.
    """
    paragraphs = [line.strip() for line in lines[1:] if line.strip() and not is_heading(line.strip())]
    return make_document(SOURCE, page_id, paragraphs, title=title)


def read_wiki_file(path: Path) -> Iterator[Document]:
    """Yield the articles of one ``wiki_NN.xz`` file, in file order (ids ``"wiki:<page id>"``).

    Args:
        path: an xz-compressed WikiExtractor output file.

    Returns:
        An iterator of Documents.
    """
    for page_id, title, lines in read_wiki_pages(path):
        document = parse_article(lines, page_id, title)
        if document is not None:
            yield document


def read_wiki_pages(path: Path) -> Iterator[Tuple[str, str, List[str]]]:
    """Yield ``(page id, title, lines)`` for each ``<doc>`` block of one ``wiki_NN.xz`` file, in file order.

    The raw lines (title line and headings included) are what both this reader and the DiscoEval criteria's
    structure recovery (training/discoeval_criteria/wiki_structure.py) start from.

    Raises:
        InputError: the file cannot be opened.
    """
    page_id: Optional[str] = None
    title = ""
    lines: List[str] = []
    try:
        handle = lzma.open(path, "rt", encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read WikiExtractor file {path}: {error}") from None
    with handle:
        for line in handle:
            start = _DOC_START.match(line)
            if start:
                page_id, title, lines = start.group(1), html.unescape(start.group(2)), []
            elif line.startswith("</doc>"):
                if page_id is not None:
                    yield page_id, title, lines
                page_id = None
            elif page_id is not None:
                lines.append(line.rstrip("\n"))


def read_wiki(folder: Path) -> Iterator[Document]:
    """Yield every article of every ``text/*/wiki_NN.xz`` file, files in name order.

    Args:
        folder: the ``enwiki_wikiextractor_2015`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    files = sorted(folder.glob(FILE_PATTERN))
    if not files:
        require_file(folder / "text" / "AA" / "wiki_00.xz")
    for path in files:
        yield from read_wiki_file(path)
