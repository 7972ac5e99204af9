"""BBC News full text (Greene & Cunningham 2006): 2,225 articles in five topical folders of one tar.gz.

Each ``bbc/<topic>/<NNN>.txt`` holds the headline on line 1, then paragraphs split by blank lines.
"""

from __future__ import annotations

import re
import tarfile
from pathlib import Path
from typing import Iterator, Optional

from ..documents import Document
from .base import decode_text, make_document, require_file

SOURCE = "bbc"
ARCHIVE = "bbc-fulltext.tar.gz"
_ARTICLE = re.compile(r"^bbc/([a-z]+)/(\d+)\.txt$")


def parse_article(text: str, local_id: str) -> Optional[Document]:
    """Turn one article file into a Document: line 1 is the title, blank lines separate paragraphs.

    Args:
        text: the decoded file.
        local_id: ``"<topic>/<NNN>"``.

    Returns:
        The Document, or ``None`` for an article without body text.
    """
    title, _, body = text.strip().partition("\n")
    return make_document(SOURCE, local_id, re.split(r"\n\s*\n", body), title=title)


def read_bbc(folder: Path) -> Iterator[Document]:
    """Yield the BBC articles sorted by topic and number (ids ``"bbc:<topic>/<NNN>"``).

    Args:
        folder: the ``bbc_fulltext`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    with tarfile.open(require_file(folder / ARCHIVE), "r:gz") as archive:
        articles = {}
        for member in archive.getmembers():
            match = _ARTICLE.match(member.name)
            if member.isfile() and match:
                handle = archive.extractfile(member)
                if handle is not None:
                    articles[(match.group(1), match.group(2))] = handle.read()
    for (topic, number), raw in sorted(articles.items()):
        document = parse_article(decode_text(raw), f"{topic}/{number}")
        if document is not None:
            yield document
