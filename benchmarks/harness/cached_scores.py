"""Score documents with one system through the score cache: every run's scoring step, whatever it measures.

The documents are scored in calls of up to :data:`PART_SIZE` (the scorer sorts each call's by length and batches them),
and the scores are cached under a key naming the system, the collection, the limit, the seed and the documents, so a
re-run with the same model and data reads them back. The paper suite maps the scores back to its pairs
(:mod:`..paper.scoring`); the suites of rated texts to their ratings (:mod:`..agreement.rated_scoring`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable, Optional

from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache, digest

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


def documents_cache_key(system: BenchmarkSystem, name: str, limit: Optional[int], seed: int,
                        documents: list[list[str]]) -> str:
    """Return the cache key of a system's scores of named documents (any change to them misses the cache)."""
    return digest({"system": system.system_id, "test_set": name, "limit": limit, "seed": seed,
                   "documents": digest(documents, length=32)})


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
