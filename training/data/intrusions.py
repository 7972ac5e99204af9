"""Intrusion negatives for training: a block with one sentence swapped for a similar one from another document.

The paper trains on permutations only, and a permutation keeps every sentence: a model trained on them
never sees a block whose *content* does not fit, which is what INSteD's test (and our NEWS-INTRUSION
stand-in) measures. These negatives are built the INSteD way with the benchmark's own
:class:`~benchmarks.datasets.intrusion.IntruderFinder`: per corpus (``source``), the replaced sentence's
most similar sentence (TF-IDF cosine) of *another document* of the same split; the first sentence is
never replaced. The blocks of one document are pooled, so an intruder never comes from the same article.

Positions are drawn per item from ``random.Random(f"{seed}:{item id}:intrusion")``, so an item's
intrusions depend only on the seed, its own text and the pool it is drawn from.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Dict, List, Sequence, Tuple

from .examples import TrainingItem

#: An intrusion: (position in ``item.pos``, the sentence that replaces the one there).
Intrusion = Tuple[int, str]


def build_intrusions(items: Sequence[TrainingItem], per_item: int, seed: int) -> Dict[str, List[Intrusion]]:
    """Up to ``per_item`` intrusions per item, at distinct positions other than the first.

    Args:
        items: one split's items; every item of a corpus supplies intruders to the others of that corpus.
        per_item: intrusions per item (fewer when the block has fewer replaceable positions, or when no
            foreign sentence shares a word with the replaced one).
        seed: the seed of the per-item position generators.

    Returns:
        item id -> list of (position, intruder sentence), in position-draw order.
    """
    from benchmarks.datasets.intrusion import IntruderFinder

    if per_item < 1:
        return {}
    by_source: Dict[str, List[TrainingItem]] = defaultdict(list)
    for item in items:
        by_source[item.source].append(item)
    intrusions: Dict[str, List[Intrusion]] = {}
    for source_items in by_source.values():
        documents: Dict[str, List[str]] = {}
        offsets: Dict[str, int] = {}
        for item in source_items:
            pooled = documents.setdefault(item.doc_id, [])
            offsets[item.id] = len(pooled)
            pooled.extend(item.pos)
        doc_ids = list(documents)
        doc_index = {doc_id: index for index, doc_id in enumerate(doc_ids)}
        finder = IntruderFinder([documents[doc_id] for doc_id in doc_ids])
        for item in source_items:
            rng = random.Random(f"{seed}:{item.id}:intrusion")
            positions = rng.sample(range(1, len(item.pos)), min(per_item, len(item.pos) - 1))
            found = []
            for position in positions:
                intruder = finder.find(doc_index[item.doc_id], offsets[item.id] + position)
                if intruder is not None:
                    found.append((position, intruder.sentence))
            intrusions[item.id] = found
    return intrusions


def intrusion_document(item: TrainingItem, intrusion: Intrusion) -> List[str]:
    """The item's positive with one sentence replaced: a negative document."""
    position, sentence = intrusion
    document = list(item.pos)
    document[position] = sentence
    return document


__all__ = ["Intrusion", "build_intrusions", "intrusion_document"]
