"""Comparing N systems scored on the same inputs: each system's score with its interval, a ranking, and every pair's
win rate, mean difference, paired-bootstrap intervals and p-values (bootstrap and approximate randomization).

sacrebleu compares N systems against one baseline; papers comparing several generators need every pair, so every
pair is tested, the higher-ranked system as A (differences read positive). The p-values are per pair and not
corrected for the number of pairs: with k pairs, Bonferroni compares each with 0.05 / k (``n_pairs`` says k).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .errors import InputError
from .inputs.containers import as_text_list
from .inputs.lengths import KNOWN_LIMITS_NOTE, length_note
from .inputs.texts import normalise_documents
from .results import ScoreResult
from .signature import Signature
from .statistics.bootstrap import CONFIDENCE, check_bootstrap_settings, check_sample_size, paired_bootstrap
from .statistics.significance import bootstrap_p_note, check_trials, paired_tests
from .statistics.ties import tie_tolerance, winner


@dataclass(frozen=True)
class PairComparison:
    """System ``a`` against system ``b`` (``a`` ranked at least as high) on the same inputs; ``p_value_bootstrap``
    is None below ``MIN_INPUTS_BOOTSTRAP_P`` inputs, where the bootstrap understates p
    (:func:`coherence_metric.statistics.significance.bootstrap_p_note`)."""

    a: str
    b: str
    score_a: float
    score_b: float
    mean_difference: float
    mean_difference_interval: Tuple[float, float]
    wins_a: int
    wins_b: int
    ties: int
    win_rate: float
    win_rate_interval: Tuple[float, float]
    p_value_bootstrap: Optional[float]
    p_value_randomization: float

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form; ``p_value_bootstrap_note`` says why when there is no bootstrap p-value."""
        data: Dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "mean_difference": self.mean_difference,
            "mean_difference_interval": list(self.mean_difference_interval),
            "wins_a": self.wins_a,
            "wins_b": self.wins_b,
            "ties": self.ties,
            "win_rate": self.win_rate,
            "win_rate_interval": list(self.win_rate_interval),
            "p_value_bootstrap": self.p_value_bootstrap,
            "p_value_randomization": self.p_value_randomization,
        }
        if self.p_value_bootstrap is None:
            data["p_value_bootstrap_note"] = bootstrap_p_note(self.wins_a + self.wins_b + self.ties)
        return data


@dataclass(frozen=True)
class SystemsComparison:
    """N systems on the same inputs. ``systems`` keeps the order given; ``ranking`` orders them by system score.

    Attributes:
        systems: each system's ``ScoreResult``, with ``system_score_interval`` set.
        pairs: every pair once, the higher-ranked system as ``a``.
        signature: the scorer's signature with ``bootstrap:N|seed:S|ar:T``.
        bootstrap_resamples, randomization_trials, seed, confidence: the settings of the intervals and tests.
        notes: what a reader of the numbers must know, carried into every table and report made from them: a
            length gap between the systems' outputs, and the metric's known limits.
    """

    systems: Dict[str, ScoreResult]
    pairs: List[PairComparison]
    signature: Signature
    bootstrap_resamples: int
    randomization_trials: int
    seed: int
    confidence: float = CONFIDENCE
    notes: Tuple[str, ...] = (KNOWN_LIMITS_NOTE,)

    @property
    def ranking(self) -> List[str]:
        """System names from the highest system score to the lowest (input order among equal scores)."""
        names = list(self.systems)
        return sorted(names, key=lambda name: (-self.systems[name].system_score, names.index(name)))

    @property
    def tie_tolerance(self) -> float:
        """Scores this close are a tie: the rounding noise of the signature's dtype
        (:mod:`coherence_metric.statistics.ties`)."""
        return tie_tolerance(self.signature.dtype)

    @property
    def ranks(self) -> Dict[str, int]:
        """1 for the best; systems whose scores are within ``tie_tolerance`` of the one ranked above share its rank
        (1, 2, 2, 4)."""
        ranks: Dict[str, int] = {}
        ranking = self.ranking
        for position, name in enumerate(ranking):
            above = ranking[position - 1] if position else None
            tied = above is not None and winner(self.systems[above].system_score, self.systems[name].system_score,
                                                self.tie_tolerance) == "tie"
            ranks[name] = ranks[above] if tied and above is not None else position + 1
        return ranks

    def pair(self, a: str, b: str) -> PairComparison:
        """The comparison of ``a`` with ``b``, in the order asked: ``a`` is A, so ``mean_difference`` is
        ``a``'s score minus ``b``'s and ``win_rate`` is the share of inputs ``a`` wins, whichever ranks higher.
        The reversed pair is computed from the same scores and resamples as the stored one (same p-values,
        intervals mirrored).

        Raises:
            KeyError: ``a`` or ``b`` is not one of the systems, or they are the same system.
        """
        for pair in self.pairs:
            if (pair.a, pair.b) == (a, b):
                return pair
            if (pair.a, pair.b) == (b, a):
                return _compare_pair(a, b, self.systems[a], self.systems[b], self.bootstrap_resamples,
                                     self.randomization_trials, self.seed, self.tie_tolerance)
        raise KeyError(f"no pair of {a!r} and {b!r}")

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form (for JSON, logging or a results table)."""
        ranks = self.ranks
        return {
            "systems": {
                name: {"rank": ranks[name], **result.to_dict()} for name, result in self.systems.items()
            },
            "ranking": self.ranking,
            "pairs": [pair.to_dict() for pair in self.pairs],
            "n_inputs": len(next(iter(self.systems.values())).scores),
            "n_pairs": len(self.pairs),
            "bootstrap_resamples": self.bootstrap_resamples,
            "randomization_trials": self.randomization_trials,
            "seed": self.seed,
            "confidence": self.confidence,
            "tie_tolerance": self.tie_tolerance,
            "signature": str(self.signature),
            "notes": list(self.notes),
        }

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)

    def to_html(self, texts: Optional[Mapping[str, Sequence[Any]]] = None, explanations: Optional[Any] = None,
                labels: Optional[Sequence[str]] = None, command: Optional[str] = None,
                title: Optional[str] = None, mechanism: Optional[str] = None) -> str:
        """A self-contained HTML report (:mod:`coherence_metric.report`): scores with intervals, ranking, every
        pair's test, score and difference histograms, and a paged table of inputs, largest difference first.

        Args:
            texts: each system's texts in input order, to show when a row is opened; None for scores only.
            explanations: per input index, per system, a ``TextExplanation`` (``CoherenceScorer.explain``), to
                shade those texts by transition score; ``coherence_metric.report.build_report`` makes both.
            labels: one label per input; None numbers them.
            command: the command line to show at the top.
            title: the page's heading.
            mechanism: what scored the transitions of ``explanations`` (``ExplainResult.mechanism``).
        """
        from .report import build_payload, render_html

        return render_html(build_payload(self, texts, explanations, labels, command, mechanism, title))


def _compare_pair(name_a: str, name_b: str, a: ScoreResult, b: ScoreResult, resamples: int, trials: int,
                  seed: int, tolerance: float) -> PairComparison:
    interval = paired_bootstrap(a.scores, b.scores, resamples=resamples, seed=seed, tie_tolerance=tolerance)
    tests = paired_tests(a.scores, b.scores, resamples=resamples, trials=trials, seed=seed, tie_tolerance=tolerance)
    winners = [winner(x, y, tolerance) for x, y in zip(a.scores, b.scores)]
    return PairComparison(
        a=name_a,
        b=name_b,
        score_a=a.system_score,
        score_b=b.system_score,
        mean_difference=a.system_score - b.system_score,
        mean_difference_interval=interval.mean_difference_interval,
        wins_a=winners.count("a"),
        wins_b=winners.count("b"),
        ties=winners.count("tie"),
        win_rate=winners.count("a") / len(winners),
        win_rate_interval=interval.win_rate_interval,
        p_value_bootstrap=tests.p_value_bootstrap,
        p_value_randomization=tests.p_value_randomization,
    )


def compare_scored_systems(results: Mapping[str, ScoreResult], bootstrap_resamples: int,
                           randomization_trials: int, seed: int) -> SystemsComparison:
    """Intervals, ranking and pairwise tests for systems already scored (the metric-agnostic half)."""
    if len(results) < 2:
        raise InputError(f"comparing systems needs at least 2, got {len(results)}")
    lengths = {name: len(result.scores) for name, result in results.items()}
    if len(set(lengths.values())) != 1:
        listed = ", ".join(f"{name!r} {count}" for name, count in lengths.items())
        raise InputError(f"systems must have the same number of texts, in the same input order; got {listed}")
    check_sample_size(next(iter(lengths.values())))
    bootstrap_resamples, seed = check_bootstrap_settings(bootstrap_resamples, seed)
    randomization_trials = check_trials(randomization_trials)
    systems = {name: result.with_system_score_interval(bootstrap_resamples, seed) for name, result in results.items()}
    first = next(iter(systems.values()))
    # the counts of every system's texts, not the first system's alone
    signature = first.signature.with_truncated(sum(result.n_truncated for result in systems.values()),
                                               sum(result.n_windowed for result in systems.values()))
    signature = signature.with_bootstrap(bootstrap_resamples, seed, randomization_trials)
    unpaired = SystemsComparison(systems, [], signature, bootstrap_resamples, randomization_trials, seed)
    pairs = [_compare_pair(name_a, name_b, systems[name_a], systems[name_b], bootstrap_resamples,
                           randomization_trials, seed, unpaired.tie_tolerance)
             for name_a, name_b in combinations(unpaired.ranking, 2)]
    return replace(unpaired, pairs=pairs)


def compare_systems(scorer: Any, systems: Mapping[str, Iterable[Any]], bootstrap_resamples: int,
                    randomization_trials: int, seed: int) -> SystemsComparison:
    """Score each system's texts with ``scorer`` and compare them all (``CoherenceScorer.compare_systems``)."""
    if not isinstance(systems, Mapping):
        raise InputError(f"systems must be a mapping of names to lists of texts, got {type(systems).__name__}")
    bootstrap_resamples, seed = check_bootstrap_settings(bootstrap_resamples, seed)
    randomization_trials = check_trials(randomization_trials)
    texts: Dict[str, List[Any]] = {}
    for name, outputs in systems.items():
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"system names must be non-empty strings, got {name!r}")
        if isinstance(outputs, str):
            raise InputError(f"system {name!r} is one string: give a list of its outputs, one per input")
        texts[name] = as_text_list(outputs)
    if len(texts) < 2:
        raise InputError(f"comparing systems needs at least 2, got {len(texts)}")
    lengths = {name: len(items) for name, items in texts.items()}
    if len(set(lengths.values())) != 1:
        listed = ", ".join(f"{name!r} {count}" for name, count in lengths.items())
        raise InputError(f"systems must have the same number of texts, in the same input order; got {listed}")
    check_sample_size(next(iter(lengths.values())))
    results: Dict[str, ScoreResult] = {}
    for name, items in texts.items():
        try:
            normalise_documents(items)  # the plain messages: compare_systems has no on_empty to suggest
            results[name] = scorer.score(items)
        except InputError as error:
            raise InputError(f"system {name!r}: {error}") from None
    comparison = compare_scored_systems(results, bootstrap_resamples, randomization_trials, seed)
    return replace(comparison, notes=comparison_notes(length_note(texts)))


def comparison_notes(length: Optional[str]) -> Tuple[str, ...]:
    """A comparison's notes: ``length`` (:func:`length_note`, None when there is no gap) as a sentence, then the
    known limits."""
    return ((length[0].upper() + length[1:] + ".",) if length else ()) + (KNOWN_LIMITS_NOTE,)
