"""The one record every corpus reader yields: a document as an id, its corpus and its sentences."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional


@dataclass(frozen=True)
class Document:
    """A coherent document, already split into sentences with the project splitter.

    Attributes:
        id: stable and unique across corpora, ``"<corpus>:<id inside the corpus>"`` (e.g. ``"reuters:12345"``),
            so that train/dev/test splits, hashed from it, never move when a corpus is added.
        source: the corpus name, a key of ``coherence_metric.research.corpora.CORPORA``.
        sentences: the document's sentences in their original order.
        title: the headline or article title when the corpus has one; never part of ``sentences``.
    """

    id: str
    source: str
    sentences: List[str]
    title: Optional[str] = None
