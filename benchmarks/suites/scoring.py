"""Score one test set with one system, through the score cache, and turn the scores into the set's metric.

Every unique document of a test set is scored once, in calls of up to ``PART_SIZE`` documents (the scorer sorts each
call's by length and batches them; permuted sets repeat each original 20 times), and the scores are mapped back to
the pairs.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache, digest
from coherence_metric.research.datasets import TestSet
from coherence_metric.research.datasets.base import LMVLM_AGREEMENT, PAIRWISE_ACCURACY

from ..metrics import (
    accuracy_interval,
    annotation_matrix,
    lmvlm_agreement,
    model_labels,
    nominal_alpha,
    pairwise_accuracy,
)
from .systems import BenchmarkSystem

LOGGER = logging.getLogger("coherence_metric.benchmarks")

CACHE_KIND = "scores"
#: Where the parts of a set still being scored are kept (see :data:`PART_SIZE`).
PART_KIND = "score-parts"
#: Documents per scorer call. A set of more is scored in parts, each cached as it completes, so a run killed
#: mid-set (a session's end, a lost machine) resumes from its last finished part: the accurate tier in fp32 on a
#: 2-core CPU takes hours per permuted set. A part's scores equal those of one call over the whole set up to the
#: float rounding of a batch's row count (:mod:`coherence_metric.scoring.batching`): at most 1.7e-6 on StoryCloze
#: in fp32, and the default's StoryCloze and INSTED-WIKI accuracies reproduce to the pair.
PART_SIZE = 512


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


def documents_cache_key(system: BenchmarkSystem, name: str, limit: Optional[int], seed: int,
                        documents: list[list[str]]) -> str:
    """Return the cache key of a system's scores of named documents (any change to them misses the cache)."""
    return digest({"system": system.system_id, "test_set": name, "limit": limit, "seed": seed,
                   "documents": digest(documents, length=32)})


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


@dataclass
class ScoredDocuments:
    """One system's scores of a list of documents, in input order, and where they came from."""

    scores: list[float]
    n_truncated: int
    n_windowed: Optional[int]
    seconds: float
    cached: bool = False
    reused_from: Optional[str] = None


def score_documents(
    system: BenchmarkSystem,
    name: str,
    documents: list[list[str]],
    cache: JsonCache,
    key: Optional[str] = None,
    limit: Optional[int] = None,
    seed: int = 0,
    reuse: Optional[Callable[[], Optional[tuple[str, list[float], int, Optional[int]]]]] = None,
) -> ScoredDocuments:
    """Score documents in one call (the scorer sorts and batches them), or read the scores from the cache.

    Args:
        system: the system to score with.
        name: the collection's name (part of the cache file name and key).
        documents: each a list of sentences.
        cache: the score cache.
        key: the cache key; None derives it from the system, name, limit, seed and documents.
        limit: recorded with the entry.
        seed: recorded with the entry.
        reuse: called on a cache miss only; returns (name, scores, n_truncated, n_windowed) of an already scored
            system with identical parameters, whose scores are then used instead of scoring again, or None.

    Returns:
        The scores in input order.
    """
    if not documents:
        raise InputError(f"{name} has no documents to score")
    if key is None:
        key = documents_cache_key(system, name, limit, seed, documents)
    cached = cache.read(CACHE_KIND, name, key)
    if cached is not None and len(cached.get("scores", [])) == len(documents):
        return ScoredDocuments([float(value) for value in cached["scores"]], int(cached["n_truncated"]),
                               cached.get("n_windowed"), float(cached["seconds"]), cached=True)
    found = reuse() if reuse is not None else None
    reused_from: Optional[str] = None
    if found is not None:
        reused_from, scores, n_truncated, n_windowed = found
        seconds = 0.0
    else:
        scores, n_truncated, n_windowed, seconds = _score_in_parts(system, name, documents, cache, key)
    cache.write(CACHE_KIND, name, key, {
        "system_id": system.system_id, "test_set": name, "limit": limit, "seed": seed,
        "scores": scores, "n_truncated": n_truncated, "n_windowed": n_windowed, "seconds": seconds,
    })
    return ScoredDocuments(scores, int(n_truncated), None if n_windowed is None else int(n_windowed), seconds,
                           reused_from=reused_from)


def _score_in_parts(system: BenchmarkSystem, name: str, documents: list[list[str]], cache: JsonCache, key: str
                    ) -> tuple[list[float], int, Optional[int], float]:
    """Scores, truncation and window counts, and scoring seconds of ``documents``, :data:`PART_SIZE` per call;
    with more than one part, each finished part is cached under the set's key and read back on a rerun."""
    parted = len(documents) > PART_SIZE
    scores: list[float] = []
    n_truncated, n_windowed, seconds = 0, 0, 0.0
    windows_known = True
    for start in range(0, len(documents), PART_SIZE):
        part = documents[start:start + PART_SIZE]
        part_key = digest({"set": key, "start": start, "documents": digest(part, length=32)}) if parted else ""
        found = cache.read(PART_KIND, name, part_key) if parted else None
        if found is None or len(found.get("scores", [])) != len(part):
            started = time.perf_counter()
            result = system.score(part)
            found = {"scores": [float(value) for value in result.scores], "n_truncated": int(result.n_truncated),
                     "n_windowed": result.n_windowed, "seconds": time.perf_counter() - started}
            if len(found["scores"]) != len(part):
                raise InputError(f"{system.name} returned {len(found['scores'])} scores for {len(part)} documents")
            if parted:
                cache.write(PART_KIND, name, part_key, found)
                LOGGER.info("%s | %s: documents %d-%d of %d scored (%.0f s), cached", name, system.name, start + 1,
                            start + len(part), len(documents), found["seconds"])
        scores.extend(float(value) for value in found["scores"])
        n_truncated += int(found["n_truncated"])
        windows_known = windows_known and found["n_windowed"] is not None
        n_windowed += int(found["n_windowed"] or 0)
        seconds += float(found["seconds"])
    return scores, n_truncated, n_windowed if windows_known else None, seconds


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
    import numpy as np

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
