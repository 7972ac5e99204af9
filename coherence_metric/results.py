"""Result objects returned by the scorer; each carries its signature and renders to dict/JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Collection, Dict, List, Optional, Sequence, Tuple

from .errors import InputError
from .inputs.empty import check_on_empty
from .signature import Signature
from .statistics.bootstrap import (
    CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_bootstrap_settings,
    check_confidence,
    paired_bootstrap,
)
from .statistics.significance import bootstrap_p_note, mean_interval, paired_tests
from .statistics.ties import TIE_TOLERANCE, tie_tolerance, winner

__all__ = ["EMPTY_PAIR", "TIE_TOLERANCE", "CompareResult", "ScoreResult", "check_finite", "paired_comparison"]

EMPTY_PAIR = "empty"
"""A ``pair_winners`` entry for an input left out as empty under ``on_empty="nan"``: no winner, no tie."""


def check_empty_positions(on_empty: str, empty: Sequence[int], count: int) -> None:
    """Refuse a result whose record of empty texts cannot be right: an unknown ``on_empty``, empty texts under
    ``error``, or positions out of order or out of range (``count`` entries per side under nan)."""
    check_on_empty(on_empty)
    if on_empty == "error" and empty:
        raise InputError("a result with empty texts needs on_empty='skip' or 'nan'")
    limit = count if on_empty == "nan" else count + len(empty)
    if list(empty) != sorted(set(empty)) or any(not 0 <= position < limit for position in empty):
        raise InputError(f"empty must list distinct input positions in order, each below {limit}")


def kept_positions(on_empty: str, empty: Sequence[int], count: int) -> List[int]:
    """The input position of each of ``count`` scores: all of them, but under skip those of the non-empty texts."""
    if on_empty != "skip" or not empty:
        return list(range(count))
    left_out = set(empty)
    return [position for position in range(count + len(empty)) if position not in left_out]


def empty_fields(on_empty: str, empty: Sequence[int], indices: Sequence[int]) -> Dict[str, Any]:
    """What ``to_dict`` adds under skip and nan: the option, the empty texts' positions and (skip) each score's
    input position."""
    if on_empty == "error":
        return {}
    data: Dict[str, Any] = {"on_empty": on_empty, "empty": list(empty)}
    if on_empty == "skip":
        data["indices"] = list(indices)
    return data


def check_finite(scores: Sequence[float], what: str, empty: Collection[int] = ()) -> None:
    """Refuse NaN and infinite scores: a mean, a winner or a p-value computed from them is a wrong number
    (NaN compares as neither higher nor lower, so it read as a tie, and JSON gained a bare ``NaN``). The positions
    in ``empty`` (empty texts under ``on_empty="nan"``) must hold NaN instead.

    Raises:
        InputError: naming ``what`` and the position of the first wrong score.
    """
    for position, value in enumerate(scores):
        if position in empty:
            if not math.isnan(value):
                raise InputError(f"{what} {position} is {value}: an empty text's score under on_empty='nan' is NaN")
        elif not math.isfinite(value):
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
        on_empty: what the scorer did with empty texts: ``"error"`` (there were none), ``"skip"`` (left out:
            ``scores`` has one entry per other text, ``indices`` says which) or ``"nan"`` (``scores`` has one entry
            per input, NaN for an empty text, left out of ``system_score`` and its interval).
        empty: the input positions of the empty texts (skip and nan), in order.
    """

    scores: List[float]
    n_truncated: int
    signature: Signature
    n_windowed: int = 0
    system_score_interval: Optional[Tuple[float, float]] = None
    confidence: Optional[float] = None
    transitions: Optional[List[List[float]]] = None
    on_empty: str = "error"
    empty: List[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_empty_positions(self.on_empty, self.empty, len(self.scores))
        check_finite(self.scores, "score", set(self.empty) if self.on_empty == "nan" else ())

    @property
    def scored(self) -> List[float]:
        """The scores of the texts that were scored: ``scores`` without the NaN of empty texts."""
        if self.on_empty != "nan" or not self.empty:
            return list(self.scores)
        empty = set(self.empty)
        return [value for position, value in enumerate(self.scores) if position not in empty]

    @property
    def indices(self) -> List[int]:
        """The input position of each entry of ``scores``: 0, 1, 2... except under ``on_empty="skip"``, which left
        the empty texts out (``df.iloc[result.indices]`` are the rows scored)."""
        return kept_positions(self.on_empty, self.empty, len(self.scores))

    @property
    def system_score(self) -> float:
        """Mean score over the texts scored (a system-level number when the texts are one system's outputs); empty
        texts are left out of it."""
        scored = self.scored
        return sum(scored) / len(scored)

    def with_system_score_interval(self, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                                   confidence: float = CONFIDENCE) -> "ScoreResult":
        """A copy with a seeded bootstrap interval of the system score (texts resampled with replacement); the
        signature names the resample count and seed. One score alone says nothing about its spread; this does.

        Raises:
            InputError: fewer than 2 scores, or ``resamples``, ``seed`` or ``confidence`` out of range (named).
        """
        resamples, seed = check_bootstrap_settings(resamples, seed)
        confidence = check_confidence(confidence)
        return replace(self, system_score_interval=mean_interval(self.scored, resamples, seed, confidence),
                       confidence=confidence, signature=self.signature.with_bootstrap(resamples, seed))

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form (for JSON, logging or a results table); a NaN score (an empty text under
        ``on_empty="nan"``) is None, JSON's null. Under skip and nan it adds ``on_empty`` and ``empty`` (the empty
        texts' positions), and under skip ``indices`` (each score's input position)."""
        data: Dict[str, Any] = {
            "scores": [None if math.isnan(value) else value for value in self.scores],
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
        data.update(empty_fields(self.on_empty, self.empty, self.indices))
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

    Under ``on_empty`` skip or nan (paired comparisons) an input where either text is empty is left out of every
    mean, win rate, interval and p-value (a pair needs both texts): skip leaves its scores out (``indices`` are the
    input positions kept), nan keeps them as NaN, its ``pair_winners`` entry ``"empty"``; ``empty`` lists those
    inputs' positions.
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
    on_empty: str = "error"
    empty: List[int] = field(default_factory=list)
    pair_winners: List[str] = field(init=False)

    def __post_init__(self) -> None:
        check_empty_positions(self.on_empty, self.empty, len(self.scores_a))
        nan = set(self.empty) if self.on_empty == "nan" else set()
        check_finite(self.scores_a, "score of A", nan)
        check_finite(self.scores_b, "score of B", nan)
        self.pair_winners = [EMPTY_PAIR if position in nan else winner(a, b, self.tie_tolerance)
                             for position, (a, b) in enumerate(zip(self.scores_a, self.scores_b))]

    def _scored(self, scores: List[float]) -> List[float]:
        """``scores`` without the NaN of the inputs left out under nan."""
        return [value for value, pair in zip(scores, self.pair_winners) if pair != EMPTY_PAIR]

    @property
    def indices(self) -> List[int]:
        """The input position of each pair: 0, 1, 2... except under ``on_empty="skip"``, which left out the inputs
        with an empty text."""
        return kept_positions(self.on_empty, self.empty, len(self.scores_a))

    @property
    def tie_tolerance(self) -> float:
        """Scores this close are a tie: the rounding noise of the signature's dtype
        (:mod:`coherence_metric.statistics.ties`)."""
        return tie_tolerance(self.signature.dtype)

    @property
    def score_a(self) -> float:
        """A's score (the mean over the inputs scored for a paired comparison)."""
        scored = self._scored(self.scores_a)
        return sum(scored) / len(scored)

    @property
    def score_b(self) -> float:
        """B's score (the mean over the inputs scored for a paired comparison)."""
        scored = self._scored(self.scores_b)
        return sum(scored) / len(scored)

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
    def n_pairs(self) -> int:
        """The pairs compared (inputs left out as empty under nan not counted)."""
        return len(self.pair_winners) - self.pair_winners.count(EMPTY_PAIR)

    @property
    def win_rate(self) -> float:
        """Share of the pairs compared where A wins (scores higher than B by more than ``tie_tolerance``)."""
        return self.wins_a / self.n_pairs

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
                    "n_pairs": self.n_pairs,
                    "scores_a": [None if math.isnan(value) else value for value in self.scores_a],
                    "scores_b": [None if math.isnan(value) else value for value in self.scores_b],
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
                data["p_value_bootstrap_note"] = bootstrap_p_note(self.n_pairs)
            floors = {"p_value_bootstrap": (self.p_value_bootstrap, self.signature.bootstrap_resamples),
                      "p_value_randomization": (self.p_value_randomization, self.signature.randomization_trials)}
            for key, (p_value, count) in floors.items():
                if p_value is not None and count and p_value <= (1 + 1e-9) / (count + 1):
                    data[f"{key}_at_floor"] = (f"at the floor of the test, 1/(N+1) = {1 / (count + 1):.6g} for N = "
                                               f"{count}: a bound, the true p-value is at or below it")
            data.update(empty_fields(self.on_empty, self.empty, self.indices))
        return data

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)


def paired_comparison(scores_a: List[float], scores_b: List[float], signature: Signature, n_truncated: int,
                      bootstrap_resamples: int, seed: int, randomization_trials: int) -> CompareResult:
    """Two systems' scores on the same inputs (finite, in input order), compared: paired-bootstrap intervals and both
    p-values, seeded by ``seed``. ``signature`` is the scores' (with the truncation counts of both sides); the
    result's names the bootstrap and the randomization test. Scores from a model or read back from a saved result
    give the same comparison."""
    tolerance = tie_tolerance(signature.dtype)
    interval = paired_bootstrap(scores_a, scores_b, resamples=bootstrap_resamples, seed=seed, tie_tolerance=tolerance)
    tests = paired_tests(scores_a, scores_b, resamples=bootstrap_resamples, trials=randomization_trials, seed=seed,
                         tie_tolerance=tolerance)
    return CompareResult(
        list(scores_a),
        list(scores_b),
        signature.with_bootstrap(bootstrap_resamples, seed, randomization_trials),
        paired=True,
        n_truncated=n_truncated,
        win_rate_interval=interval.win_rate_interval,
        mean_difference_interval=interval.mean_difference_interval,
        confidence=interval.confidence,
        p_value_bootstrap=tests.p_value_bootstrap,
        p_value_randomization=tests.p_value_randomization,
    )
