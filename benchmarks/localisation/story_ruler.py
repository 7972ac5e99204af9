"""Reading flags and evidence against the sentences people marked: the story record, the within-text AUC and top-1,
bootstrap intervals over texts, the evidence read from cached signals, and thresholds set as quantiles of it.

Both the CoheSentia ruler (``cohesentia``) and the clean texts on which thresholds are set (``clean_texts``) read
stories this way, and the ruler runs the clean texts: the primitives live here, below both, so that neither imports
the other from inside a function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from coherence_metric.toolkit import (
    DEFAULT_CALIBRATION,
    Calibration,
    SentenceFlag,
    break_ranks,
    flag_sentences,
    sentence_evidence,
)

#: Reason group -> CoheSentia's reason codes in it (the dataset authors' grouping; code 8, other, is in none).
GROUPS = {"cohesion": (1, 2, 3), "consistency": (4, 5), "relevance": (6, 7)}
#: The sentences marked for one reason group or more.
ANY = "any"
RESAMPLES = 1000
#: The holistic consensus score of a story people read as fully coherent.
FULLY_COHERENT = 5


@dataclass(frozen=True)
class CohesentiaStory:
    """One annotated story: its sentences, the sentences marked per reason group, and its holistic score."""

    id: int
    title: str
    sentences: List[str]
    marked: Dict[str, List[int]]
    holistic: int

    @property
    def half(self) -> str:
        """``choose`` (even id: thresholds are set there) or ``check`` (odd id)."""
        return "choose" if self.id % 2 == 0 else "check"


NONE = float("-inf")


def _column(values: Sequence[Optional[float]]) -> np.ndarray:
    return np.array([NONE if value is None else float(value) for value in values], dtype=np.float64)


def within_text_auc(values: Sequence[Optional[float]], marked: Sequence[int]) -> Optional[float]:
    """The share of (marked, unmarked) sentence pairs of one text that ``values`` orders marked first (ties count
    half; no evidence ranks lowest); None when the text has no marked or no unmarked sentence."""
    column = _column(values)
    inside = np.zeros(len(column), dtype=bool)
    inside[list(marked)] = True
    positive, negative = column[inside], column[~inside]
    if not len(positive) or not len(negative):
        return None
    greater = (positive[:, None] > negative[None, :]).sum()
    ties = (positive[:, None] == negative[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(positive) * len(negative)))


def top1_share(values: Sequence[Optional[float]], marked: Sequence[int]) -> Optional[float]:
    """The share of marked sentences among the top-ranked ones of one text (ties shared, so they cost nothing);
    None when nothing is marked."""
    if not marked:
        return None
    column = _column(values)
    top = np.flatnonzero(column == column.max())
    return float(np.isin(top, list(marked)).mean())


def bootstrap_interval(values: np.ndarray, seed: int) -> List[float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (one per text), ``RESAMPLES`` resamples."""
    draws = np.random.default_rng(seed).integers(0, len(values), size=(RESAMPLES, len(values)))
    low, high = np.percentile(values[draws].mean(axis=1), [2.5, 97.5])
    return [float(low), float(high)]


def ratio_interval(values: np.ndarray, chance: np.ndarray, seed: int) -> List[float]:
    """The 95% percentile bootstrap interval of mean ``values`` over mean ``chance``, texts resampled together."""
    draws = np.random.default_rng(seed).integers(0, len(values), size=(RESAMPLES, len(values)))
    low, high = np.percentile(values[draws].mean(axis=1) / chance[draws].mean(axis=1), [2.5, 97.5])
    return [float(low), float(high)]


def transition_cosine_values(logits: Sequence[float], cosines: Sequence[float]) -> List[float]:
    """``explain``'s transitions (``transition-cosine``) from the transition model's logits and the cosines."""
    from coherence_metric.toolkit import COSINE_DEV_MEAN, COSINE_IN_LOGITS

    return [logit + COSINE_IN_LOGITS * (cosine - COSINE_DEV_MEAN) for logit, cosine in zip(logits, cosines)]


def story_evidence(sentences: Sequence[Sequence[str]], signals: Dict[str, Any],
                   calibration: Optional[Calibration] = None) -> List[List[Dict[str, Any]]]:
    """Per story, per sentence, ``sentence_breaks``' evidence of each kind from the cached signals, ``cohesion`` read
    with ``calibration`` (None: the default checkpoint's)."""
    calibration = DEFAULT_CALIBRATION if calibration is None else calibration
    return [sentence_evidence(text, transition_cosine_values(logits, cosines), similarity, prefixes, calibration)
            for text, logits, cosines, similarity, prefixes in
            zip(sentences, signals["logits"], signals["cosines"], signals["similarity"], signals["prefixes"])]


def calibrate(evidence: Sequence[Sequence[Dict[str, Optional[float]]]], budgets: Dict[str, float]) -> Dict[str, Any]:
    """Per kind, the threshold that flags a ``budgets[kind]`` share of the given sentences (those of the choosing
    half's clean texts), and the kind's spread (the standard deviation of its evidence) over them."""
    thresholds: Dict[str, Optional[float]] = {}
    scales: Dict[str, Optional[float]] = {}
    for kind, budget in budgets.items():
        values = np.array([row[kind] for rows in evidence for row in rows if row[kind] is not None], dtype=np.float64)
        if not len(values):  # no clean text in the choosing half (a small file)
            thresholds[kind], scales[kind] = None, None
            continue
        thresholds[kind] = float(np.quantile(values, 1.0 - budget))
        scales[kind] = float(values.std()) or 1.0
    return {"thresholds": thresholds, "scales": scales, "budgets": dict(budgets)}


#: The ruler's name for explain's ranking of a story's sentences (``break_ranks``), the ranking the flag targets read.
FLAG_ORDER = "flag-order"


def flag_order_values(rows: Sequence[Dict[str, Optional[float]]], thresholds: Mapping[str, float],
                      scales: Mapping[str, float]) -> List[Optional[float]]:
    """Per sentence, minus its place in explain's order of the story's breaks (higher: read sooner; None: no place),
    its flags read with these thresholds and scales."""
    return order_values(rows, flag_sentences(rows, None, thresholds, scales))


def order_values(rows: Sequence[Dict[str, Optional[float]]], flags: Sequence[SentenceFlag]) -> List[Optional[float]]:
    """``flag_order_values`` for flags already read (every flag, no cap), so a caller that needs them too reads them
    once."""
    return [None if rank is None else -float(rank) for rank in break_ranks(rows, flags)]
