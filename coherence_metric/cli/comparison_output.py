"""What ``compare`` prints (and ``compare -o``, ``--also`` and ``report --also`` write), in every ``-f`` format, from
systems scored once (:class:`.scored.ScoredSystems`).

Two systems print the paired comparison (each side's interval, win rate, mean difference, both p-values); three or
more the ranking and every pair. ``-f markdown`` and ``-f latex`` print the tables of a ``SystemsComparison`` for
two systems as for more. JSON holds every number and what it takes to render again (labels, notes, the left-out
inputs); TSV one row per system and text, its signature on stderr apart.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import replace
from typing import Any, Dict, List, Optional

from ..results import CompareResult, paired_comparison
from ..statistics.p_values import at_floor, disagreement_note, floor_note, format_p_value
from ..statistics.significance import bootstrap_p_note, mean_interval
from ..systems import SystemsComparison, compare_scored_systems
from .labels import escape_label
from .scored import ScoredSystems
from .tables import TABLE_FORMATS, left_out_line, render_latex, render_markdown


class SystemsOutput:
    """The outputs of one comparison: the statistics are computed once, on first use, for every format asked."""

    def __init__(self, scored: ScoredSystems, bootstrap_resamples: int, randomization_trials: int,
                 seed: int) -> None:
        self.scored = scored
        self.bootstrap_resamples = bootstrap_resamples
        self.randomization_trials = randomization_trials
        self.seed = seed

    @functools.cached_property
    def comparison(self) -> SystemsComparison:
        """Every system with its interval, the ranking, every pair tested; the notes the systems came with."""
        comparison = compare_scored_systems(self.scored.by_name(), self.bootstrap_resamples,
                                            self.randomization_trials, self.seed)
        return replace(comparison, notes=self.scored.notes)

    @functools.cached_property
    def pair(self) -> CompareResult:
        """Two systems compared as a pair (the first as A); the signature counts both sides' truncated texts."""
        a, b = self.scored.results
        signature = a.signature.with_truncated(a.n_truncated + b.n_truncated, a.n_windowed + b.n_windowed)
        return paired_comparison(a.scores, b.scores, signature, a.n_truncated + b.n_truncated,
                                 self.bootstrap_resamples, self.seed, self.randomization_trials)

    @property
    def _two(self) -> bool:
        return len(self.scored.names) == 2

    def signature(self, output_format: str) -> str:
        """The signature of what ``output_format`` prints."""
        if self._two and output_format not in TABLE_FORMATS:
            return str(self.pair.signature)
        return str(self.comparison.signature)

    def render(self, output_format: str) -> str:
        """What ``compare -f output_format`` prints, whole lines."""
        if output_format in TABLE_FORMATS:
            table = render_markdown(self.comparison) if output_format == "markdown" else render_latex(self.comparison)
            return table + "\n"
        if output_format == "tsv":
            return _lines(self._tsv())
        if self._two:
            return json.dumps(self._pair_json(), indent=2) + "\n" if output_format == "json" else _lines(
                self._pair_text())
        return json.dumps(self._systems_json(), indent=2) + "\n" if output_format == "json" else _lines(
            self._systems_text())

    def _tsv(self) -> List[str]:
        header = escape_label(self.scored.id_field) if self.scored.id_field is not None else "label"
        lines = [f"system\t{header}\tscore"]
        for name, rows in zip(self.scored.names, self.scored.rows):
            lines += [f"{escape_label(name)}\t{escape_label(label)}\t{value:.6f}" for label, value in rows]
        return lines

    def _pair_json(self) -> Dict[str, Any]:
        data = self.pair.to_dict()
        (name_a, name_b), (rows_a, rows_b) = self.scored.names, self.scored.rows
        data.update({"a": name_a, "b": name_b, "labels_a": [label for label, _ in rows_a],
                     "labels_b": [label for label, _ in rows_b]})
        if self.scored.left_out:
            data["on_empty"] = self.scored.on_empty
            data["left_out"] = [{"a": item.labels[0], "b": item.labels[-1], "reason": item.reason}
                                for item in self.scored.left_out]
            if self.scored.on_empty == "nan":
                data["scores_a"] = _nulls(rows_a)
                data["scores_b"] = _nulls(rows_b)
        return self._saved_with(data)

    def _systems_json(self) -> Dict[str, Any]:
        data = self.comparison.to_dict()
        nan = self.scored.on_empty == "nan" and bool(self.scored.left_out)
        for name, rows in zip(self.scored.names, self.scored.rows):
            data["systems"][name]["labels"] = [label for label, _ in rows]
            if nan:
                data["systems"][name]["scores"] = _nulls(rows)
        if self.scored.left_out:
            data["on_empty"] = self.scored.on_empty
            data["left_out"] = [{"label": item.labels[0], "reason": item.reason}
                                for item in self.scored.left_out]
        return self._saved_with(data)

    def _saved_with(self, data: Dict[str, Any]) -> Dict[str, Any]:
        """``data`` with what rendering it again needs beyond the numbers: the notes and the id field."""
        data["notes"] = list(self.scored.notes)
        if self.scored.id_field is not None:
            data["id_field"] = self.scored.id_field
        return data

    def _pair_text(self) -> List[str]:
        name_a, name_b = self.scored.names
        lines = paired_lines(self.pair, escape_label(name_a), escape_label(name_b), self.bootstrap_resamples,
                             self.randomization_trials, self.seed)
        return lines + self._left_out_line() + [f"signature: {self.pair.signature}"]

    def _systems_text(self) -> List[str]:
        return systems_lines(self.comparison) + self._left_out_line() + [f"signature: {self.comparison.signature}"]

    def _left_out_line(self) -> List[str]:
        if not self.scored.left_out:
            return []
        return [left_out_line(len(self.scored.left_out), self.scored.n_inputs, self.scored.on_empty)]


def _lines(lines: List[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _nulls(rows: List[Any]) -> List[Optional[float]]:
    """The rows' scores for JSON: NaN (an input left out under nan) as null."""
    return [None if math.isnan(value) else value for _, value in rows]


def single_lines(result: CompareResult, label_a: str, label_b: str) -> List[str]:
    """Two single texts: each score and the winner."""
    width = max(len(label_a), len(label_b))
    lines = [f"A  {label_a:<{width}}  {result.score_a:10.4f}", f"B  {label_b:<{width}}  {result.score_b:10.4f}"]
    if result.winner == "tie":
        lines.append(f"winner: tie (scores within {result.tie_tolerance:g})")
    else:
        winner = label_a if result.winner == "a" else label_b
        lines.append(f"winner: {result.winner.upper()} ({winner}), more coherent by {abs(result.difference):.4f}")
    return lines


def paired_lines(result: CompareResult, label_a: str, label_b: str, resamples: int, trials: int,
                 seed: int) -> List[str]:
    """Two systems on the same inputs: each side's interval, the pairs won, the win rate, the mean difference, both
    p-values and the winner."""
    confidence = result.confidence or 0.95
    low, high = result.win_rate_interval or (math.nan, math.nan)
    diff_low, diff_high = result.mean_difference_interval or (math.nan, math.nan)
    percent = round(100 * confidence)
    lines = []
    for side, label, scores, value in (("A", label_a, result.scores_a, result.score_a),
                                       ("B", label_b, result.scores_b, result.score_b)):
        side_low, side_high = mean_interval(scores, resamples, seed, confidence)
        lines.append(f"{side}  {label}  system score {value:.4f}  ({percent}% CI {side_low:.4f} to {side_high:.4f})")
    lines.append(f"pairs: {len(result.pair_winners)}  A wins {result.wins_a}  B wins {result.wins_b}  "
                 f"ties {result.ties}")
    lines.append(f"A win rate: {result.win_rate:.3f}  ({percent}% CI {low:.3f} to {high:.3f})")
    lines.append(f"mean difference A-B: {result.difference:+.4f}  ({percent}% CI {diff_low:+.4f} to {diff_high:+.4f})")
    randomization = f"approximate randomization {format_p_value(result.p_value_randomization, trials)}"
    if result.p_value_bootstrap is None:  # too few inputs for a bootstrap p-value: say so rather than print one
        lines.append(f"p-value (A and B differ): {randomization}; {bootstrap_p_note(len(result.pair_winners))}")
    else:
        lines.append(f"p-value (A and B differ): paired bootstrap "
                     f"{format_p_value(result.p_value_bootstrap, resamples)}, {randomization}")
    if at_floor(result.p_value_bootstrap, resamples) or at_floor(result.p_value_randomization, trials):
        lines.append(floor_note(resamples, trials))
    note = disagreement_note(result.mean_difference_interval, result.p_value_bootstrap, result.p_value_randomization,
                             confidence, resamples, trials)
    if note:
        lines.append(note)
    lines.append(f"winner: {result.winner.upper() if result.winner != 'tie' else 'tie'}")
    return lines


def _disagreements(comparison: Any) -> List[str]:
    """The note for each pair whose mean-difference interval and p-value disagree about 0."""
    notes = []
    for pair in comparison.pairs:
        note = disagreement_note(pair.mean_difference_interval, pair.p_value_bootstrap, pair.p_value_randomization,
                                 comparison.confidence, comparison.bootstrap_resamples,
                                 comparison.randomization_trials, f"{escape_label(pair.a)} vs {escape_label(pair.b)}")
        if note:
            notes.append(note)
    return notes


def _any_at_floor(comparison: Any) -> bool:
    return any(at_floor(pair.p_value_bootstrap, comparison.bootstrap_resamples)
               or at_floor(pair.p_value_randomization, comparison.randomization_trials) for pair in comparison.pairs)


def systems_lines(comparison: Any) -> List[str]:
    """Three or more systems: the ranking with each score and interval, then every pair with its tests."""
    percent = round(100 * comparison.confidence)
    ranks = comparison.ranks
    n_inputs = len(next(iter(comparison.systems.values())).scores)
    shown = {name: escape_label(name) for name in comparison.systems}  # a tab or newline in a name breaks no line
    width = max(len("system"), *(len(name) for name in shown.values()))
    lines = [f"systems: {len(comparison.systems)}  inputs: {n_inputs}  ({percent}% CIs: paired bootstrap, "
             f"{comparison.bootstrap_resamples} resamples, seed {comparison.seed})",
             f"rank  {'system':<{width}}  {'score':>10}  {percent}% CI"]
    for name in comparison.ranking:
        result = comparison.systems[name]
        low, high = result.system_score_interval
        lines.append(f"{ranks[name]:>4}  {shown[name]:<{width}}  {result.system_score:10.4f}  [{low:.4f}, {high:.4f}]")
    lines += ["", f"pairs: {len(comparison.pairs)} (A ranked above B; p-values two-sided, per pair, not corrected for "
                  f"{len(comparison.pairs)} comparisons; randomization: {comparison.randomization_trials} trials)",
              f"{'A':<{width}}  {'B':<{width}}  {'mean diff':>9}  {percent}% CI{'':<14}  {'A win rate':>10}  "
              f"{percent}% CI{'':<10}  {'p(boot)':>7}  {'p(rand)':>7}"]
    for pair in comparison.pairs:
        diff_low, diff_high = pair.mean_difference_interval
        win_low, win_high = pair.win_rate_interval
        lines.append(f"{shown[pair.a]:<{width}}  {shown[pair.b]:<{width}}  {pair.mean_difference:+9.4f}  "
                     f"[{diff_low:+.4f}, {diff_high:+.4f}]  {pair.win_rate:10.3f}  [{win_low:.3f}, {win_high:.3f}]  "
                     f"{format_p_value(pair.p_value_bootstrap, comparison.bootstrap_resamples):>7}  "
                     f"{format_p_value(pair.p_value_randomization, comparison.randomization_trials):>7}")
    if _any_at_floor(comparison):
        lines.append(floor_note(comparison.bootstrap_resamples, comparison.randomization_trials))
    note = bootstrap_p_note(n_inputs)
    if note is not None:  # the p(boot) column holds "-": say why
        lines.append(f"-: {note}")
    return lines + _disagreements(comparison)


__all__ = ["SystemsOutput", "paired_lines", "single_lines", "systems_lines"]
