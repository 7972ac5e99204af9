"""Score one test set with one system, through the score cache, and turn the scores into the set's metric.

Every unique document of a test set is scored once (:func:`..harness.cached_scores.score_documents`: permuted sets
repeat each original 20 times), and the scores are mapped back to the pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.datasets import TestSet
from coherence_metric.research.datasets.base import LMVLM_AGREEMENT, PAIRWISE_ACCURACY

from ..harness.cached_scores import documents_cache_key, score_documents
from ..harness.systems import BenchmarkSystem
from .metrics import (
    accuracy_interval,
    annotation_matrix,
    lmvlm_agreement,
    model_labels,
    nominal_alpha,
    pairwise_accuracy,
)


@dataclass
class ScoredTestSet:
    """One system's scores on one test set, aligned with the items, and where they came from.

    Attributes:
        pos: score of each item's ``pos`` document.
        neg: score of each item's ``neg`` document.
        n_documents: unique documents scored.
        n_truncated: unique documents cut at the model's max_length.
        n_windowed: unique documents scored as overlapping sentence windows (None: not recorded, e.g. a
            baseline, or a cache entry written before it was counted).
        seconds: scoring time (of the original run, when read from the cache).
        cached: the scores were read from the cache.
        reused_from: the system whose scores were reused (identical parameters), if any.
    """

    pos: list[float]
    neg: list[float]
    n_documents: int
    n_truncated: int
    seconds: float
    cached: bool = False
    reused_from: Optional[str] = None
    n_windowed: Optional[int] = None


def unique_documents(test_set: TestSet) -> tuple[list[list[str]], list[int], list[int]]:
    """Return the distinct documents of a test set in first-seen order, and each item's pos and neg index.

    Args:
        test_set: the pairs.

    Returns:
        ``(documents, pos_index, neg_index)`` with ``documents[pos_index[i]] == items[i].pos``.
    """
    index: dict[tuple[str, ...], int] = {}
    documents: list[list[str]] = []
    pos_index: list[int] = []
    neg_index: list[int] = []
    for item in test_set:
        for document, target in ((item.pos, pos_index), (item.neg, neg_index)):
            key = tuple(document)
            if key not in index:
                index[key] = len(documents)
                documents.append(list(document))
            target.append(index[key])
    return documents, pos_index, neg_index


def score_cache_key(system: BenchmarkSystem, test_set: TestSet, limit: Optional[int], seed: int,
                    documents: list[list[str]]) -> str:
    """Return the score cache key: system id, test set name, limit, seed and a hash of the documents scored."""
    return documents_cache_key(system, test_set.name, limit, seed, documents)


def score_test_set(
    system: BenchmarkSystem,
    test_set: TestSet,
    cache: JsonCache,
    limit: Optional[int],
    seed: int,
    reuse: Optional[Callable[[], Optional[tuple[str, ScoredTestSet]]]] = None,
) -> ScoredTestSet:
    """Score every unique document of a test set once (or read the scores from the cache) and map them back.

    Args:
        system: the system to score with.
        test_set: the (possibly limited) test set.
        cache: the score cache.
        limit: the ``--limit`` the set was cut with (part of the key).
        seed: the run's seed (part of the key).
        reuse: called on a cache miss only; returns (name, scores) of an already scored system with identical
            parameters, whose scores are then used instead of scoring again, or None.

    Returns:
        The scores aligned with the items.
    """
    documents, pos_index, neg_index = unique_documents(test_set)
    if not documents:
        raise InputError(f"test set {test_set.name} has no items to score")
    key = score_cache_key(system, test_set, limit, seed, documents)

    def reused() -> Optional[tuple[str, list[float], int, Optional[int]]]:
        found = reuse() if reuse is not None else None
        if found is None:
            return None
        name, other = found
        scores = [0.0] * len(documents)
        for positions, values in ((pos_index, other.pos), (neg_index, other.neg)):
            for position, value in zip(positions, values):
                scores[position] = value
        return name, scores, other.n_truncated, other.n_windowed

    scored = score_documents(system, test_set.name, documents, cache, key, limit=limit, seed=seed, reuse=reused)
    return _aligned(scored.scores, pos_index, neg_index, scored.n_truncated, scored.seconds, cached=scored.cached,
                    reused_from=scored.reused_from, n_windowed=scored.n_windowed)


def _aligned(scores: list[float], pos_index: list[int], neg_index: list[int], n_truncated: int, seconds: float,
             cached: bool = False, reused_from: Optional[str] = None,
             n_windowed: Optional[int] = None) -> ScoredTestSet:
    return ScoredTestSet(
        pos=[float(scores[index]) for index in pos_index],
        neg=[float(scores[index]) for index in neg_index],
        n_documents=len(scores),
        n_truncated=int(n_truncated),
        seconds=float(seconds),
        cached=cached,
        reused_from=reused_from,
        n_windowed=None if n_windowed is None else int(n_windowed),
    )


def pair_groups(test_set: TestSet) -> list[tuple[str, ...]]:
    """The bootstrap group of each pair: its positive text, so that the permutations or intrusions of one document
    (or the pairs of one summary) are resampled together."""
    return [tuple(item.pos) for item in test_set.items]


def evaluate(test_set: TestSet, scored: ScoredTestSet) -> dict[str, Any]:
    """Return the test set's metric over the scores as a JSON-ready dict, with the scoring facts beside it.

    Pairwise sets give ``accuracy`` (ties wrong, the paper's metric), ``n_ties``, ``accuracy_excluding_ties`` and
    ``accuracy_interval`` (95% bootstrap over groups of pairs sharing a positive text, 1000 resamples, seed 12345);
    LMVLM gives ``alpha`` (3 annotator rows + the model), ``alpha_annotators_1_2``, ``majority_agreement`` and
    ``n_model_ties``.
    """
    if test_set.primary_metric == LMVLM_AGREEMENT:
        metric = _lmvlm_metric(scored, test_set)
    elif test_set.primary_metric == PAIRWISE_ACCURACY:
        metric = pairwise_accuracy(scored.pos, scored.neg).to_dict()
        interval = accuracy_interval(scored.pos, scored.neg, pair_groups(test_set))
        metric["accuracy_interval"] = None if interval is None else [round(value, 6) for value in interval]
    else:
        raise InputError(f"test set {test_set.name} has an unknown metric {test_set.primary_metric!r}")
    return {
        **metric,
        "n_documents": scored.n_documents,
        "n_truncated": scored.n_truncated,
        "n_windowed": scored.n_windowed,
        "seconds": round(scored.seconds, 2),
        "cached": scored.cached,
        "reused_from": scored.reused_from,
    }


def _lmvlm_metric(scored: ScoredTestSet, test_set: TestSet) -> dict[str, Any]:
    """LMVLM agreement; when alpha is undefined (a small --limit where every label is the same, or a model that
    ties everywhere) the alphas are None with the reason, and the agreement counts are still given."""
    try:
        return lmvlm_agreement(scored.pos, scored.neg, test_set.annotations).to_dict()
    except InputError as error:
        reason = str(error)
    labels = model_labels(scored.pos, scored.neg)
    annotators = annotation_matrix(test_set.annotations, len(labels))
    majority = (annotators.sum(axis=0) >= 2).astype(np.float64)
    tied = np.isnan(labels)
    matches = int(np.sum(labels[~tied] == majority[~tied]))
    decided = int(np.sum(~tied))

    def alpha(rows: Any) -> Optional[float]:
        try:
            return nominal_alpha(rows)
        except InputError:
            return None

    return {
        "n": len(labels),
        "n_model_ties": int(tied.sum()),
        "alpha": alpha(np.vstack([annotators, labels])),
        "alpha_annotators_1_2": alpha(np.vstack([annotators[1:], labels])),
        "alpha_annotators_only": alpha(annotators),
        "majority_agreement": matches / len(labels),
        "majority_agreement_excluding_ties": matches / decided if decided else None,
        "alpha_undefined": reason,
    }
