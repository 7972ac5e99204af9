"""Paired significance tests on hand-built score lists: known p-values, ties, determinism by seed."""

from __future__ import annotations

import numpy as np
import pytest

from coherence_metric import InputError
from coherence_metric.statistics.bootstrap import paired_bootstrap
from coherence_metric.statistics.significance import (
    bootstrap_p_value,
    mean_interval,
    paired_tests,
    randomization_p_value,
)

SCORES = [0.3, -1.2, 2.5, 0.0, 1.1, -0.4, 0.9, 1.7, -2.2, 0.6]


def test_identical_systems_have_p_one_in_both_tests():
    tests = paired_tests(SCORES, list(SCORES))
    assert tests.p_value_bootstrap == 1.0 and tests.p_value_randomization == 1.0


def test_differences_within_the_tie_tolerance_are_no_difference():
    noisy = [value + (5e-7 if index % 2 else -5e-7) for index, value in enumerate(SCORES)]
    tests = paired_tests(SCORES, noisy)
    assert tests.p_value_bootstrap == 1.0 and tests.p_value_randomization == 1.0


def test_a_system_better_on_every_input_is_significant():
    better = [value + 0.5 + 0.1 * index for index, value in enumerate(SCORES)]
    tests = paired_tests(better, SCORES, resamples=1000, trials=10_000)
    # every bootstrap resample keeps the sign: only the +1 is left
    assert tests.p_value_bootstrap == pytest.approx(1 / 1001)
    # a shuffle reaches the observed difference only with all 10 signs kept or all flipped: 2 / 2**10
    assert tests.p_value_randomization < 0.005


def test_randomization_known_values():
    # one input: nothing to shuffle or resample, so no p-value at all (a bootstrap of one input would say p = 0.001)
    with pytest.raises(InputError, match="at least 2 inputs, got 1"):
        randomization_p_value([1.0], [0.0], trials=1000)
    # two equal differences: half the shuffles keep the difference, half cancel it
    assert randomization_p_value([1.0, 1.0], [0.0, 0.0], trials=10_000) == pytest.approx(0.5, abs=0.02)


def test_both_tests_agree_when_the_difference_is_noise():
    """The bootstrap centres the signed differences; sacrebleu's size-then-centre gave 0.29 here against 0.81."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=2000)
    b = a + rng.normal(size=2000) * 0.1 + 0.001
    tests = paired_tests(a, b)
    assert tests.p_value_randomization > 0.5
    assert tests.p_value_bootstrap == pytest.approx(tests.p_value_randomization, abs=0.05)


def test_p_values_are_symmetric_deterministic_and_seeded():
    other = [value + delta for value, delta in zip(SCORES, [0.4, -0.3, 0.2, 0.1, -0.5, 0.3, 0.0, 0.2, -0.1, 0.3])]
    assert paired_tests(SCORES, other, seed=3) == paired_tests(SCORES, other, seed=3)
    assert bootstrap_p_value(SCORES, other, seed=3) == bootstrap_p_value(other, SCORES, seed=3)
    assert randomization_p_value(SCORES, other, seed=3) == randomization_p_value(other, SCORES, seed=3)
    assert randomization_p_value(SCORES, other, seed=3) != randomization_p_value(SCORES, other, seed=4)


def test_the_mean_interval_uses_the_paired_bootstraps_resamples():
    other = [value - 0.2 * index for index, value in enumerate(SCORES)]
    difference = [a - b for a, b in zip(SCORES, other)]
    expected = paired_bootstrap(SCORES, other, resamples=300, seed=9).mean_difference_interval
    assert mean_interval(difference, resamples=300, seed=9) == pytest.approx(expected, abs=1e-12)
    low, high = mean_interval(SCORES, resamples=300, seed=9)
    assert low <= float(np.mean(SCORES)) <= high


@pytest.mark.parametrize("trials", [0, -3, 10**7, 2.5, True])
def test_bad_trial_counts_are_named(trials):
    with pytest.raises(InputError, match="randomization_trials must be a positive integer of at most 1000000"):
        randomization_p_value(SCORES, SCORES, trials=trials)
