"""Fairy tales from two Project Gutenberg e-books: #52521 Grimm's Fairy Tales, #4018 Japanese Fairy Tales.

Each book is one file with the Project Gutenberg header and licence footer. The heuristic that cuts it
into tales:

1. keep only the text between the ``*** START OF`` and ``*** END OF`` marker lines (drops the PG header,
   footer and licence), and cut it at a "Transcriber's Notes" or "End of the Project Gutenberg" line;
2. read the tale titles from the table of contents: the indented lines after a ``CONTENTS`` line, up to
   the next unindented line, with page numbers and the "PAGE" column header removed;
3. after the contents, a tale starts at an unindented line equal to one of those titles (compared in
   upper case with punctuation ignored, so curly and straight quotes match; a long title may be wrapped
   onto two lines) and runs to the next title;
4. front matter listed in the contents (preface, foreword, ...) is skipped; ``[Illustration ...]``
   captions, "THE END", and in-tale subheadings (a paragraph that is a Roman numeral or wholly in
   ``_italics_``) are removed, as are the other italics underscores; blank lines separate paragraphs.

Ids are ``"tales:<book>:<title slug>"``, e.g. ``"tales:pg52521:rapunzel"``.
"""

from __future__ import annotations

import gzip
import logging
import re
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

from ..documents import Document
from .base import decode_text, make_document, require_file

SOURCE = "tales"
BOOKS = ("pg52521_grimms_fairy_tales.txt.gz", "pg4018_japanese_fairy_tales.txt.gz")
FRONT_MATTER = frozenset({"PREFACE", "FOREWORD", "INTRODUCTION", "ACKNOWLEDGMENTS", "ILLUSTRATIONS", "CONTENTS"})

_START = re.compile(r"^\*\*\* ?START OF .*$", re.M)
_END = re.compile(r"^\*\*\* ?END OF .*$", re.M)
_ILLUSTRATION = re.compile(r"\[Illustration[^\]]*\]", re.S)
_PAGE_NUMBER = re.compile(r"\s+\d+$")
_BACK_MATTER = re.compile(r"^(Transcriber.s Notes?|End of (the )?Project Gutenberg).*$", re.M | re.I)
_SUBHEADING = re.compile(r"^(?:[IVXLC]+\.?|_[^_]+_)$")

logger = logging.getLogger("coherence_metric.training")


def title_key(line: str) -> str:
    """Normalise a title for matching: upper case, every run of non-alphanumerics one space."""
    return re.sub(r"[^A-Z0-9]+", " ", line.upper()).strip()


def strip_gutenberg_boilerplate(text: str) -> str:
    """Return the text between the ``*** START OF`` and ``*** END OF`` lines (all of it if a marker is missing)."""
    start = _START.search(text)
    end = _END.search(text)
    text = text[start.end() if start else 0 : end.start() if end else len(text)]
    back_matter = _BACK_MATTER.search(text)
    return text[: back_matter.start()] if back_matter else text


def contents_titles(lines: List[str]) -> Tuple[List[str], int]:
    """Read the table of contents: the indented lines after a ``CONTENTS`` line.

    Args:
        lines: the book's lines, boilerplate removed.

    Returns:
        The titles in order, and the index of the first line after the contents.
    """
    starts = [index for index, line in enumerate(lines) if line.strip().upper() == "CONTENTS"]
    if not starts:
        return [], 0
    titles: List[str] = []
    position = starts[0] + 1
    while position < len(lines):
        line = lines[position]
        if line.strip() and not line[:1].isspace():
            break
        entry = _PAGE_NUMBER.sub("", line.strip())
        if entry and entry.upper() != "PAGE":
            titles.append(entry)
        position += 1
    return titles, position


def split_tales(text: str) -> List[Tuple[str, List[str]]]:
    """Cut a book (boilerplate removed) into ``(title, lines)`` pairs, one per tale found in the body.

    Args:
        text: the book between the PG markers, LF line ends.

    Returns:
        The tales in book order; contents entries whose title line is not found are logged and skipped.
    """
    lines = text.split("\n")
    titles, body_start = contents_titles(lines)
    wanted: Dict[str, str] = {title_key(title): title for title in titles if title_key(title) not in FRONT_MATTER}
    starts: List[Tuple[int, int, str]] = []  # (title line, first text line, title)
    for index in range(body_start, len(lines)):
        line = lines[index]
        if not line.strip() or line[:1].isspace():
            continue
        two_line_key = title_key(line + " " + lines[index + 1]) if index + 1 < len(lines) else ""
        if title_key(line) in wanted:
            starts.append((index, index + 1, wanted.pop(title_key(line))))
        elif two_line_key in wanted:  # a long title wrapped onto a second line
            starts.append((index, index + 2, wanted.pop(two_line_key)))
    for missing in wanted.values():
        logger.warning("tales: no title line found for contents entry %r", missing)
    front_matter_starts = [
        index for index in range(body_start, len(lines)) if title_key(lines[index]) in FRONT_MATTER
    ]
    tales = []
    for number, (index, first, title) in enumerate(starts):
        stop = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        stop = min([stop] + [other for other in front_matter_starts if other > index])
        tales.append((title, lines[first:stop]))
    return tales


def slug(title: str) -> str:
    """Lower-case, hyphen-joined words of a title: a readable, stable id part."""
    return "-".join(title_key(title).lower().split())


def tale_document(book: str, title: str, lines: List[str]) -> Optional[Document]:
    """Turn a tale's lines into a Document: drop illustrations and italics marks, blank lines split paragraphs.

    Args:
        book: the book id, e.g. ``"pg52521"``.
        title: the tale title as in the contents.
        lines: the tale's lines, title excluded.

    Returns:
        The Document, or ``None`` for a section heading with no text.
    """
    text = _ILLUSTRATION.sub("", "\n".join(lines))
    paragraphs = [
        paragraph.replace("_", "")
        for paragraph in re.split(r"\n\s*\n", text)
        if paragraph.strip() and not _SUBHEADING.match(paragraph.strip()) and title_key(paragraph) != "THE END"
    ]
    return make_document(SOURCE, f"{book}:{slug(title)}", paragraphs, title=title)


def read_tales(folder: Path) -> Iterator[Document]:
    """Yield the tales of Grimm's Fairy Tales, then of Japanese Fairy Tales, in book order.

    Args:
        folder: the ``gutenberg_tales`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    for name in BOOKS:
        with gzip.open(require_file(folder / name), "rb") as handle:
            text = strip_gutenberg_boilerplate(decode_text(handle.read()))
        book = name.split("_", 1)[0]
        for title, lines in split_tales(text):
            document = tale_document(book, title, lines)
            if document is not None:
                yield document
