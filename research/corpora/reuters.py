"""Reuters-21578 newswire (1987): the ``<BODY>`` of each ``<REUTERS>`` item in the 22 SGML files.

The files are latin-1 SGML with ``&lt;``-style entities and control characters from the wire. Bodies are
hard-wrapped at ~70 columns; an indented line starts a new paragraph. Wire artefacts that are not
prose are removed, or they would become "sentences" that permuting cannot make less coherent:

- the trailing " Reuter" sign-off (and its variants "REUTER...", "reuter^M");
- table rows: a line with an inner run of 3+ spaces (column-aligned figures);
- paragraphs that do not end in sentence-final punctuation: the one-line fields of earnings and
  dividend reports ("Shr 16 cts vs two cts", "Net 391,000 vs 57,000"), "MORE" markers, and the
  "... as follows:" lead-ins of removed tables. A report made only of such lines yields nothing.

Items without a body (titles only) yield nothing. Measured on the 22 files: 17,228 documents, 10,257 of
them with at least 4 sentences (the corpus README's rough 13,622 counted table rows and report fields).
"""

from __future__ import annotations

import gzip
import html
import re
from pathlib import Path
from typing import Iterator, List

from ..documents import Document
from .base import make_document, require_file

SOURCE = "reuters"
FILE_PATTERN = "reut2-*.sgm.gz"
FILE_COUNT = 22

_ITEM = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_NEW_ID = re.compile(r'\bNEWID="(\d+)"')
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\^M")
_SIGN_OFF = re.compile(r"\s+reuters?(?:\.\.\.)?\s*\Z", re.I)
_TABLE_ROW = re.compile(r"\S {3,}\S")
_PROSE_END = re.compile(r"[.!?][\"')\]]*$")


def _clean(text: str) -> str:
    return _CONTROL.sub("", html.unescape(text))


def body_paragraphs(body: str) -> List[str]:
    """Turn a raw (unescaped) Reuters body into prose paragraphs: unwrap lines, drop the wire artefacts.

    Args:
        body: the text between ``<BODY>`` and ``</BODY>``, entities already decoded.

    Returns:
        The paragraphs in order, each one line of text.
    """
    body = _SIGN_OFF.sub("", body.rstrip())
    paragraphs: List[str] = []
    current: List[str] = []
    for line in body.split("\n"):
        starts_paragraph = not line.strip() or line[:1].isspace()
        if starts_paragraph and current:
            paragraphs.append(" ".join(current))
            current = []
        if line.strip() and not _TABLE_ROW.search(line.strip()):
            current.append(line.strip())
    if current:
        paragraphs.append(" ".join(current))
    return [paragraph for paragraph in paragraphs if _PROSE_END.search(paragraph)]


def read_reuters_file(path: Path) -> Iterator[Document]:
    """Yield the documents of one ``reut2-NNN.sgm.gz`` file, in file order.

    Args:
        path: a gzipped Reuters-21578 SGML file.

    Returns:
        An iterator of Documents with ids ``"reuters:<NEWID>"`` and the ``<TITLE>`` as title.
    """
    with gzip.open(path, "rt", encoding="latin-1") as handle:
        sgml = handle.read()
    for item in _ITEM.finditer(sgml):
        new_id = _NEW_ID.search(item.group(1))
        body = _BODY.search(item.group(2))
        if new_id is None or body is None:
            continue
        title = _TITLE.search(item.group(2))
        document = make_document(
            SOURCE,
            new_id.group(1),
            body_paragraphs(_clean(body.group(1))),
            title=_clean(title.group(1)) if title else None,
        )
        if document is not None:
            yield document


def read_reuters(folder: Path) -> Iterator[Document]:
    """Yield every Reuters-21578 document with a body, file by file (reut2-000 .. reut2-021).

    Args:
        folder: the ``reuters21578`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    files = sorted(folder.glob(FILE_PATTERN))
    if not files:
        require_file(folder / "reut2-000.sgm.gz")
    for path in files:
        yield from read_reuters_file(path)
