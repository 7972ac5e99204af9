"""Pairwise accuracy and LMVLM agreement: ties reported, never shifting labels; alpha matches the reference values."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest

from coherence_metric.benchmarks.paper.metrics import (
    accuracy_interval,
    annotation_matrix,
    lmvlm_agreement,
    model_labels,
    nominal_alpha,
    pairwise_accuracy,
)
from coherence_metric.errors import InputError


def test_pairwise_accuracy_counts_ties_apart():
    result = pairwise_accuracy([3.0, 2.0, 1.0, 5.0], [1.0, 2.0, 4.0, 5.0])
    assert (result.n, result.n_correct, result.n_ties) == (4, 1, 2)
    assert result.accuracy == pytest.approx(0.25)
    assert result.accuracy_excluding_ties == pytest.approx(0.5)
    assert result.to_dict()["n_ties"] == 2


def test_pairwise_accuracy_all_ties_has_no_tie_free_accuracy():
    result = pairwise_accuracy([1.0, 1.0], [1.0, 1.0])
    assert result.accuracy == 0.0 and result.accuracy_excluding_ties is None


@pytest.mark.parametrize(
    "pos, neg",
    [([1.0, 2.0], [1.0]), ([], []), ([float("nan")], [0.0]), ([[1.0]], [[0.0]]), (["a"], [0.0])],
    ids=["lengths", "empty", "nan", "nested", "text"],
)
def test_pairwise_accuracy_refuses_bad_scores(pos, neg):
    with pytest.raises(InputError):
        pairwise_accuracy(pos, neg)


def test_model_labels_keep_a_tie_in_place():
    labels = model_labels([2.0, 1.0, 1.0, 0.0], [1.0, 1.0, 2.0, 3.0])
    assert labels[0] == 0.0 and math.isnan(labels[1]) and labels[2] == 1.0 and labels[3] == 1.0


def test_lmvlm_tie_is_missing_and_does_not_shift_later_labels():
    annotations = [["0", "1", "0", "1", "1", "0"]] * 2 + [["0", "1", "1", "1", "0", "0"]]
    majority = np.array([0, 1, 0, 1, 1, 0], dtype=float)
    pos = np.where(majority == 0, 1.0, 0.0)
    neg = np.where(majority == 0, 0.0, 1.0)
    pos[2] = neg[2] = 0.5  # a tie in the middle
    result = lmvlm_agreement(pos, neg, annotations)
    assert result.n == 6 and result.n_model_ties == 1
    assert result.majority_agreement == pytest.approx(5 / 6)
    assert result.majority_agreement_excluding_ties == 1.0  # a dropped tie would misalign items 3..5
    expected_model_row = majority.copy()
    expected_model_row[2] = np.nan
    reference = np.vstack([annotation_matrix(annotations), expected_model_row])
    assert result.alpha == pytest.approx(krippendorff.alpha(reliability_data=reference, level_of_measurement="nominal"))


def test_lmvlm_refuses_misaligned_annotations():
    with pytest.raises(InputError, match="row 1"):
        lmvlm_agreement([1.0, 0.0], [0.0, 1.0], [["0", "1"], ["0"], ["1", "1"]])
    with pytest.raises(InputError, match="'2'"):
        lmvlm_agreement([1.0, 0.0], [0.0, 1.0], [["0", "1"], ["0", "2"], ["1", "1"]])
    with pytest.raises(InputError, match="3 annotator rows"):
        lmvlm_agreement([1.0, 0.0], [0.0, 1.0], [["0", "1"], ["0", "1"]])


def test_lmvlm_alpha_reference_values(load_cached):
    """Reference values from reference-implementation.md section 5 (4 decimals)."""
    annotations = load_cached("LMVLM").annotations
    rows = annotation_matrix(annotations)
    majority = (rows.sum(axis=0) >= 2).astype(float)
    assert round(nominal_alpha(rows), 4) == 0.8376

    perfect = lmvlm_agreement(1.0 - majority, majority, annotations)  # pos wins exactly where the majority says '0'
    assert round(perfect.alpha, 4) == 0.8782
    assert round(perfect.alpha_annotators_only, 4) == 0.8376
    assert perfect.majority_agreement == 1.0 and perfect.n_model_ties == 0
    assert perfect.alpha_annotators_1_2 == pytest.approx(nominal_alpha(np.vstack([rows[1:], majority])))

    always_a = lmvlm_agreement(np.ones(len(majority)), np.zeros(len(majority)), annotations)
    assert round(always_a.alpha, 4) == 0.3958
    assert always_a.majority_agreement == pytest.approx(555 / 1046)


def test_accuracy_interval_resamples_whole_groups():
    """Two documents, each with 50 permutation pairs: one always right, one always wrong. Resampling the two
    groups gives accuracy 0, 0.5 or 1 (1/4, 1/2, 1/4), so the 95% interval is [0, 1]; resampling the 100 pairs as if
    independent would give a narrow interval around 0.5, which is the error the grouping prevents."""
    pos = [1.0] * 50 + [0.0] * 50
    neg = [0.0] * 50 + [1.0] * 50
    grouped = accuracy_interval(pos, neg, ["a"] * 50 + ["b"] * 50)
    independent = accuracy_interval(pos, neg, list(range(100)))
    assert grouped == (0.0, 1.0)
    assert independent is not None and 0.35 < independent[0] < 0.5 < independent[1] < 0.65


def test_accuracy_interval_is_seeded_brackets_the_point_and_counts_ties_wrong():
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(size=300) + 0.3, rng.normal(size=300)
    pos[:10] = neg[:10]  # ties: wrong, as in pairwise_accuracy
    groups = [index // 3 for index in range(300)]
    low, high = accuracy_interval(pos, neg, groups)
    assert accuracy_interval(pos, neg, groups) == (low, high)
    assert low < pairwise_accuracy(pos, neg).accuracy < high
    assert accuracy_interval([1.0, 1.0], [0.0, 0.0], ["same", "same"]) is None  # one group: no interval
    with pytest.raises(InputError, match="3 group keys for 2 pairs"):
        accuracy_interval([1.0, 1.0], [0.0, 0.0], [1, 2, 3])
