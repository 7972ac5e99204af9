"""Result objects returned by the scorer; each carries its signature and renders to dict/JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Tuple

from .signature import Signature

TIE_TOLERANCE = 1e-5
"""Scores this close (``|a - b| <= TIE_TOLERANCE``) are a tie: winner, per-pair winners, win rate, bootstrap.

The same text scores differently by float noise (about 1e-8 to 1e-6 in fp32) depending on which texts share its
batch, so a strict ``>`` let noise pick a winner of a text against itself. 1e-5 is the bound README promises for
batch invariance."""


def _winner(score_a: float, score_b: float) -> str:
    """``"a"``, ``"b"``, or ``"tie"`` when the scores are within TIE_TOLERANCE."""
    if score_a - score_b > TIE_TOLERANCE:
        return "a"
    if score_b - score_a > TIE_TOLERANCE:
        return "b"
    return "tie"


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
            sentence i+1 follows sentence i, scored by the same model; empty for a one-sentence text); None for a
            checkpoint without one (``CoherenceScorer.explain`` gives transitions for any checkpoint).
    """

    scores: List[float]
    n_truncated: int
    signature: Signature
    n_windowed: int = 0
    system_score_interval: Optional[Tuple[float, float]] = None
    confidence: Optional[float] = None
    transitions: Optional[List[List[float]]] = None

    @property
    def system_score(self) -> float:
        """Mean score over the texts (a system-level number when the texts are one system's outputs)."""
        return sum(self.scores) / len(self.scores)

    def with_system_score_interval(self, resamples: int = 1000, seed: int = 12345,
                                   confidence: float = 0.95) -> "ScoreResult":
        """A copy with a seeded bootstrap interval of the system score (texts resampled with replacement); the
        signature names the resample count and seed. One score alone says nothing about its spread; this does.
        (The defaults are ``coherence_metric.bootstrap``'s, written out: that module imports this one.)"""
        from .significance import mean_interval

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
    difference. Ties (scores within ``TIE_TOLERANCE``, 1e-5) are counted apart and are wins for neither side.
    A paired comparison also carries two-sided p-values that A and B differ: paired bootstrap resampling and
    approximate randomization (:mod:`coherence_metric.significance`).
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
        self.pair_winners = [_winner(a, b) for a, b in zip(self.scores_a, self.scores_b)]

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
        """``"a"``, ``"b"`` or ``"tie"`` by the (mean) scores; a tie when they are within TIE_TOLERANCE."""
        return _winner(self.score_a, self.score_b)

    @property
    def wins_a(self) -> int:
        """Inputs where A scores higher by more than TIE_TOLERANCE."""
        return self.pair_winners.count("a")

    @property
    def wins_b(self) -> int:
        """Inputs where B scores higher by more than TIE_TOLERANCE."""
        return self.pair_winners.count("b")

    @property
    def ties(self) -> int:
        """Inputs where the two scores are within TIE_TOLERANCE."""
        return self.pair_winners.count("tie")

    @property
    def win_rate(self) -> float:
        """Share of inputs where A wins (scores higher than B by more than TIE_TOLERANCE)."""
        return self.wins_a / len(self.pair_winners)

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form (for JSON, logging or a results table)."""
        data: Dict[str, Any] = {
            "score_a": self.score_a,
            "score_b": self.score_b,
            "difference": self.difference,
            "winner": self.winner,
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
        return data

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)
