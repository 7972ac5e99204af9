"""Score every text of a rated set with every system of a run, through the score cache.

The correlation and human-dev suites share this step: the texts of a set are scored in one call per system
(the scorer sorts and batches them), so a re-run with the same model and data reads the scores back.
"""

from __future__ import annotations

import logging
from typing import Any, Optional, Sequence

from coherence_metric.research.cache import JsonCache
from coherence_metric.research.datasets.ratings import RatedSet

from ..harness.cached_scores import ScoredDocuments, score_documents
from ..harness.progress import progress_bar
from ..harness.systems import BenchmarkSystem

LOGGER = logging.getLogger("coherence_metric.benchmarks")


def score_rated_set(systems: Sequence[BenchmarkSystem], rated_set: RatedSet, cache: JsonCache, seed: int,
                    limit: Optional[int] = None, bar: Any = None) -> dict[str, ScoredDocuments]:
    """Return each system's scores of the set's texts, aligned with ``rated_set.texts``.

    Args:
        systems: the run's systems.
        rated_set: the rated texts (already limited, if the run is).
        cache: the score cache.
        seed: the run's seed (part of the cache key).
        limit: the run's limit (part of the cache key).
        bar: an optional tqdm bar advanced once per system.
    """
    documents = [list(text.sentences) for text in rated_set.texts]
    scored: dict[str, ScoredDocuments] = {}
    for system in systems:
        if bar is not None:
            bar.set_postfix_str(f"{rated_set.name} / {system.name}")
        scored[system.name] = score_documents(system, rated_set.name, documents, cache, limit=limit, seed=seed)
        how = "cached" if scored[system.name].cached else f"{scored[system.name].seconds:.1f} s"
        LOGGER.info("%s | %s scored [%s]", rated_set.name, system.name, how)
        if bar is not None:
            bar.update(1)
    return scored



def score_rated_sets(systems: Sequence[BenchmarkSystem], rated_sets: Sequence[RatedSet], cache: JsonCache, seed: int,
                     limit: Optional[int], progress: bool, description: str) -> dict[str, dict[str, ScoredDocuments]]:
    """``score_rated_set`` for each set, under one progress bar: ``{set name: {system name: scores}}``."""
    bar = progress_bar(len(systems) * len(rated_sets), progress, description)
    scored = {rated.name: score_rated_set(systems, rated, cache, seed, limit=limit, bar=bar) for rated in rated_sets}
    if bar is not None:
        bar.close()
    return scored
