"""MCTest (Richardson et al. 2013): 660 short fictional stories for children, mc160 and mc500 together.

In each ``mc{160,500}.{train,dev,test}.tsv`` the first column is the story id (``mc160.dev.0``, which
keeps the upstream set and split) and the third the story, with ``\\newline`` for line breaks (doubled
between paragraphs, single inside a hard-wrapped paragraph) and ``\\tab`` for tabs. Our own
train/dev/test split is by hashed id like every corpus; the upstream split name is only part of the id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, Optional

from ..documents import Document
from .base import decode_text, make_document, require_file

SOURCE = "mctest"
SETS = ("mc160", "mc500")
SPLITS = ("train", "dev", "test")
STORY_COLUMN = 2


def parse_story(story: str, story_id: str) -> Optional[Document]:
    """Turn a story cell into a Document: ``\\newline\\newline`` separates paragraphs.

    Args:
        story: the raw third column of a tsv row.
        story_id: the first column, e.g. ``"mc500.train.12"``.

    Returns:
        The Document, or ``None`` for an empty story.
    """
    text = story.replace("\\tab", " ")
    paragraphs = re.split(r"(?:\\newline\s*){2,}", text)
    return make_document(SOURCE, story_id, [paragraph.replace("\\newline", " ") for paragraph in paragraphs])


def read_mctest(folder: Path) -> Iterator[Document]:
    """Yield the stories of mc160 then mc500, train, dev, test, in row order (ids ``"mctest:mc160.dev.0"``).

    Args:
        folder: the ``mctest`` corpus folder.

    Returns:
        An iterator of Documents.
    """
    for set_name in SETS:
        for split in SPLITS:
            text = decode_text(require_file(folder / f"{set_name}.{split}.tsv").read_bytes())
            for row in text.split("\n"):
                cells = row.split("\t")
                if len(cells) > STORY_COLUMN:
                    document = parse_story(cells[STORY_COLUMN], cells[0].strip())
                    if document is not None:
                        yield document
