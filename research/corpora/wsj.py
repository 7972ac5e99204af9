"""The Penn Treebank WSJ sample in NLTK's ``treebank.zip``: raw text of wsj_0001 .. wsj_0199.

LDC-derived (non-commercial, fair use): read in place at run time, never copied or shipped. Every file
starts with a ".START" line; paragraphs are separated by blank lines and each line is one sentence, so
each line is handed to the splitter as its own paragraph (its boundary is kept; the splitter may still cut
a line that holds two sentences). The whole corpus is held out: it is the stand-in for the paper's WSJ
permuted-document test set, so it is never trained on.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Iterator, Optional

from ..documents import Document
from .base import decode_text, make_document, require_file

SOURCE = "wsj"
ARCHIVE = "treebank.zip"
_RAW_FILE = re.compile(r"^treebank/raw/(wsj_\d{4})$")


def parse_raw_file(text: str, name: str) -> Optional[Document]:
    """Turn one ``treebank/raw/wsj_NNNN`` file into a Document.

    Args:
        text: the decoded file.
        name: ``"wsj_NNNN"``; the id becomes ``"wsj:wsj_NNNN"``.

    Returns:
        The Document, or ``None`` for an empty file.
    """
    lines = [line.strip() for line in text.split("\n")]
    lines = [line for line in lines if line and line != ".START"]
    return make_document(SOURCE, name, lines)


def read_wsj(folder: Path) -> Iterator[Document]:
    """Yield the 199 WSJ sample documents in file-name order.

    Args:
        folder: the ``nltk_data`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    with zipfile.ZipFile(require_file(folder / ARCHIVE)) as archive:
        raw_files = [match for match in map(_RAW_FILE.match, archive.namelist()) if match]
        for name, member in sorted((match.group(1), match.group(0)) for match in raw_files):
            document = parse_raw_file(decode_text(archive.read(member)), name)
            if document is not None:
                yield document
