"""Lee, Pincombe & Welsh (2005) ABC news-mail corpus: one document per line in two files.

``lee_background.cor`` (300 documents) and ``lee.cor`` (the 50 documents people rated for similarity).
Ids are ``"lee:<file stem>:<line index>"``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..documents import Document
from .base import decode_text, make_document, require_file

SOURCE = "lee"
FILES = ("lee_background.cor", "lee.cor")


def read_lee(folder: Path) -> Iterator[Document]:
    """Yield the 300 background documents, then the 50 rated ones, in line order.

    Args:
        folder: the ``lee_abc_news`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    for name in FILES:
        text = decode_text(require_file(folder / name).read_bytes())
        stem = name.rsplit(".", 1)[0]
        for index, line in enumerate(text.split("\n")):
            document = make_document(SOURCE, f"{stem}:{index}", [line]) if line.strip() else None
            if document is not None:
                yield document
