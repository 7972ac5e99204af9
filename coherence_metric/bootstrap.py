"""Seeded paired bootstrap for comparing two systems scored on the same inputs (as in sacrebleu/COMET).

Metric-agnostic and numpy-only: it resamples input indices with replacement, so each resample keeps
every pair together, and reports percentile intervals. The seed and resample count go into the
signature; the same inputs, seed and count give the same interval on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345
CONFIDENCE = 0.95
_CHUNK = 50


@dataclass(frozen=True)
class PairedBootstrap:
    """Intervals for A vs B: the share of inputs where A scores higher, and the mean score difference."""

    win_rate_interval: Tuple[float, float]
    mean_difference_interval: Tuple[float, float]
    resamples: int
    seed: int
    confidence: float = CONFIDENCE


def paired_bootstrap(
    scores_a: Sequence[float],
    scores_b: Sequence[float],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
) -> PairedBootstrap:
    """Percentile bootstrap intervals for the win rate of A (strict, ties are not wins) and mean(A - B).

    Args:
        scores_a: system A's score on each input.
        scores_b: system B's score on the same inputs, in the same order.
        resamples: number of bootstrap resamples.
        seed: seed of numpy's PCG64 generator.
        confidence: interval coverage, 0.95 for a 95% interval.
    """
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError("paired bootstrap needs two non-empty score lists of equal length")
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    rng = np.random.Generator(np.random.PCG64(seed))
    won = (a > b).astype(np.float64)
    delta = a - b
    wins = np.empty(resamples)
    differences = np.empty(resamples)
    # Resamples are drawn in fixed-size chunks so memory stays bounded for large test sets.
    for start in range(0, resamples, _CHUNK):
        stop = min(start + _CHUNK, resamples)
        indices = rng.integers(0, a.size, size=(stop - start, a.size))
        wins[start:stop] = won[indices].mean(axis=1)
        differences[start:stop] = delta[indices].mean(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    bounds = (tail, 100.0 - tail)
    win_low, win_high = np.percentile(wins, bounds)
    diff_low, diff_high = np.percentile(differences, bounds)
    return PairedBootstrap(
        win_rate_interval=(float(win_low), float(win_high)),
        mean_difference_interval=(float(diff_low), float(diff_high)),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )
