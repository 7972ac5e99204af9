"""ABC (Australian Broadcasting Corporation) 2006 rural and science news, from NLTK's ``abc.zip``.

Each of the two files (``rural.txt``, ``science.txt``) is a run of items separated by blank lines: a
title line, then one sentence per line. Each sentence line is handed to the splitter as its own paragraph
(its boundary is kept). A few long stories have in-story subheadings after a blank line; they cannot be
told from a new item and become items of their own (then usually dropped as too short).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Iterator, Optional

from ..documents import Document
from .base import decode_text, make_document, require_file

SOURCE = "abc"
ARCHIVE = "abc.zip"
SECTIONS = ("rural", "science")


def parse_item(item: str, local_id: str) -> Optional[Document]:
    """Turn one blank-line-separated item into a Document: first line title, then a sentence per line.

    Args:
        item: the item's text.
        local_id: ``"<section>:<index of the item in its file>"``.

    Returns:
        The Document, or ``None`` for a title with no text.
    """
    lines = [line.strip() for line in item.strip().split("\n") if line.strip()]
    if len(lines) < 2:
        return None
    return make_document(SOURCE, local_id, lines[1:], title=lines[0])


def read_abc(folder: Path) -> Iterator[Document]:
    """Yield the rural items, then the science items, in file order (ids ``"abc:<section>:<index>"``).

    Args:
        folder: the ``nltk_data`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    with zipfile.ZipFile(require_file(folder / ARCHIVE)) as archive:
        texts = {section: decode_text(archive.read(f"abc/{section}.txt")) for section in SECTIONS}
    for section in SECTIONS:
        for index, item in enumerate(re.split(r"\n\s*\n", texts[section])):
            document = parse_item(item, f"{section}:{index}")
            if document is not None:
                yield document
