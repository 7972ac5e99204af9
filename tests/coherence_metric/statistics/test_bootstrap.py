"""Paired bootstrap: known degenerate values, determinism by seed, intervals that bracket the estimate."""

from __future__ import annotations

import numpy as np
import pytest

from coherence_metric.statistics.bootstrap import paired_bootstrap


def test_a_system_that_always_wins_has_a_win_rate_interval_of_one():
    result = paired_bootstrap([2.0, 3.0, 4.0], [1.0, 1.0, 1.0], resamples=100, seed=1)
    assert result.win_rate_interval == (1.0, 1.0)
    assert result.mean_difference_interval[0] >= 1.0 and result.mean_difference_interval[1] <= 3.0


def test_ties_are_not_wins():
    result = paired_bootstrap([1.0, 1.0], [1.0, 1.0], resamples=50, seed=1)
    assert result.win_rate_interval == (0.0, 0.0)
    assert result.mean_difference_interval == (0.0, 0.0)


def test_same_seed_same_interval_other_seed_other_interval():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=200), rng.normal(size=200)
    first = paired_bootstrap(a, b, resamples=300, seed=5)
    assert first == paired_bootstrap(a, b, resamples=300, seed=5)
    assert first.win_rate_interval != paired_bootstrap(a, b, resamples=300, seed=6).win_rate_interval
    low, high = first.win_rate_interval
    assert low <= float(np.mean(a > b)) <= high


def test_interval_matches_the_normal_approximation_on_a_large_sample():
    rng = np.random.default_rng(1)
    differences = rng.normal(loc=0.3, scale=1.0, size=2000)
    result = paired_bootstrap(differences, np.zeros(2000), resamples=1000, seed=2)
    low, high = result.mean_difference_interval
    standard_error = differences.std(ddof=1) / np.sqrt(2000)
    assert high - low == pytest.approx(2 * 1.96 * standard_error, rel=0.1)


def test_mismatched_lengths_are_rejected():
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0, 2.0])


def test_differences_within_the_tie_tolerance_are_ties_not_wins():
    from coherence_metric.results import TIE_TOLERANCE

    assert TIE_TOLERANCE == 1e-5
    noise = paired_bootstrap([1.0, 2.0, 3.0], [1.0 + 5e-7, 2.0 - 5e-7, 3.0 - 9e-6], resamples=50, seed=1)
    assert noise.win_rate_interval == (0.0, 0.0)
    real = paired_bootstrap([1.0, 2.0], [1.0 - 2e-5, 2.0 - 2e-5], resamples=50, seed=1)
    assert real.win_rate_interval == (1.0, 1.0)


@pytest.mark.parametrize("kwargs", [{"seed": -1}, {"resamples": 10_000_000_000}, {"resamples": 0}])
def test_bad_seeds_and_resample_counts_are_refused_before_any_allocation(kwargs):
    with pytest.raises(ValueError):
        paired_bootstrap([1.0, 2.0], [2.0, 1.0], **kwargs)
