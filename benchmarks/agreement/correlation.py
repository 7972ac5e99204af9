"""Correlation of a metric with human ratings at the levels the field reports, with bootstrap intervals.

The field's protocol for SummEval (the UniEval and G-Eval papers, and their code) is the **summary level**:
for each article, correlate the metric with the human ratings over that article's system summaries, skip the
article when either side is constant (its correlation is undefined), and average over articles. Beside it:
the **system level** (each system's mean over articles, correlated over systems), the **dataset level** (every
summary pooled) and the **intra-system level** of Steen & Markert (2022): for each system, correlate over its
summaries of different articles, then average over systems.

Spearman's rho is Pearson's r on average ranks (ties share the mean of their ranks); Kendall's tau is tau-b
(``scipy.stats.kendalltau``'s default, which the UniEval and G-Eval code call). Both are computed row-wise on
arrays here, so a thousand bootstrap resamples of every level take seconds; the tests check them against scipy.
Intervals resample groups (articles, prompts) with replacement, the same draws for every level and for every
scorer of one run, so two scorers' intervals come from the same resamples.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from coherence_metric.errors import InputError

from ..harness.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES, bootstrap_draws

SPEARMAN = "spearman"
KENDALL = "kendall"
CORRELATIONS = (SPEARMAN, KENDALL)
SUMMARY, SYSTEM, DATASET, INTRA_SYSTEM = "summary", "system", "dataset", "intra_system"
LEVELS = (SUMMARY, SYSTEM, DATASET, INTRA_SYSTEM)
#: A rating table: group (article / prompt) -> system -> (human rating, metric score).
RatingTable = Mapping[str, Mapping[str, tuple[float, float]]]
#: Kendall's tau over all pooled texts is O(n^2) per resample; above this many texts it is computed by scipy.
_VECTOR_KENDALL_MAX_N = 400


@dataclass(frozen=True)
class LevelCorrelation:
    """One correlation at one level, with how many units (articles, systems) it is averaged or computed over.

    Attributes:
        value: the correlation; None when no unit had a defined correlation.
        n_units: units with a defined correlation (averaged at the summary and intra-system levels; at the
            system and dataset levels, the systems or texts correlated).
        n_skipped: units skipped because either side was constant or had fewer than 2 items.
        interval: the 95% percentile bootstrap interval over groups, or None when not computed.
    """

    value: Optional[float]
    n_units: int
    n_skipped: int
    interval: Optional[tuple[float, float]] = None

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a JSON-ready dict."""
        data = asdict(self)
        data["interval"] = None if self.interval is None else list(self.interval)
        return data


def _ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis, NaN (missing) left as NaN."""
    from scipy.stats import rankdata

    return np.asarray(rankdata(values, axis=-1, nan_policy="omit"), dtype=np.float64)


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair over the positions where both are present; NaN when undefined."""
    present = ~(np.isnan(x) | np.isnan(y))
    count = present.sum(axis=-1)
    x0, y0 = np.where(present, x, 0.0), np.where(present, y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = x0.sum(axis=-1) / count
        mean_y = y0.sum(axis=-1) / count
        dx = np.where(present, x0 - mean_x[..., None], 0.0)
        dy = np.where(present, y0 - mean_y[..., None], 0.0)
        numerator = (dx * dy).sum(axis=-1)
        denominator = np.sqrt((dx * dx).sum(axis=-1) * (dy * dy).sum(axis=-1))
        r = numerator / denominator
    # Ranks of a constant row are all equal, so the denominator is 0 and r is NaN: undefined, as it should be.
    tiny = denominator <= 1e-12 * np.maximum(1.0, np.abs(numerator))
    return np.where((count < 2) | tiny, np.nan, np.clip(r, -1.0, 1.0))


def spearman_rows(human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row (average ranks for ties) over positions where both are present."""
    human, metric = np.asarray(human, dtype=np.float64), np.asarray(metric, dtype=np.float64)
    both = ~(np.isnan(human) | np.isnan(metric))
    return _pearson_rows(_ranks(np.where(both, human, np.nan)), _ranks(np.where(both, metric, np.nan)))


def kendall_rows(human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row over positions where both are present; NaN when undefined."""
    human, metric = np.asarray(human, dtype=np.float64), np.asarray(metric, dtype=np.float64)
    present = ~(np.isnan(human) | np.isnan(metric))
    n = human.shape[-1]
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    pairs = present[..., :, None] & present[..., None, :] & upper
    sign_h = np.sign(np.nan_to_num(human)[..., :, None] - np.nan_to_num(human)[..., None, :])
    sign_m = np.sign(np.nan_to_num(metric)[..., :, None] - np.nan_to_num(metric)[..., None, :])
    score = (sign_h * sign_m * pairs).sum(axis=(-2, -1))
    total = pairs.sum(axis=(-2, -1))
    untied_h = total - ((sign_h == 0) & pairs).sum(axis=(-2, -1))
    untied_m = total - ((sign_m == 0) & pairs).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = score / np.sqrt(untied_h.astype(np.float64) * untied_m)
    return np.where((untied_h == 0) | (untied_m == 0), np.nan, np.clip(tau, -1.0, 1.0))


def correlation_rows(kind: str, human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """Dispatch to ``spearman_rows`` or ``kendall_rows``."""
    if kind == SPEARMAN:
        return spearman_rows(human, metric)
    if kind == KENDALL:
        return kendall_rows(human, metric)
    raise InputError(f"unknown correlation {kind!r}: choose one of {', '.join(CORRELATIONS)}")


def _pooled(kind: str, human: np.ndarray, metric: np.ndarray) -> float:
    """One correlation over a flat sample (scipy's Kendall for a large one, where pairs would not fit)."""
    keep = ~(np.isnan(human) | np.isnan(metric))
    human, metric = human[keep], metric[keep]
    if kind == KENDALL and len(human) > _VECTOR_KENDALL_MAX_N:
        from scipy.stats import kendalltau

        if len(human) < 2 or np.all(human == human[0]) or np.all(metric == metric[0]):
            return math.nan
        return float(kendalltau(human, metric)[0])
    return float(correlation_rows(kind, human[None, :], metric[None, :])[0])


@dataclass(frozen=True)
class RatingArrays:
    """A rating table as two (groups x systems) arrays, NaN where a group has no text of a system."""

    groups: tuple[str, ...]
    systems: tuple[str, ...]
    human: np.ndarray
    metric: np.ndarray


def rating_arrays(table: RatingTable) -> RatingArrays:
    """Turn ``{group: {system: (human, metric)}}`` into arrays, refusing an empty table or a non-finite value."""
    if not table:
        raise InputError("no rated texts to correlate")
    groups = tuple(table)
    systems = tuple(dict.fromkeys(system for entries in table.values() for system in entries))
    column = {system: index for index, system in enumerate(systems)}
    human = np.full((len(groups), len(systems)), np.nan)
    metric = np.full((len(groups), len(systems)), np.nan)
    for row, group in enumerate(groups):
        for system, (rating, score) in table[group].items():
            if not (math.isfinite(rating) and math.isfinite(score)):
                raise InputError(f"group {group} system {system}: rating {rating} and score {score} must be finite")
            human[row, column[system]] = rating
            metric[row, column[system]] = score
    return RatingArrays(groups, systems, human, metric)


def _mean_defined(values: np.ndarray) -> LevelCorrelation:
    defined = values[~np.isnan(values)]
    return LevelCorrelation(float(defined.mean()) if defined.size else None, int(defined.size),
                            int(values.size - defined.size))


def _single(value: float, n_units: int) -> LevelCorrelation:
    return LevelCorrelation(None, 0, 1) if math.isnan(value) else LevelCorrelation(value, n_units, 0)


def _system_means(arrays: RatingArrays, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each system's weighted mean rating and score over groups (weights: how often each group was drawn)."""
    present = (~np.isnan(arrays.human)).astype(np.float64)
    counts = weights @ present
    with np.errstate(invalid="ignore", divide="ignore"):
        human = (weights @ np.nan_to_num(arrays.human)) / counts
        metric = (weights @ np.nan_to_num(arrays.metric)) / counts
    return np.where(counts > 0, human, np.nan), np.where(counts > 0, metric, np.nan)


def level_correlation(arrays: RatingArrays, level: str, kind: str) -> LevelCorrelation:
    """Return one level's correlation of the metric with the ratings (see the module docstring)."""
    if level == SUMMARY:
        return _mean_defined(correlation_rows(kind, arrays.human, arrays.metric))
    if level == INTRA_SYSTEM:
        return _mean_defined(correlation_rows(kind, arrays.human.T, arrays.metric.T))
    if level == SYSTEM:
        human, metric = _system_means(arrays, np.ones((1, len(arrays.groups))))
        return _single(float(correlation_rows(kind, human, metric)[0]), len(arrays.systems))
    if level == DATASET:
        return _single(_pooled(kind, arrays.human.ravel(), arrays.metric.ravel()),
                       int((~np.isnan(arrays.human)).sum()))
    raise InputError(f"unknown correlation level {level!r}: choose one of {', '.join(LEVELS)}")


def _nanmean_rows(values: np.ndarray) -> np.ndarray:
    """Row means over the defined entries; NaN for a row with none (numpy's all-NaN warning silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(values, axis=1)


def _resampled(arrays: RatingArrays, draws: np.ndarray, level: str, kind: str,
               per_group: Optional[np.ndarray]) -> np.ndarray:
    """The level's value on every resample of the groups (NaN where undefined)."""
    if level == SUMMARY:
        return _nanmean_rows(np.asarray(per_group)[draws])
    if level == SYSTEM:
        weights = np.stack([np.bincount(row, minlength=len(arrays.groups)) for row in draws]).astype(np.float64)
        return correlation_rows(kind, *_system_means(arrays, weights))
    if level == INTRA_SYSTEM:
        per_system = np.stack([correlation_rows(kind, arrays.human[draws, column], arrays.metric[draws, column])
                               for column in range(len(arrays.systems))], axis=1)
        return _nanmean_rows(per_system)
    return np.array([_pooled(kind, arrays.human[row].ravel(), arrays.metric[row].ravel()) for row in draws])


def correlate(
    table: RatingTable,
    levels: Sequence[str] = LEVELS,
    correlations: Sequence[str] = CORRELATIONS,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = 0.95,
) -> dict[str, dict[str, LevelCorrelation]]:
    """Return every asked level and correlation, each with a percentile bootstrap interval over groups.

    Args:
        table: group -> system -> (human rating, metric score).
        levels: any of ``summary``, ``system``, ``dataset``, ``intra_system``.
        correlations: any of ``spearman``, ``kendall``.
        resamples: bootstrap resamples of the groups; 0 gives no intervals.
        seed: seeds the resampling (the same seed and groups give the same draws for every scorer).
        confidence: the interval's coverage.

    Returns:
        ``{level: {correlation: LevelCorrelation}}``.
    """
    arrays = rating_arrays(table)
    draws = bootstrap_draws(len(arrays.groups), resamples, seed)
    tail = (1.0 - confidence) / 2.0 * 100.0
    result: dict[str, dict[str, LevelCorrelation]] = {}
    for level in levels:
        result[level] = {}
        for kind in correlations:
            per_group = correlation_rows(kind, arrays.human, arrays.metric) if level == SUMMARY else None
            point = _mean_defined(per_group) if per_group is not None else level_correlation(arrays, level, kind)
            if resamples and point.value is not None:
                values = _resampled(arrays, draws, level, kind, per_group)
                values = values[~np.isnan(values)]
                if values.size:
                    low, high = np.percentile(values, [tail, 100.0 - tail])
                    point = LevelCorrelation(point.value, point.n_units, point.n_skipped, (float(low), float(high)))
            result[level][kind] = point
    return result


def correlations_to_dict(result: Mapping[str, Mapping[str, LevelCorrelation]]) -> dict[str, Any]:
    """Return ``correlate``'s result as JSON-ready nested dicts."""
    return {level: {kind: cell.to_dict() for kind, cell in kinds.items()} for level, kinds in result.items()}
