"""Synthetic duplicates: held-out news documents with one earlier sentence repeated later, at a known place.

The recipe, seeded: documents of the news corpora's split (first 10 sentences, those of at least ``MIN_SENTENCES``,
as the localisation suite reads them); in each, a sentence ``source`` (any but the last) is repeated at a position
after it, anywhere later (right after it or further on). Half the items (even sample positions) repeat it verbatim,
the other half repeat its content: its first two thirds of words, closed with a period. The duplicate is the
sentence at ``position``; ``explain`` finds it when it flags that sentence with the kind ``duplication``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from coherence_metric.research.localisation_sets import MIN_SENTENCES
from coherence_metric.research.standins import read_news_documents

VERBATIM = "verbatim"
CONTENT = "content"


@dataclass(frozen=True)
class DuplicateItem:
    """One text with a repeated sentence: its sentences, where the repeat is, what it repeats, and how."""

    id: str
    sentences: List[str]
    position: int
    source: int
    variant: str


def content_repeat(sentence: str) -> str:
    """The first two thirds of a sentence's words, closed with a period (the same content, not the same words)."""
    words = sentence.split()
    kept = words[:max(2, math.ceil(len(words) * 2 / 3))]
    return " ".join(kept).rstrip(",;:.") + "."


def build_duplicates(documents: List[tuple], count: int, seed: int) -> List[DuplicateItem]:
    """``count`` documents (seeded sample of those of ``MIN_SENTENCES``+ sentences), each with one repeat."""
    long_enough = [index for index, (_, sentences) in enumerate(documents) if len(sentences) >= MIN_SENTENCES]
    rng = random.Random(f"{seed}:duplicates")
    sample = sorted(rng.sample(long_enough, min(count, len(long_enough))))
    items = []
    for number, index in enumerate(sample):
        doc_id, sentences = documents[index]
        sentences = list(sentences)
        source = rng.randrange(len(sentences) - 1)
        position = rng.randrange(source + 1, len(sentences) + 1)
        variant = VERBATIM if number % 2 == 0 else CONTENT
        copy = sentences[source] if variant == VERBATIM else content_repeat(sentences[source])
        items.append(DuplicateItem(f"{doc_id}/duplicate", sentences[:position] + [copy] + sentences[position:],
                                   position, source, variant))
    return items


def load_duplicates(count: int, seed: int, data_dir: Optional[Path] = None, split: str = "dev") -> List[DuplicateItem]:
    """The duplicates of the news corpora's ``split`` (dev for choosing; the recipe is cheap, so nothing is cached)."""
    return build_duplicates(read_news_documents(data_dir, split=split), count, seed)
