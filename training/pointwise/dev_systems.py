"""System-level agreement on the dev-select half of human_dev.

Pairwise accuracy asks whether a metric orders two texts for one prompt the way people do. A leaderboard asks
something else: whether the metric ranks *systems* the way people do, once each system's texts are averaged.
A metric can win pairs and still misrank systems (a bias that moves one generator's every text), so each option
also reports Kendall's tau between per-system mean scores and per-system mean human ratings, with a bootstrap
over prompts (whole groups, every system's text for a prompt drawn together) for its interval.

Only sets where every group holds a text by every system count (HANNA: 11 systems x each prompt; FFCI: 4
systems x each article): with unbalanced groups (DeltaScore, whose rater pools saw different prompts and
systems) a system's mean would follow which prompts it got, not how well it writes. Nothing here reads a test set.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from scipy.stats import kendalltau

from coherence_metric.research.datasets.ratings import RatedSet

#: Bootstrap draws over groups per set: the interval's ends move by about 0.01 between seeds at this count.
SYSTEM_RESAMPLES = 1000
SYSTEM_SEED = 52
#: Fewer systems than this give a tau of one or three pairs: no ranking worth reporting.
MIN_SYSTEMS = 3


@dataclass(frozen=True)
class SystemTable:
    """A set's dev-select texts summed per (group, system): model scores, human ratings and text counts."""

    systems: List[str]
    scores: np.ndarray  # groups x systems
    ratings: np.ndarray
    counts: np.ndarray


def system_table(rated: RatedSet, indices: Sequence[int], scores: Sequence[float]) -> Optional[SystemTable]:
    """The table of the texts at ``indices`` (``scores`` in the same order), or None when the set names no system,
    has fewer than :data:`MIN_SYSTEMS`, or some group lacks some system (see the module docstring)."""
    texts = [rated.texts[index] for index in indices]
    systems = sorted({text.system for text in texts})
    if len(systems) < MIN_SYSTEMS or any(system in ("", "None") for system in systems):
        return None
    groups = sorted({text.group for text in texts})
    row = {group: position for position, group in enumerate(groups)}
    column = {system: position for position, system in enumerate(systems)}
    shape = (len(groups), len(systems))
    table = SystemTable(systems, np.zeros(shape), np.zeros(shape), np.zeros(shape))
    for text, score in zip(texts, scores):
        cell = (row[text.group], column[text.system])
        table.scores[cell] += score
        table.ratings[cell] += text.rating
        table.counts[cell] += 1
    return table if bool((table.counts > 0).all()) else None


def kendall(first: Sequence[float], second: Sequence[float]) -> float:
    """Kendall's tau-b (``scipy.stats.kendalltau``); 0.0 when either side is constant (tau undefined)."""
    value = float(kendalltau(first, second).statistic)
    return 0.0 if math.isnan(value) else value


def system_tau(table: SystemTable, resamples: int = SYSTEM_RESAMPLES,
               seed: int = SYSTEM_SEED) -> Tuple[float, List[float]]:
    """Tau between per-system mean score and mean rating, and its 95% bootstrap interval over groups."""
    observed = kendall(table.scores.sum(0) / table.counts.sum(0), table.ratings.sum(0) / table.counts.sum(0))
    groups = table.counts.shape[0]
    draws = np.random.default_rng(seed).integers(0, groups, size=(resamples, groups))
    weights = np.zeros((resamples, groups))
    np.add.at(weights, (np.arange(resamples)[:, None], draws), 1.0)
    counts = weights @ table.counts
    means, ratings = (weights @ table.scores) / counts, (weights @ table.ratings) / counts
    taus = [kendall(score_row, rating_row) for score_row, rating_row in zip(means, ratings)]
    low, high = np.percentile(taus, [2.5, 97.5])
    return observed, [float(low), float(high)]


def system_agreement(rated_sets: Sequence[RatedSet], rated_texts: Mapping[str, Sequence[int]],
                     scores: Mapping[str, Sequence[float]], resamples: int = SYSTEM_RESAMPLES) -> Dict[str, Any]:
    """``system_tau`` {set: tau}, ``system_tau_interval`` {set: [low, high]} and ``system_tau_mean`` (None when no
    set qualifies) over the sets with a balanced system table; ``scores[name]`` follows ``rated_texts[name]``."""
    taus: Dict[str, float] = {}
    intervals: Dict[str, List[float]] = {}
    for rated in rated_sets:
        table = system_table(rated, rated_texts[rated.name], scores[rated.name])
        if table is not None:
            taus[rated.name], intervals[rated.name] = system_tau(table, resamples)
    return {"system_tau": taus, "system_tau_interval": intervals,
            "system_tau_mean": statistics.fmean(taus.values()) if taus else None}


__all__ = ["MIN_SYSTEMS", "SystemTable", "kendall", "system_agreement", "system_table", "system_tau"]
