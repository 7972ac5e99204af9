"""The probe classifiers: logistic regression tuned on valid, and the paper's 2000-unit sigmoid MLP for DC.

Both follow the SentEval split protocol the paper uses: fit on train, choose the hyper-parameter on valid, report
test accuracy once. The logistic regression tunes its inverse regularisation strength C over
:data:`LOGREG_C_GRID`; the MLP (nearly unregularised upstream) tunes its number of epochs by early stopping on
valid with the upstream patience of 8 epochs. Features are standardised on the fitting data first, so one C grid
suits encoders of any scale and lbfgs converges.

Tasks without a train file (SP/wiki, SP/arxiv, DC/wiki) train on valid instead: a seeded stratified
:data:`INNER_TUNE_FRACTION` of valid is held out to choose the hyper-parameter, then the classifier is refit on
all of valid with it; the test split is never looked at before the final score. DC/wiki's valid rows come in
twins (a chunk and the same chunk with one sentence swapped in), so its inner split moves whole twin groups.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

import numpy as np

logger = logging.getLogger("coherence_metric.benchmarks")

LOGREG_C_GRID: Tuple[float, ...] = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0)
"""Inverse L2 strengths tried for logistic regression (on standardised features), smallest first. The low end is
deep because the paper's features are highly redundant (x1 and x1-xi blocks): on all-MiniLM-L6-v2, SP and BSO
picked C=1e-4 when that was the grid's edge. Strongly regularised fits converge in few iterations, so the extra
points are cheap."""

MLP_HIDDEN_UNITS = 2000
"""Hidden layer size for DC, from the paper (section 3.4 and Table 4)."""

MLP_MAX_EPOCHS = 40
MLP_PATIENCE = 8
"""Early stopping for DC: stop after this many epochs without a better valid accuracy (upstream 'tenacity')."""

SMALL_PROBLEM_VALUES = 2_000_000
"""Training matrices with fewer values than this are fitted on a single BLAS thread."""

INNER_TUNE_FRACTION = 0.2
"""Share of valid held out for tuning when a task has no train split."""

Split = Tuple[np.ndarray, np.ndarray]


@dataclass
class ClassifierResult:
    """Outcome of one probe.

    Attributes:
        test_accuracy: percent correct on test.
        valid_accuracy: percent correct on the tuning data at the chosen setting (valid, or the held-out part of
            valid when the task trains on valid).
        chosen: the selected hyper-parameter, ``{"C": 0.1}`` or ``{"epochs": 12}``.
        tuning_curve: valid accuracy per tried setting, keyed by its string form.
        n_fit: examples the final classifier was trained on.
        n_tune: examples used for tuning.
        trained_on_valid: True when the task had no train split.
        classifier: short description of the final classifier.
    """

    test_accuracy: float
    valid_accuracy: float
    chosen: Dict[str, float]
    tuning_curve: Dict[str, float] = field(default_factory=dict)
    n_fit: int = 0
    n_tune: int = 0
    trained_on_valid: bool = False
    classifier: str = ""


def train_and_test(kind: str, train: Optional[Split], valid: Split, test: Split, num_classes: int,
                   seed: int = 1111, valid_groups: Optional[np.ndarray] = None) -> ClassifierResult:
    """Fit, tune and score one probe.

    Args:
        kind: ``logreg`` or ``mlp``.
        train: ``(X, y)`` of the train split, or None when the task has none (then valid is split for tuning).
        valid: ``(X, y)`` of the valid split.
        test: ``(X, y)`` of the test split, scored once at the end.
        num_classes: size of the label set (labels are ``0..num_classes-1``).
        seed: seeds the inner split and the MLP.
        valid_groups: group id per valid row, used only when ``train`` is None: rows of one group (e.g. a DC
            chunk and its corrupted twin) stay on the same side of the inner split.

    Returns:
        The scores and the chosen setting.
    """
    if kind not in ("logreg", "mlp"):
        raise ValueError(f"unknown classifier kind {kind!r}")
    with _blas_threads_for((train if train is not None else valid)[0].size):
        return _train_and_test(kind, train, valid, test, num_classes, seed, valid_groups)


def _train_and_test(kind: str, train: Optional[Split], valid: Split, test: Split, num_classes: int, seed: int,
                    valid_groups: Optional[np.ndarray]) -> ClassifierResult:
    tune_fn = _tune_logreg if kind == "logreg" else _tune_mlp
    if train is not None:
        model, chosen, curve, best = tune_fn(train, valid, num_classes, seed)
        n_fit, n_tune, trained_on_valid = len(train[1]), len(valid[1]), False
    else:
        fit_part, tune_part = inner_split(valid, seed, valid_groups)
        _, chosen, curve, best = tune_fn(fit_part, tune_part, num_classes, seed)
        model = _refit(kind, chosen, valid, num_classes, seed)
        n_fit, n_tune, trained_on_valid = len(valid[1]), len(tune_part[1]), True
    test_accuracy = _accuracy(model, test)
    return ClassifierResult(test_accuracy=test_accuracy, valid_accuracy=best, chosen=chosen, tuning_curve=curve,
                            n_fit=n_fit, n_tune=n_tune, trained_on_valid=trained_on_valid,
                            classifier=describe_classifier(kind))


def _blas_threads_for(num_values: int) -> Any:
    """Run small problems on one BLAS thread: threads only add synchronisation there, and on a busy machine
    spinning threads made the 12 smoke-sized probes 2.7x slower (20.6 s vs 7.6 s). Large ones keep the default."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1) if num_values < SMALL_PROBLEM_VALUES else contextlib.nullcontext()


def describe_classifier(kind: str) -> str:
    """One-line description of the classifier used for ``kind``, for reports."""
    if kind == "mlp":
        return (f"MLP {MLP_HIDDEN_UNITS} sigmoid units, adam, early stopping on valid "
                f"(patience {MLP_PATIENCE}, max {MLP_MAX_EPOCHS} epochs)")
    return f"logistic regression, C tuned on valid over {list(LOGREG_C_GRID)}"


def inner_split(data: Split, seed: int, groups: Optional[np.ndarray] = None) -> Tuple[Split, Split]:
    """Split ``(X, y)`` into a fitting part and a held-out tuning part.

    Without groups the split is stratified when every class allows it; with groups, whole groups move, so
    near-duplicate rows never sit on both sides (which would make the tuning accuracy optimistic).

    Args:
        data: the valid split of a task without train data.
        seed: seed of the split.
        groups: optional group id per row.

    Returns:
        ``(fit_part, tune_part)`` with about :data:`INNER_TUNE_FRACTION` of the rows (or groups) in ``tune_part``.
    """
    from sklearn.model_selection import GroupShuffleSplit, train_test_split

    features, labels = data
    rows = np.arange(len(labels))
    distinct = len(np.unique(groups)) if groups is not None else 0
    if groups is not None and 2 <= distinct < len(groups):  # all-singleton groups: a stratified split is better
        splitter = GroupShuffleSplit(n_splits=1, test_size=INNER_TUNE_FRACTION, random_state=seed)
        fit_rows, tune_rows = next(splitter.split(rows, labels, groups))
    else:
        _, counts = np.unique(labels, return_counts=True)
        n_tune = max(1, int(round(INNER_TUNE_FRACTION * len(labels))))
        stratify = labels if counts.min() >= 2 and n_tune >= len(counts) else None
        fit_rows, tune_rows = train_test_split(rows, test_size=n_tune, random_state=seed, stratify=stratify)
    return (features[fit_rows], labels[fit_rows]), (features[tune_rows], labels[tune_rows])


def _accuracy(model: Any, data: Split) -> float:
    features, labels = data
    return float(100.0 * np.mean(model.predict(features) == labels))


class _Standardised:
    """A fitted scaler in front of a fitted classifier, so prediction applies the training statistics."""

    def __init__(self, scaler: Any, classifier: Any) -> None:
        self.scaler = scaler
        self.classifier = classifier

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.classifier.predict(self.scaler.transform(features))


def _scaler(features: np.ndarray) -> Any:
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit(features)


def _constant_model(labels: np.ndarray) -> Any:
    from sklearn.dummy import DummyClassifier

    return DummyClassifier(strategy="most_frequent").fit(np.zeros((len(labels), 1)), labels)


def _tune_logreg(fit: Split, tune: Split, num_classes: int,
                 seed: int) -> Tuple[Any, Dict[str, float], Dict[str, float], float]:
    from sklearn.linear_model import LogisticRegression

    scaler = _scaler(fit[0])
    fit_x, tune_x = scaler.transform(fit[0]), scaler.transform(tune[0])
    if len(np.unique(fit[1])) < 2:
        logger.warning("only one class in %d fitting examples: predicting it everywhere", len(fit[1]))
        model = _Standardised(scaler, _constant_model(fit[1]))
        return model, {"C": float("nan")}, {}, _accuracy(model, tune)
    # Ascending C with warm starts: each fit starts from the more regularised solution, which speeds lbfgs up.
    classifier = LogisticRegression(C=LOGREG_C_GRID[0], max_iter=1000, random_state=seed, warm_start=True)
    curve: Dict[str, float] = {}
    best: Tuple[float, float, Any] = (-1.0, LOGREG_C_GRID[0], None)
    for strength in LOGREG_C_GRID:
        classifier.set_params(C=strength)
        _fit_quietly(classifier, fit_x, fit[1])
        accuracy = float(100.0 * np.mean(classifier.predict(tune_x) == tune[1]))
        curve[f"C={strength:g}"] = accuracy
        if accuracy > best[0]:
            best = (accuracy, strength, copy.deepcopy(classifier))
    if best[1] in (LOGREG_C_GRID[0], LOGREG_C_GRID[-1]):
        logger.warning("best C=%g is at the edge of the grid %s; the optimum may lie beyond it", best[1],
                       list(LOGREG_C_GRID))
    return _Standardised(scaler, best[2]), {"C": best[1]}, curve, best[0]


def _fit_quietly(classifier: Any, features: np.ndarray, labels: np.ndarray) -> None:
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        classifier.fit(features, labels)
    if any(issubclass(w.category, ConvergenceWarning) for w in caught):
        logger.debug("%s did not fully converge (%s)", type(classifier).__name__, classifier.get_params().get("C"))


def _new_mlp(seed: int, num_examples: int) -> Any:
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier(hidden_layer_sizes=(MLP_HIDDEN_UNITS,), activation="logistic", solver="adam",
                         alpha=1e-4, batch_size=max(1, min(64, num_examples)), learning_rate_init=1e-3,
                         random_state=seed)


def _tune_mlp(fit: Split, tune: Split, num_classes: int,
              seed: int) -> Tuple[Any, Dict[str, float], Dict[str, float], float]:
    scaler = _scaler(fit[0])
    fit_x, tune_x = scaler.transform(fit[0]), scaler.transform(tune[0])
    classes = np.arange(num_classes)
    classifier = _new_mlp(seed, len(fit[1]))
    curve: Dict[str, float] = {}
    best: Tuple[float, int, Any] = (-1.0, 0, None)
    for epoch in range(1, MLP_MAX_EPOCHS + 1):
        classifier.partial_fit(fit_x, fit[1], classes=classes)
        accuracy = float(100.0 * np.mean(classifier.predict(tune_x) == tune[1]))
        curve[f"epochs={epoch}"] = accuracy
        if accuracy > best[0]:
            best = (accuracy, epoch, copy.deepcopy(classifier))
        elif epoch - best[1] >= MLP_PATIENCE:
            break
    return _Standardised(scaler, best[2]), {"epochs": float(best[1])}, curve, best[0]


def _refit(kind: str, chosen: Dict[str, float], data: Split, num_classes: int, seed: int) -> Any:
    """Refit on all of ``data`` with the setting chosen on the inner split."""
    scaler = _scaler(data[0])
    features = scaler.transform(data[0])
    if len(np.unique(data[1])) < 2 or not all(np.isfinite(value) for value in chosen.values()):
        return _Standardised(scaler, _constant_model(data[1]))
    if kind == "logreg":
        from sklearn.linear_model import LogisticRegression

        classifier = LogisticRegression(C=chosen["C"], max_iter=1000, random_state=seed)
        _fit_quietly(classifier, features, data[1])
        return _Standardised(scaler, classifier)
    classifier = _new_mlp(seed, len(data[1]))
    for _ in range(int(chosen["epochs"])):
        classifier.partial_fit(features, data[1], classes=np.arange(num_classes))
    return _Standardised(scaler, classifier)
