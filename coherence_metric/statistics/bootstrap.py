"""Seeded paired bootstrap for comparing two systems scored on the same inputs (as in sacrebleu/COMET).

Metric-agnostic and numpy-only: it resamples input indices with replacement, so each resample keeps
every pair together, and reports percentile intervals. The seed and resample count go into the
signature; the same inputs, seed and count give the same interval on every machine. A pair whose scores are
within the tie tolerance (:mod:`coherence_metric.statistics.ties`) is a tie, never a win, as in the result objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Sequence, Tuple

import numpy as np

from ..errors import InputError
from .ties import TIE_TOLERANCE

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345
CONFIDENCE = 0.95
MAX_RESAMPLES = 1_000_000
"""Past this the interval no longer changes in the digits anyone reports, and the two statistic arrays (16 bytes a
resample) plus the draws grow with it: 10**10 asked numpy for 75 GiB and died with a MemoryError traceback."""
MAX_SEED = 2**63 - 1
"""Seeds are 0 .. 2**63 - 1: numpy's generators refuse negative ones (a traceback before this check), and the cap
keeps the seed in the signature a signed 64-bit integer wherever it is parsed."""
MIN_PAIRED_INPUTS = 2
"""Fewest inputs a bootstrap interval or p-value is computed from: one input gave a zero-width interval and
p = 0.001, a "significant" difference out of a single pair."""
MIN_CLI_RESAMPLES = 100
"""Fewest resamples the command line accepts: ``--bootstrap 1`` printed a 95% "interval" that was one resample's
value (excluding its own estimate) and a p-value bound of "<1". 100 puts the 2.5th and 97.5th percentiles between
resamples and the p-value floor at 1/101. The Python API keeps 1 as its minimum for quick checks."""
_CHUNK = 50


def _is_integer(value: object) -> bool:
    """An int or numpy integer, not a bool (True would silently mean one resample)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_bootstrap_settings(resamples: int, seed: int) -> Tuple[int, int]:
    """Refuse a resample count or seed the bootstrap cannot use, before any scoring or allocation.

    Returns:
        Both as plain ``int`` (a numpy integer would reach ``to_json`` and fail there).

    Raises:
        InputError: (a ValueError) naming the setting, its allowed range and the value given.
    """
    if not _is_integer(resamples) or not 1 <= resamples <= MAX_RESAMPLES:
        raise InputError(
            f"bootstrap_resamples must be a positive integer of at most {MAX_RESAMPLES}, got {resamples!r}")
    if not _is_integer(seed) or not 0 <= seed <= MAX_SEED:
        raise InputError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
    return int(resamples), int(seed)


def check_confidence(confidence: float) -> float:
    """Refuse an interval coverage outside (0, 1); return it as a plain float.

    Raises:
        InputError: naming ``confidence`` and the value given (1.5 reached numpy's percentile and failed there).
    """
    if isinstance(confidence, bool) or not isinstance(confidence, Real) or not 0.0 < float(confidence) < 1.0:
        raise InputError(f"confidence must be a number between 0 and 1 (0.95 for a 95% interval), "
                         f"got {confidence!r}")
    return float(confidence)


def check_paired_scores(scores_a: Sequence[float], scores_b: Sequence[float]) -> Tuple[np.ndarray, np.ndarray]:
    """Both systems' scores as float64 arrays, checked: equal lengths, at least ``MIN_PAIRED_INPUTS``, finite.

    Raises:
        InputError: naming what is wrong; with one input there is nothing to resample (every resample is that
            input), so an interval would have zero width and the p-value would say "significant".
    """
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError(f"a paired comparison needs two score lists of equal length, got {a.shape} and {b.shape}")
    check_sample_size(a.size)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InputError("a paired comparison needs finite scores: NaN or inf among them")
    return a, b


def check_sample_size(n_inputs: int) -> None:
    """Refuse fewer than ``MIN_PAIRED_INPUTS`` inputs for an interval or a p-value.

    Raises:
        InputError: naming the count and the minimum.
    """
    if n_inputs < MIN_PAIRED_INPUTS:
        raise InputError(f"bootstrap intervals and p-values need at least {MIN_PAIRED_INPUTS} inputs, got "
                         f"{n_inputs}: with one input every resample is that input (compare two single texts "
                         "instead, which reports the winner without an interval)")


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
    tie_tolerance: float = TIE_TOLERANCE,
) -> PairedBootstrap:
    """Percentile bootstrap intervals for the win rate of A (ties, within ``tie_tolerance``, are not wins) and
    mean(A - B).

    Args:
        scores_a: system A's score on each input.
        scores_b: system B's score on the same inputs, in the same order.
        resamples: number of bootstrap resamples, 1 to MAX_RESAMPLES.
        seed: seed of numpy's PCG64 generator, 0 to MAX_SEED.
        confidence: interval coverage, 0.95 for a 95% interval.
        tie_tolerance: scores this close are a tie (:func:`coherence_metric.statistics.ties.tie_tolerance` of their
        dtype).
    """
    a, b = check_paired_scores(scores_a, scores_b)
    resamples, seed = check_bootstrap_settings(resamples, seed)
    confidence = check_confidence(confidence)
    rng = np.random.Generator(np.random.PCG64(seed))
    delta = a - b
    won = (delta > tie_tolerance).astype(np.float64)
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
