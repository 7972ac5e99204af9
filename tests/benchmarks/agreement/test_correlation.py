"""Correlations with human ratings: hand-computed values, the article-skipping rule, the levels and intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coherence_metric.benchmarks.agreement.correlation import (
    correlate,
    kendall_rows,
    level_correlation,
    rating_arrays,
    spearman_rows,
)
from coherence_metric.errors import InputError

# human [1, 2, 2, 3] (one tie) against metric [1, 3, 2, 4]: ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4).
# Spearman = Pearson of the ranks = 4.5 / sqrt(4.5 * 5) = 3 / sqrt(10).
# Kendall tau-b: 5 concordant pairs, 0 discordant, 1 pair tied in human only: 5 / sqrt((6 - 1) * 6).
HUMAN = [1.0, 2.0, 2.0, 3.0]
METRIC = [1.0, 3.0, 2.0, 4.0]
RHO = 3 / math.sqrt(10)
TAU = 5 / math.sqrt(30)


def _one(function, human, metric) -> float:
    return float(function(np.array([human], dtype=float), np.array([metric], dtype=float))[0])


def test_spearman_and_kendall_equal_hand_computed_values_with_ties():
    assert _one(spearman_rows, HUMAN, METRIC) == pytest.approx(RHO, abs=1e-12)
    assert _one(kendall_rows, HUMAN, METRIC) == pytest.approx(TAU, abs=1e-12)


def test_correlations_are_undefined_for_a_constant_side_or_a_single_item():
    for human, metric in (([2, 2, 2], [1, 2, 3]), ([1, 2, 3], [5, 5, 5]), ([1], [1])):
        assert math.isnan(_one(spearman_rows, human, metric))
        assert math.isnan(_one(kendall_rows, human, metric))


def test_row_wise_correlations_agree_with_scipy_on_random_tied_data():
    from scipy.stats import kendalltau, spearmanr

    rng = np.random.default_rng(7)
    human = rng.integers(1, 4, size=(200, 9)).astype(float)
    metric = rng.integers(1, 6, size=(200, 9)).astype(float)
    ours_rho, ours_tau = spearman_rows(human, metric), kendall_rows(human, metric)
    for row in range(200):
        if len(set(human[row])) > 1 and len(set(metric[row])) > 1:
            assert ours_rho[row] == pytest.approx(spearmanr(human[row], metric[row])[0], abs=1e-12)
            assert ours_tau[row] == pytest.approx(kendalltau(human[row], metric[row])[0], abs=1e-12)


def test_missing_entries_are_left_out_of_a_row():
    with_gap = _one(spearman_rows, [*HUMAN, math.nan], [*METRIC, 9.0])
    assert with_gap == pytest.approx(RHO, abs=1e-12)


def _table() -> dict:
    return {
        "a": dict(zip("wxyz", zip(HUMAN, METRIC))),
        "constant-human": dict(zip("wxyz", zip([3.0] * 4, [1.0, 2.0, 3.0, 4.0]))),
        "constant-metric": dict(zip("wxyz", zip([1.0, 2.0, 3.0, 4.0], [0.5] * 4))),
        "reversed": dict(zip("wxyz", zip([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]))),
    }


def test_summary_level_skips_articles_where_either_side_is_constant_and_averages_the_rest():
    arrays = rating_arrays(_table())
    rho = level_correlation(arrays, "summary", "spearman")
    tau = level_correlation(arrays, "summary", "kendall")
    assert (rho.n_units, rho.n_skipped) == (2, 2)
    assert rho.value == pytest.approx((RHO - 1.0) / 2)
    assert tau.value == pytest.approx((TAU - 1.0) / 2)


def test_system_dataset_and_intra_system_levels_by_hand():
    table = {
        "a1": {"s1": (1.0, 0.1), "s2": (2.0, 0.3), "s3": (3.0, 0.2)},
        "a2": {"s1": (2.0, 0.2), "s2": (4.0, 0.6), "s3": (5.0, 0.5)},
    }
    arrays = rating_arrays(table)
    # System means: human (1.5, 3, 4), metric (0.15, 0.45, 0.35): ranks (1, 2, 3) and (1, 3, 2).
    assert level_correlation(arrays, "system", "spearman").value == pytest.approx(0.5)
    assert level_correlation(arrays, "system", "kendall").value == pytest.approx(1 / 3)
    # Dataset: six texts pooled: human ranks (1, 2.5, 4, 2.5, 5, 6), metric ranks (1, 3, 2.5, 2.5, 5, 6).
    assert level_correlation(arrays, "dataset", "spearman").value == pytest.approx(
        _one(spearman_rows, [1, 2, 3, 2, 4, 5], [0.1, 0.3, 0.2, 0.2, 0.6, 0.5]))
    # Intra-system: each system over its 2 articles moves the same way on both sides: +1 each.
    intra = level_correlation(arrays, "intra_system", "kendall")
    assert (intra.value, intra.n_units) == (pytest.approx(1.0), 3)


def test_bootstrap_intervals_are_seeded_and_contain_the_point_estimate():
    rng = np.random.default_rng(3)
    table = {f"article{a}": {f"s{s}": (float(rng.integers(1, 6)), float(rng.normal())) for s in range(8)}
             for a in range(30)}
    first = correlate(table, resamples=200, seed=1)
    again = correlate(table, resamples=200, seed=1)
    other = correlate(table, resamples=200, seed=2)
    for level, kinds in first.items():
        for kind, cell in kinds.items():
            low, high = cell.interval
            assert low <= cell.value <= high, (level, kind)
            assert again[level][kind].interval == cell.interval
    assert other["summary"]["spearman"].interval != first["summary"]["spearman"].interval
    assert correlate(table, resamples=0)["summary"]["spearman"].interval is None


def test_a_non_finite_rating_or_score_is_refused_by_name():
    with pytest.raises(InputError, match="group a system s"):
        rating_arrays({"a": {"s": (1.0, math.nan)}})
    with pytest.raises(InputError, match="no rated texts"):
        rating_arrays({})
