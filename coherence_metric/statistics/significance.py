"""Significance of a difference between two systems scored on the same inputs, as sacrebleu tests it.

Two tests of "A and B differ" (two-sided), over segments (inputs), both seeded so a result is the same on every
machine for the same seed:

- **paired bootstrap resampling** (Koehn 2004; sacrebleu ``--paired-bs``): resample the inputs with replacement,
  take ``mean(A - B)`` on each resample, centre those values on their mean (the distribution the difference would
  have if the systems were equal: Efron & Tibshirani's shift method, Berg-Kirkpatrick et al. 2012) and count how
  often the centred value's size reaches the observed ``|mean(A - B)|``;
- **approximate randomization** (Noreen 1989, Riezler & Maxwell 2005; sacrebleu ``--paired-ar``): in each trial
  swap A's and B's score on each input with probability 1/2 and count how often ``|mean(A - B)|`` of the shuffled
  systems reaches the observed one.

The p-value is sacrebleu's ``(count + 1) / (trials + 1)``: the +1 keeps the chance of a false rejection at or below
the level for any number of trials. Three deliberate differences from sacrebleu:

- a count of values *at least* as large as the observed one (``>=``, the textbook definition): sacrebleu's strict
  ``>`` gives a system compared with itself p = 1/(trials + 1), "significant";
- a per-input difference within the tie tolerance of the scores' dtype counts as zero (rounding noise, as everywhere
  a comparison decides here; :mod:`coherence_metric.statistics.ties`), so identical outputs give p = 1 in both tests;
- the bootstrap centres the signed differences before taking their size; sacrebleu takes the size first and then
  centres, which is not the null distribution: on 2,000 inputs whose true difference is a quarter of its standard
  error it gave p = 0.29 where approximate randomization gives 0.81 (this centring gives 0.80).
 The system score is a mean of per-input scores, so resampling per-input scores is resampling the
statistic sacrebleu resamples. Resample indices are drawn exactly as
:func:`coherence_metric.statistics.bootstrap.paired_bootstrap`
draws them, so for one seed every interval and p-value of a comparison comes from the same resamples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import InputError
from .bootstrap import (
    _CHUNK,
    CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    _is_integer,
    check_bootstrap_settings,
    check_confidence,
    check_paired_scores,
    check_sample_size,
)
from .ties import TIE_TOLERANCE

DEFAULT_TRIALS = 10_000
"""sacrebleu's default number of approximate-randomization trials."""
MAX_TRIALS = 1_000_000
MIN_CLI_TRIALS = 100
"""Fewest randomization trials the command line accepts: ``--trials 1`` gave every p-value as "<1"."""
MIN_INPUTS_BOOTSTRAP_P = 10
"""Fewest inputs a paired-bootstrap p-value is reported for. With few inputs the centred bootstrap has few distinct
resamples (3 for 2 inputs) and understates p: on normal differences with no true difference it rejected at the 0.05
level 47% of the time with 2 inputs, 18% with 4, 9% with 8 and 8% with 10 (7% with 20 to 30), and with 2 inputs it
said "<0.001" beside a randomization p of 0.49. Approximate randomization holds its level at any size, so below this
only its p-value is given."""
_RELATIVE_EPSILON = 1e-9
"""Summing the same differences in another order moves the last bits; a shuffle equal to the observed split must
still count as reaching it."""


def check_trials(trials: int) -> int:
    """Refuse an approximate-randomization trial count outside 1..MAX_TRIALS (or not an integer); return it as a
    plain ``int``."""
    if not _is_integer(trials) or not 1 <= trials <= MAX_TRIALS:
        raise InputError(f"randomization_trials must be a positive integer of at most {MAX_TRIALS}, got {trials!r}")
    return int(trials)


def _differences(scores_a: Sequence[float], scores_b: Sequence[float], tie_tolerance: float) -> np.ndarray:
    a, b = check_paired_scores(scores_a, scores_b)
    delta = a - b
    delta[np.abs(delta) <= tie_tolerance] = 0.0
    return delta


def _p_value(statistics: np.ndarray, observed: float) -> float:
    """(number of statistics at least ``observed``, + 1) / (number of statistics + 1)."""
    threshold = observed - _RELATIVE_EPSILON * max(abs(observed), 1e-12)
    count = int(np.count_nonzero(statistics >= threshold))
    return (count + 1) / (statistics.size + 1)


def resampled_means(values: Union[Sequence[float], np.ndarray], resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED) -> np.ndarray:
    """The mean of ``values`` on each of ``resamples`` bootstrap resamples (the indices ``paired_bootstrap`` draws
    for the same seed and length)."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise InputError(f"resampling needs a list of scores, got an array of shape {array.shape}")
    check_sample_size(array.size)
    if not np.isfinite(array).all():
        raise InputError("resampling needs finite scores: NaN or inf among them")
    resamples, seed = check_bootstrap_settings(resamples, seed)
    rng = np.random.Generator(np.random.PCG64(seed))
    means = np.empty(resamples)
    for start in range(0, resamples, _CHUNK):
        stop = min(start + _CHUNK, resamples)
        indices = rng.integers(0, array.size, size=(stop - start, array.size))
        means[start:stop] = array[indices].mean(axis=1)
    return means


def mean_interval(values: Sequence[float], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  confidence: float = CONFIDENCE) -> Tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (a system score's interval)."""
    confidence = check_confidence(confidence)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(resampled_means(values, resamples, seed), (tail, 100.0 - tail))
    return float(low), float(high)


def bootstrap_p_note(n_inputs: int) -> Optional[str]:
    """Why no paired-bootstrap p-value is given for ``n_inputs`` inputs (one line), or None when one is."""
    if n_inputs >= MIN_INPUTS_BOOTSTRAP_P:
        return None
    return (f"no paired-bootstrap p-value for {n_inputs} inputs: below {MIN_INPUTS_BOOTSTRAP_P} its few distinct "
            "resamples understate p, so use the approximate randomization p-value")


def bootstrap_p_value(scores_a: Sequence[float], scores_b: Sequence[float], resamples: int = DEFAULT_RESAMPLES,
                      seed: int = DEFAULT_SEED, tie_tolerance: float = TIE_TOLERANCE) -> float:
    """Paired bootstrap resampling p-value of "A and B differ" (sacrebleu's centred test, see the module).

    Raises:
        InputError: fewer than ``MIN_INPUTS_BOOTSTRAP_P`` inputs (the p-value would understate the chance of a
            difference this large; :func:`randomization_p_value` is valid there).
    """
    delta = _differences(scores_a, scores_b, tie_tolerance)
    note = bootstrap_p_note(delta.size)
    if note is not None:
        raise InputError(note)
    samples = resampled_means(delta, resamples, seed)
    return _p_value(np.abs(samples - samples.mean()), abs(float(delta.mean())))


def randomization_p_value(scores_a: Sequence[float], scores_b: Sequence[float], trials: int = DEFAULT_TRIALS,
                          seed: int = DEFAULT_SEED, tie_tolerance: float = TIE_TOLERANCE) -> float:
    """Approximate randomization p-value of "A and B differ": each trial swaps each input's two scores with
    probability 1/2 (sacrebleu's draw: ``integers(2, dtype=bool)`` from a generator seeded with ``seed``)."""
    delta = _differences(scores_a, scores_b, tie_tolerance)
    trials = check_trials(trials)
    _, seed = check_bootstrap_settings(DEFAULT_RESAMPLES, seed)
    rng = np.random.Generator(np.random.PCG64(seed))
    statistics = np.empty(trials)
    for start in range(0, trials, _CHUNK):
        stop = min(start + _CHUNK, trials)
        swapped = rng.integers(0, 2, size=(stop - start, delta.size), dtype=bool)
        statistics[start:stop] = np.abs(np.where(swapped, -delta, delta).mean(axis=1))
    return _p_value(statistics, abs(float(delta.mean())))


@dataclass(frozen=True)
class PairedTests:
    """Both p-values of one pair, with the settings that produced them; ``p_value_bootstrap`` is None below
    ``MIN_INPUTS_BOOTSTRAP_P`` inputs (``bootstrap_p_note`` says why)."""

    p_value_bootstrap: Optional[float]
    p_value_randomization: float
    resamples: int
    trials: int
    seed: int


def paired_tests(scores_a: Sequence[float], scores_b: Sequence[float], resamples: int = DEFAULT_RESAMPLES,
                 trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                 tie_tolerance: float = TIE_TOLERANCE) -> PairedTests:
    """The paired bootstrap and approximate randomization p-values of A against B (differences within
    ``tie_tolerance``, the tie rule of the scores' dtype, count as zero); no bootstrap p-value (None) below
    ``MIN_INPUTS_BOOTSTRAP_P`` inputs."""
    enough = bootstrap_p_note(len(check_paired_scores(scores_a, scores_b)[0])) is None
    return PairedTests(
        p_value_bootstrap=bootstrap_p_value(scores_a, scores_b, resamples, seed, tie_tolerance) if enough else None,
        p_value_randomization=randomization_p_value(scores_a, scores_b, trials, seed, tie_tolerance),
        resamples=resamples,
        trials=trials,
        seed=seed,
    )
