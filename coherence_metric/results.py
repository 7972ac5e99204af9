"""Result objects returned by the scorer; each carries its signature and renders to dict/JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .errors import InputError
from .signature import Signature
from .statistics.bootstrap import (
    CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_bootstrap_settings,
    check_confidence,
)
from .statistics.significance import bootstrap_p_note, mean_interval
from .statistics.ties import TIE_TOLERANCE, tie_tolerance, winner

__all__ = ["TIE_TOLERANCE", "CompareResult", "ScoreResult", "check_finite"]


def check_finite(scores: Sequence[float], what: str) -> None:
    """Refuse NaN and infinite scores: a mean, a winner or a p-value computed from them is a wrong number
    (NaN compares as neither higher nor lower, so it read as a tie, and JSON gained a bare ``NaN``).

    Raises:
        InputError: naming ``what`` and the position of the first non-finite score.
    """
    for position, value in enumerate(scores):
        if not math.isfinite(value):
            raise InputError(f"{what} {position} is {value}: scores must be finite numbers")


@dataclass
class ScoreResult:
    """Coherence scores of a list of texts, in input order.

    Scores are unbounded real numbers: higher means more coherent, and only differences between texts
    scored with the same signature mean anything. ``system_score`` is the mean over texts.

    Attributes:
        scores: one score per input text, in input order.
        n_truncated: texts cut at ``max_length`` tokens (``truncation="warn"``).
        n_windowed: texts scored as overlapping sentence windows (``truncation="window"``).
        signature: everything that can change a score.
        system_score_interval: a percentile bootstrap interval of ``system_score`` over the texts, when asked for
            (``with_system_score_interval``, ``CoherenceScorer.compare_systems``); None otherwise.
        confidence: that interval's coverage (0.95).
        transitions: for a checkpoint with a local term, per text the score of each adjacent sentence pair (how well
            sentence i+1 follows sentence i, scored by the same model; empty for a one-sentence text); for one with a
            transition term, the transition model's logit of each boundary (the values mixed into the score); None
            for a checkpoint with neither (``CoherenceScorer.explain`` gives transitions for any checkpoint).
    """

    scores: List[float]
    n_truncated: int
    signature: Signature
    n_windowed: int = 0
    system_score_interval: Optional[Tuple[float, float]] = None
    confidence: Optional[float] = None
    transitions: Optional[List[List[float]]] = None

    def __post_init__(self) -> None:
        check_finite(self.scores, "score")

    @property
    def system_score(self) -> float:
        """Mean score over the texts (a system-level number when the texts are one system's outputs)."""
        return sum(self.scores) / len(self.scores)

    def with_system_score_interval(self, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                                   confidence: float = CONFIDENCE) -> "ScoreResult":
        """A copy with a seeded bootstrap interval of the system score (texts resampled with replacement); the
        signature names the resample count and seed. One score alone says nothing about its spread; this does.

        Raises:
            InputError: fewer than 2 scores, or ``resamples``, ``seed`` or ``confidence`` out of range (named).
        """
        resamples, seed = check_bootstrap_settings(resamples, seed)
        confidence = check_confidence(confidence)
        return replace(self, system_score_interval=mean_interval(self.scores, resamples, seed, confidence),
                       confidence=confidence, signature=self.signature.with_bootstrap(resamples, seed))

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form (for JSON, logging or a results table)."""
        data: Dict[str, Any] = {
            "scores": list(self.scores),
            "system_score": self.system_score,
            "n_truncated": self.n_truncated,
            "n_windowed": self.n_windowed,
            "signature": str(self.signature),
        }
        if self.system_score_interval is not None:
            data["system_score_interval"] = list(self.system_score_interval)
            data["confidence"] = self.confidence
        if self.transitions is not None:
            data["transitions"] = [list(values) for values in self.transitions]
        return data

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)


@dataclass
class CompareResult:
    """Text (or system) A against text (or system) B, scored with one model.

    For two single texts, ``winner`` and ``difference`` say which is more coherent and by how much.
    For two equal-length lists (two systems' outputs on the same inputs) there are per-pair results, the
    share of inputs where A wins, and paired-bootstrap 95% intervals for that share and for the mean
    difference. Ties (scores within ``tie_tolerance``: 1e-5 in fp32, 1e-2 in bf16 and fp16, by the signature's
    dtype; :mod:`coherence_metric.statistics.ties`) are counted apart and are wins for neither side.
    A paired comparison also carries two-sided p-values that A and B differ: paired bootstrap resampling and
    approximate randomization (:mod:`coherence_metric.statistics.significance`); below 10 inputs the bootstrap's is None
    (it understates p there) and ``to_dict`` says why under ``p_value_bootstrap_note``; a p-value at the floor of
    its test, 1/(N+1) for N resamples or trials, gets ``p_value_bootstrap_at_floor`` (or ``_randomization_``) saying
    it is a bound, not an estimate.
    """

    scores_a: List[float]
    scores_b: List[float]
    signature: Signature
    paired: bool
    n_truncated: int = 0
    win_rate_interval: Optional[Tuple[float, float]] = None
    mean_difference_interval: Optional[Tuple[float, float]] = None
    confidence: Optional[float] = None
    p_value_bootstrap: Optional[float] = None
    p_value_randomization: Optional[float] = None
    pair_winners: List[str] = field(init=False)

    def __post_init__(self) -> None:
        check_finite(self.scores_a, "score of A")
        check_finite(self.scores_b, "score of B")
        self.pair_winners = [winner(a, b, self.tie_tolerance) for a, b in zip(self.scores_a, self.scores_b)]

    @property
    def tie_tolerance(self) -> float:
        """Scores this close are a tie: the rounding noise of the signature's dtype
        (:mod:`coherence_metric.statistics.ties`)."""
        return tie_tolerance(self.signature.dtype)

    @property
    def score_a(self) -> float:
        """A's score (the mean over inputs for a paired comparison)."""
        return sum(self.scores_a) / len(self.scores_a)

    @property
    def score_b(self) -> float:
        """B's score (the mean over inputs for a paired comparison)."""
        return sum(self.scores_b) / len(self.scores_b)

    @property
    def difference(self) -> float:
        """score_a - score_b: positive when A is more coherent."""
        return self.score_a - self.score_b

    @property
    def winner(self) -> str:
        """``"a"``, ``"b"`` or ``"tie"`` by the (mean) scores; a tie when they are within ``tie_tolerance``."""
        return winner(self.score_a, self.score_b, self.tie_tolerance)

    @property
    def wins_a(self) -> int:
        """Inputs where A scores higher by more than ``tie_tolerance``."""
        return self.pair_winners.count("a")

    @property
    def wins_b(self) -> int:
        """Inputs where B scores higher by more than ``tie_tolerance``."""
        return self.pair_winners.count("b")

    @property
    def ties(self) -> int:
        """Inputs where the two scores are within ``tie_tolerance``."""
        return self.pair_winners.count("tie")

    @property
    def win_rate(self) -> float:
        """Share of inputs where A wins (scores higher than B by more than ``tie_tolerance``)."""
        return self.wins_a / len(self.pair_winners)

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form (for JSON, logging or a results table)."""
        data: Dict[str, Any] = {
            "score_a": self.score_a,
            "score_b": self.score_b,
            "difference": self.difference,
            "winner": self.winner,
            "tie_tolerance": self.tie_tolerance,
            "n_truncated": self.n_truncated,
            "signature": str(self.signature),
        }
        if self.paired:
            data.update(
                {
                    "n_pairs": len(self.pair_winners),
                    "scores_a": list(self.scores_a),
                    "scores_b": list(self.scores_b),
                    "pair_winners": list(self.pair_winners),
                    "wins_a": self.wins_a,
                    "wins_b": self.wins_b,
                    "ties": self.ties,
                    "win_rate": self.win_rate,
                    "win_rate_interval": list(self.win_rate_interval or ()),
                    "mean_difference_interval": list(self.mean_difference_interval or ()),
                    "confidence": self.confidence,
                    "p_value_bootstrap": self.p_value_bootstrap,
                    "p_value_randomization": self.p_value_randomization,
                }
            )
            if self.p_value_bootstrap is None:
                data["p_value_bootstrap_note"] = bootstrap_p_note(len(self.pair_winners))
            floors = {"p_value_bootstrap": (self.p_value_bootstrap, self.signature.bootstrap_resamples),
                      "p_value_randomization": (self.p_value_randomization, self.signature.randomization_trials)}
            for key, (p_value, count) in floors.items():
                if p_value is not None and count and p_value <= (1 + 1e-9) / (count + 1):
                    data[f"{key}_at_floor"] = (f"at the floor of the test, 1/(N+1) = {1 / (count + 1):.6g} for N = "
                                               f"{count}: a bound, the true p-value is at or below it")
        return data

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)
