"""Metrics over paired scores: pairwise accuracy with ties reported, and LMVLM agreement as Krippendorff's alpha.

Fixes two upstream evaluation bugs: ties are counted and reported instead of silently scored wrong (or, in
LMVLM, dropped so that every later label shifts), and labels stay aligned with items by index.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Hashable, Optional, Sequence, Union

import numpy as np

from coherence_metric.errors import InputError

from ..harness.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES, bootstrap_draws

Label = Union[str, int]
#: Model label for "pos (text A) is more coherent", as in the LMVLM annotations; "1" means neg (text B).
POS_LABEL = 0.0
NEG_LABEL = 1.0


@dataclass(frozen=True)
class PairwiseAccuracy:
    """Share of pairs where ``pos`` scored strictly higher than ``neg``, with ties counted apart.

    Attributes:
        n: number of pairs.
        n_correct: pairs with ``pos > neg``.
        n_ties: pairs with ``pos == neg`` (wrong under ``accuracy``, left out of ``accuracy_excluding_ties``).
        accuracy: ``n_correct / n``, the paper's metric (ties count as wrong).
        accuracy_excluding_ties: ``n_correct / (n - n_ties)``; None when every pair is a tie.
    """

    n: int
    n_correct: int
    n_ties: int
    accuracy: float
    accuracy_excluding_ties: Optional[float]

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class LmvlmAgreement:
    """Agreement of a model with the 3 LMVLM annotators, the model counted as a 4th coder.

    Attributes:
        n: number of items.
        n_model_ties: items the model scored equal; they are a missing value for the model coder
            (alpha) and a disagreement in ``majority_agreement``.
        alpha: nominal Krippendorff's alpha over annotator rows 0, 1, 2 and the model (the paper's number).
        alpha_annotators_1_2: the same over rows 1, 2 and the model (rows 0 and 1 are identical upstream).
        alpha_annotators_only: the annotators' own alpha over rows 0, 1, 2, for reference.
        majority_agreement: share of items where the model label equals the annotators' majority label.
        majority_agreement_excluding_ties: the same over the items the model did not tie; None if all tied.
    """

    n: int
    n_model_ties: int
    alpha: float
    alpha_annotators_1_2: float
    alpha_annotators_only: float
    majority_agreement: float
    majority_agreement_excluding_ties: Optional[float]

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a JSON-ready dict."""
        return asdict(self)


def _paired_scores(pos_scores: Sequence[float], neg_scores: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Return both score lists as float arrays, refusing empty, mismatched or non-finite input."""
    try:
        pos = np.asarray(pos_scores, dtype=np.float64)
        neg = np.asarray(neg_scores, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f"scores must be sequences of numbers: {error}") from error
    if pos.ndim != 1 or neg.ndim != 1:
        raise InputError("pos_scores and neg_scores must be flat sequences, one score per pair")
    if len(pos) != len(neg):
        raise InputError(f"pos_scores has {len(pos)} scores but neg_scores has {len(neg)}: one of each per pair")
    if len(pos) == 0:
        raise InputError("no scores given: a metric needs at least one pair")
    if not (np.isfinite(pos).all() and np.isfinite(neg).all()):
        raise InputError("scores contain NaN or infinity, which cannot be ranked; check the scorer's output")
    return pos, neg


def pairwise_accuracy(pos_scores: Sequence[float], neg_scores: Sequence[float]) -> PairwiseAccuracy:
    """Score pairs by whether ``pos`` beats ``neg`` strictly, reporting ties separately rather than hiding them.

    Args:
        pos_scores: one score per pair for the document expected to be more coherent.
        neg_scores: one score per pair for the other document, in the same order.

    Returns:
        A PairwiseAccuracy with counts, accuracy (ties wrong) and accuracy excluding ties.
    """
    pos, neg = _paired_scores(pos_scores, neg_scores)
    n_correct = int(np.sum(pos > neg))
    n_ties = int(np.sum(pos == neg))
    decided = len(pos) - n_ties
    return PairwiseAccuracy(
        n=len(pos),
        n_correct=n_correct,
        n_ties=n_ties,
        accuracy=n_correct / len(pos),
        accuracy_excluding_ties=n_correct / decided if decided else None,
    )


def accuracy_interval(
    pos_scores: Sequence[float],
    neg_scores: Sequence[float],
    groups: Sequence[Hashable],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = 0.95,
) -> Optional[tuple[float, float]]:
    """A percentile bootstrap interval for ``pairwise_accuracy`` (ties wrong), resampling *groups* of pairs.

    Pairs that share a document (the 20 permutations of one article, the pairs of one summary) are not
    independent, so whole groups are drawn with replacement, not single pairs: an interval over pairs would be too
    narrow. The same groups and seed give the same draws for every system, so two systems' intervals on one test
    set come from the same resamples. None with fewer than two groups or no resamples.

    Args:
        pos_scores, neg_scores: the pairs' scores, as for :func:`pairwise_accuracy`.
        groups: one key per pair; pairs with equal keys are resampled together.
        resamples: bootstrap resamples of the groups.
        seed: seeds the draws.
        confidence: the interval's coverage.
    """
    pos, neg = _paired_scores(pos_scores, neg_scores)
    if len(groups) != len(pos):
        raise InputError(f"{len(groups)} group keys for {len(pos)} pairs")
    index: dict[Hashable, int] = {}
    group_of = np.array([index.setdefault(key, len(index)) for key in groups], dtype=np.int64)
    if resamples <= 0 or len(index) < 2:
        return None
    correct = np.bincount(group_of, weights=(pos > neg).astype(np.float64), minlength=len(index))
    sizes = np.bincount(group_of, minlength=len(index)).astype(np.float64)
    draws = bootstrap_draws(len(index), resamples, seed)
    accuracies = correct[draws].sum(axis=1) / sizes[draws].sum(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(accuracies, [tail, 100.0 - tail])
    return float(low), float(high)


def model_labels(pos_scores: Sequence[float], neg_scores: Sequence[float]) -> np.ndarray:
    """Turn paired scores into LMVLM labels: 0.0 if pos > neg, 1.0 if neg > pos, NaN (missing) for a tie.

    A tie stays in its place as a missing value, so it never shifts the labels of later items.
    """
    pos, neg = _paired_scores(pos_scores, neg_scores)
    labels = np.where(pos > neg, POS_LABEL, NEG_LABEL)
    labels[pos == neg] = np.nan
    return labels


def annotation_matrix(annotations: Sequence[Sequence[Label]], n_items: Optional[int] = None) -> np.ndarray:
    """Return annotator rows as a float coders x items array of 0.0/1.0, checking labels and lengths.

    Args:
        annotations: one row per annotator, labels ``'0'``/``'1'`` (or 0/1).
        n_items: the number of items each row must have; None takes it from the first row.

    Returns:
        A float array of shape (annotators, items).
    """
    if isinstance(annotations, (str, bytes)) or len(annotations) == 0:
        raise InputError("annotations must be a list of annotator rows")
    expected = len(annotations[0]) if n_items is None else n_items
    matrix = np.empty((len(annotations), expected), dtype=np.float64)
    for number, row in enumerate(annotations):
        if isinstance(row, (str, bytes)) or len(row) != expected:
            raise InputError(f"annotator row {number} must hold {expected} labels, one per item")
        for item, label in enumerate(row):
            text = str(label)
            if text not in ("0", "1"):
                raise InputError(f"annotator row {number} item {item} has label {label!r}, expected '0' or '1'")
            matrix[number, item] = float(text)
    return matrix


def nominal_alpha(reliability_data: np.ndarray) -> float:
    """Return nominal Krippendorff's alpha of a coders x items array (NaN = missing), via the krippendorff package."""
    import krippendorff

    try:
        return float(krippendorff.alpha(reliability_data=reliability_data, level_of_measurement="nominal"))
    except ValueError as error:
        raise InputError(f"Krippendorff's alpha is undefined for these labels: {error}") from error


def lmvlm_agreement(
    pos_scores: Sequence[float], neg_scores: Sequence[float], annotations: Sequence[Sequence[Label]]
) -> LmvlmAgreement:
    """Measure how well a model's LMVLM preferences agree with the 3 annotators, the model as a 4th coder.

    Args:
        pos_scores: the model's score of text A (``pos``) per item, in file order.
        neg_scores: the model's score of text B (``neg``) per item, in the same order.
        annotations: the 3 annotator rows aligned with the items (``'0'`` = text A more coherent).

    Returns:
        An LmvlmAgreement with alpha over all rows + model, over rows 1-2 + model, the annotators' own alpha,
        agreement with the majority label, and the number of model ties.
    """
    labels = model_labels(pos_scores, neg_scores)
    annotators = annotation_matrix(annotations, len(labels))
    if len(annotators) != 3:
        raise InputError(f"LMVLM agreement needs the 3 annotator rows, got {len(annotators)}")
    majority = (annotators.sum(axis=0) >= 2).astype(np.float64)
    tied = np.isnan(labels)
    matches = int(np.sum(labels[~tied] == majority[~tied]))
    decided = int(np.sum(~tied))
    return LmvlmAgreement(
        n=len(labels),
        n_model_ties=int(tied.sum()),
        alpha=nominal_alpha(np.vstack([annotators, labels])),
        alpha_annotators_1_2=nominal_alpha(np.vstack([annotators[1:], labels])),
        alpha_annotators_only=nominal_alpha(annotators),
        majority_agreement=matches / len(labels),
        majority_agreement_excluding_ties=matches / decided if decided else None,
    )
