"""Classifiers: tuning on valid, the train-on-valid path for tasks without train data, the DC MLP."""

from __future__ import annotations

import numpy as np

from coherence_metric.benchmarks.discoeval import train_and_test
from coherence_metric.benchmarks.discoeval.classifiers import (
    INNER_TUNE_FRACTION,
    LOGREG_C_GRID,
    MLP_HIDDEN_UNITS,
    inner_split,
)


def _blobs(n: int, seed: int, classes: int = 3, dim: int = 10) -> tuple:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    centres = np.random.default_rng(99).normal(size=(classes, dim)) * 2.0
    return (centres[labels] + rng.normal(size=(n, dim))).astype(np.float32), labels


def test_logreg_tunes_c_on_valid() -> None:
    result = train_and_test("logreg", _blobs(300, 1), _blobs(100, 2), _blobs(100, 3), num_classes=3, seed=0)
    assert not result.trained_on_valid
    assert result.chosen["C"] in LOGREG_C_GRID
    assert set(result.tuning_curve) == {f"C={c:g}" for c in LOGREG_C_GRID}
    assert result.test_accuracy > 80.0
    assert (result.n_fit, result.n_tune) == (300, 100)


def test_missing_train_trains_on_valid_and_leaves_test_untouched() -> None:
    valid, test = _blobs(200, 2), _blobs(100, 3)
    result = train_and_test("logreg", None, valid, test, num_classes=3, seed=5)
    assert result.trained_on_valid
    assert result.n_fit == 200
    assert result.n_tune == round(INNER_TUNE_FRACTION * 200)
    # Test labels must not influence anything but the final score: scramble them and compare.
    scrambled = (test[0], np.random.default_rng(0).permutation(test[1]))
    again = train_and_test("logreg", None, valid, scrambled, num_classes=3, seed=5)
    assert again.chosen == result.chosen and again.valid_accuracy == result.valid_accuracy
    assert again.test_accuracy < result.test_accuracy


def test_inner_split_is_seeded_and_stratified() -> None:
    data = _blobs(100, 4, classes=2)
    (fit_a, _), (tune_a, tune_labels) = inner_split(data, seed=3)
    (fit_b, _), _ = inner_split(data, seed=3)
    np.testing.assert_array_equal(fit_a, fit_b)
    assert len(tune_a) == 20 and abs(int(tune_labels.sum()) - 10) <= 1


def test_inner_split_keeps_groups_together() -> None:
    features, labels = _blobs(60, 5, classes=2)
    groups = np.repeat(np.arange(30), 2)
    (fit_x, _), (tune_x, _) = inner_split((features, labels), seed=1, groups=groups)
    fit_groups = {groups[np.flatnonzero((features == row).all(axis=1))[0]] for row in fit_x}
    tune_groups = {groups[np.flatnonzero((features == row).all(axis=1))[0]] for row in tune_x}
    assert not fit_groups & tune_groups and len(tune_x) == 12


def test_dc_mlp_has_2000_sigmoid_units_and_early_stops() -> None:
    result = train_and_test("mlp", _blobs(120, 1, classes=2), _blobs(40, 2, classes=2), _blobs(40, 3, classes=2),
                            num_classes=2, seed=0)
    assert str(MLP_HIDDEN_UNITS) in result.classifier and "sigmoid" in result.classifier
    assert result.chosen["epochs"] >= 1 and result.test_accuracy > 80.0


def test_single_class_training_data_predicts_that_class() -> None:
    features = np.zeros((10, 3), dtype=np.float32)
    labels = np.zeros(10, dtype=np.int64)
    result = train_and_test("logreg", (features, labels), (features, labels), (features, labels), num_classes=2)
    assert result.test_accuracy == 100.0
