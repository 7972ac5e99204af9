"""Intrusion negatives for training: a block with one sentence swapped for a similar one from another document.

The paper trains on permutations only, and a permutation keeps every sentence: a model trained on them
never sees a block whose *content* does not fit, which is what INSteD's test (and our NEWS-INTRUSION
stand-in) measures. These negatives are built the INSteD way with the benchmark's own
:class:`~coherence_metric.research.datasets.intrusion.IntruderFinder`: per corpus (``source``), the replaced sentence's
most similar sentence (TF-IDF cosine) of *another document* of the same split; the first sentence is
never replaced. The blocks of one document are pooled, so an intruder never comes from the same article.

Positions are drawn per item from ``random.Random(f"{seed}:{item id}:intrusion")``, so an item's
intrusions depend only on the seed, its own text and the pool it is drawn from.

``build_document_intrusions`` draws them the way the released INSteD-Wiki pairs look instead: a random
sentence of the *most similar other document* (TF-IDF cosine of whole documents), not the sentence most
like the replaced one. Such an intruder is on the article's topic but need not echo its neighbours' words.
(Measured, MODELS.md: adding them to the sentence-level term's negatives did not move INSTED-WIKI.)

``build_sibling_intrusions`` takes the intruder from *another block of the same document* (a later section of
the same Wikipedia article, a later part of the same story): on the article's own topic, so adjacent-sentence
similarity barely sees it, which is what makes INSteD-Wiki's intruders hard for the cosine baseline.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

from coherence_metric.research.datasets.intrusion import MAX_SIMILARITY, IntruderFinder, tfidf_rows

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
    if per_item < 1:
        return {}
    intrusions: Dict[str, List[Intrusion]] = {}
    for source_items in _by_source(items).values():
        documents, offsets = _pooled_documents(source_items)
        doc_ids = list(documents)
        doc_index = {doc_id: index for index, doc_id in enumerate(doc_ids)}
        finder = IntruderFinder([documents[doc_id] for doc_id in doc_ids])
        for item in source_items:
            found = []
            for position in _positions(random.Random(f"{seed}:{item.id}:intrusion"), item, per_item):
                intruder = finder.find(doc_index[item.doc_id], offsets[item.id] + position)
                if intruder is not None:
                    found.append((position, intruder.sentence))
            intrusions[item.id] = found
    return intrusions


def _by_source(items: Sequence[TrainingItem]) -> Dict[str, List[TrainingItem]]:
    """The items grouped by corpus, in order: intruders never cross corpora."""
    grouped: Dict[str, List[TrainingItem]] = defaultdict(list)
    for item in items:
        grouped[item.source].append(item)
    return grouped


def _pooled_documents(items: Sequence[TrainingItem]) -> Tuple[Dict[str, List[str]], Dict[str, int]]:
    """One corpus's documents (doc_id -> its blocks' sentences in item order) and each item's first-sentence
    offset in its document."""
    documents: Dict[str, List[str]] = {}
    offsets: Dict[str, int] = {}
    for item in items:
        pooled = documents.setdefault(item.doc_id, [])
        offsets[item.id] = len(pooled)
        pooled.extend(item.pos)
    return documents, offsets


def _positions(rng: random.Random, item: TrainingItem, per_item: int) -> List[int]:
    """Up to ``per_item`` distinct positions to replace, never the first sentence."""
    return rng.sample(range(1, len(item.pos)), min(per_item, len(item.pos) - 1))


def nearest_documents(documents: Sequence[Sequence[str]], chunk: int = 512) -> List[Optional[int]]:
    """For each document, the index of the most similar *other* document (TF-IDF cosine over its words).

    A document at cosine ``MAX_SIMILARITY`` or more is a copy (a refiled story), not a neighbour; None when
    no other document shares a word.
    """
    import numpy as np

    if len(documents) < 2:
        return [None] * len(documents)
    matrix = tfidf_rows([" ".join(document) for document in documents])
    nearest: List[Optional[int]] = []
    for start in range(0, len(documents), chunk):
        similarity = (matrix[start:start + chunk] @ matrix.T).toarray()
        rows = np.arange(similarity.shape[0])
        similarity[rows, rows + start] = -np.inf
        similarity[(similarity >= MAX_SIMILARITY) | (similarity <= 0.0)] = -np.inf
        best = similarity.argmax(axis=1)
        nearest.extend(int(index) if similarity[row, index] > -np.inf else None for row, index in enumerate(best))
    return nearest


def build_document_intrusions(items: Sequence[TrainingItem], per_item: int, seed: int
                              ) -> Dict[str, List[Intrusion]]:
    """Up to ``per_item`` intrusions per item, each a random sentence of the most similar other document.

    Positions are distinct and never the first, as in ``build_intrusions``; the intruder is drawn from the
    neighbour document's sentences that differ from every sentence of the host block. Seeded per item
    (``f"{seed}:{item id}:document-intrusion"``).

    Returns:
        item id -> list of (position, intruder sentence); an empty list when the document has no neighbour.
    """
    if per_item < 1:
        return {}
    intrusions: Dict[str, List[Intrusion]] = {}
    for source_items in _by_source(items).values():
        documents, _ = _pooled_documents(source_items)
        doc_ids = list(documents)
        nearest = nearest_documents([documents[doc_id] for doc_id in doc_ids])
        neighbour = {doc_id: None if index is None else doc_ids[index] for doc_id, index in zip(doc_ids, nearest)}
        for item in source_items:
            found: List[Intrusion] = []
            other = neighbour[item.doc_id]
            host = set(item.pos)
            candidates = [] if other is None else [sentence for sentence in documents[other] if sentence not in host]
            if candidates:
                rng = random.Random(f"{seed}:{item.id}:document-intrusion")
                found = [(position, rng.choice(candidates)) for position in _positions(rng, item, per_item)]
            intrusions[item.id] = found
    return intrusions


def build_sibling_intrusions(items: Sequence[TrainingItem], per_item: int, seed: int,
                              pool: Optional[Sequence[TrainingItem]] = None) -> Dict[str, List[Intrusion]]:
    """Up to ``per_item`` intrusions per item, each a random sentence of another block of the item's own document.

    Args:
        items: the items to build negatives for.
        per_item: intrusions per item, at distinct positions other than the first.
        seed: seeds each item's generator (``f"{seed}:{item id}:sibling-intrusion"``).
        pool: the items whose blocks supply intruders (default ``items``); pass the whole split when ``items`` is
            a sample of it, so an item's siblings need not have been drawn too.

    Returns:
        item id -> list of (position, intruder sentence); an empty list when the document has one block only.
    """
    if per_item < 1:
        return {}
    blocks: Dict[str, List[TrainingItem]] = defaultdict(list)
    for block in items if pool is None else pool:
        blocks[block.doc_id].append(block)
    intrusions: Dict[str, List[Intrusion]] = {}
    for item in items:
        host = set(item.pos)
        candidates = list(dict.fromkeys(sentence for block in blocks[item.doc_id] if block.id != item.id
                                        for sentence in block.pos if sentence not in host))
        found: List[Intrusion] = []
        if candidates:
            rng = random.Random(f"{seed}:{item.id}:sibling-intrusion")
            found = [(position, rng.choice(candidates)) for position in _positions(rng, item, per_item)]
        intrusions[item.id] = found
    return intrusions


def intrusion_document(item: TrainingItem, intrusion: Intrusion) -> List[str]:
    """The item's positive with one sentence replaced: a negative document."""
    position, sentence = intrusion
    document = list(item.pos)
    document[position] = sentence
    return document


__all__ = ["Intrusion", "build_document_intrusions", "build_intrusions", "build_sibling_intrusions",
           "intrusion_document", "nearest_documents"]
