"""``coherence-metric compare A B C ...``: three or more systems' outputs on the same inputs.

Prints the ranking with each system's score and interval, then every pair (higher-ranked first) with its mean
difference, win rate, intervals and both p-values. JSON holds all of it; TSV holds one row per system and text,
as the two-system TSV does (the signature on stderr).
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import click

from ..errors import InputError
from ..inputs.files import EmptyTextError, InputText, read_grouped_texts
from ..statistics.p_values import at_floor, disagreement_note, floor_note, format_p_value
from ..statistics.significance import bootstrap_p_note
from .labels import display_name, escape_label, name_positions, refuse_repeated_files
from .options import ON_EMPTY_HINT, check_ids_aligned, length_warning, paired_rows, read_all
from .tables import TABLE_FORMATS, left_out_line, render_latex, render_markdown

_PAIRED_FORMATS = ("lines", "paragraphs", "jsonl")


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


def _render(comparison: Any) -> None:
    percent = round(100 * comparison.confidence)
    ranks = comparison.ranks
    n_inputs = len(next(iter(comparison.systems.values())).scores)
    shown = {name: escape_label(name) for name in comparison.systems}  # a tab or newline in a name breaks no line
    width = max(len("system"), *(len(name) for name in shown.values()))
    click.echo(f"systems: {len(comparison.systems)}  inputs: {n_inputs}  ({percent}% CIs: paired bootstrap, "
               f"{comparison.bootstrap_resamples} resamples, seed {comparison.seed})")
    click.echo(f"rank  {'system':<{width}}  {'score':>10}  {percent}% CI")
    for name in comparison.ranking:
        result = comparison.systems[name]
        low, high = result.system_score_interval
        click.echo(f"{ranks[name]:>4}  {shown[name]:<{width}}  {result.system_score:10.4f}  [{low:.4f}, {high:.4f}]")
    click.echo("")
    click.echo(f"pairs: {len(comparison.pairs)} (A ranked above B; p-values two-sided, per pair, not corrected for "
               f"{len(comparison.pairs)} comparisons; randomization: {comparison.randomization_trials} trials)")
    click.echo(f"{'A':<{width}}  {'B':<{width}}  {'mean diff':>9}  {percent}% CI{'':<14}  {'A win rate':>10}  "
               f"{percent}% CI{'':<10}  {'p(boot)':>7}  {'p(rand)':>7}")
    for pair in comparison.pairs:
        diff_low, diff_high = pair.mean_difference_interval
        win_low, win_high = pair.win_rate_interval
        click.echo(f"{shown[pair.a]:<{width}}  {shown[pair.b]:<{width}}  {pair.mean_difference:+9.4f}  "
                   f"[{diff_low:+.4f}, {diff_high:+.4f}]  {pair.win_rate:10.3f}  [{win_low:.3f}, {win_high:.3f}]  "
                   f"{format_p_value(pair.p_value_bootstrap, comparison.bootstrap_resamples):>7}  "
                   f"{format_p_value(pair.p_value_randomization, comparison.randomization_trials):>7}")
    if _any_at_floor(comparison):
        click.echo(floor_note(comparison.bootstrap_resamples, comparison.randomization_trials))
    note = bootstrap_p_note(n_inputs)
    if note is not None:  # the p(boot) column holds "-": say why
        click.echo(f"-: {note}")
    for line in _disagreements(comparison):
        click.echo(line)


def _named_by_label(error: InputError, inputs: Dict[str, List[Any]]) -> InputError:
    """The scorer's "system 'a.txt': text 3 ..." as "a.txt:4 ..." (the label names the file and line)."""
    for label, items in inputs.items():
        prefix = f"system {label!r}: "
        if str(error).startswith(prefix):
            named = name_positions(str(error)[len(prefix):], [item.label for item in items])
            return InputError(named if named != str(error)[len(prefix):] else str(error))
    return error


def _any_at_floor(comparison: Any) -> bool:
    return any(at_floor(pair.p_value_bootstrap, comparison.bootstrap_resamples)
               or at_floor(pair.p_value_randomization, comparison.randomization_trials) for pair in comparison.pairs)


def compare_many(files: List[str], input_format: str, field: str, output_format: str, bootstrap_resamples: int,
                 randomization_trials: int, seed: int, build_scorer: Callable[[], Any],
                 names: Optional[Sequence[str]] = None, on_empty: str = "error",
                 id_field: Optional[str] = None) -> None:
    """Read every file (before the model loads), compare the systems, print in ``output_format``."""
    if input_format not in _PAIRED_FORMATS:
        raise InputError(f"comparing {len(files)} files needs one system's outputs per file: pass -i lines, "
                         "-i paragraphs or -i jsonl")
    inputs = read_systems(files, input_format, field, names=names, on_empty=on_empty, id_field=id_field)
    kept, left_out = drop_empty_inputs(inputs, on_empty)
    length_warning(kept)
    compare_inputs(kept, output_format, bootstrap_resamples, randomization_trials, seed, build_scorer,
                   left_out=left_out, on_empty=on_empty, all_inputs=inputs)


def _check_aligned(inputs: Dict[str, List[InputText]], counts: Dict[str, int], need: str,
                   id_field: Optional[str]) -> None:
    """Every system holds as many texts as the others (``counts``, by the name the error shows; ``need`` says why),
    and with ``id_field`` the i-th text of every system the same id."""
    if len(set(counts.values())) != 1:
        listed = ", ".join(f"{name} {count}" for name, count in counts.items())
        raise InputError(f"the systems have different numbers of texts ({listed}): {need}")
    check_ids_aligned(inputs, id_field)


def read_systems(files: List[str], input_format: str, field: str, needed_by: str = "a paired comparison",
                 names: Optional[Sequence[str]] = None, on_empty: Optional[str] = None,
                 id_field: Optional[str] = None, on_empty_choices: Optional[Sequence[str]] = None
                 ) -> Dict[str, List[InputText]]:
    """Each file's texts under its name (``names``, else its display name), read before any model loads: a file
    named twice is refused, every file must hold the same number of texts (``needed_by`` says what needs them in
    the error), and with ``id_field`` the i-th row of every file the same id."""
    refuse_repeated_files(files)
    names = list(names) if names else [display_name(path) for path in files]
    inputs = {name: read_all([path], input_format, field, on_empty, id_field, on_empty_choices)
              for name, path in zip(names, files)}
    counts = {display_name(path): len(items) for path, items in zip(files, inputs.values())}
    _check_aligned(inputs, counts, f"{needed_by} needs the same number, in the same order", id_field)
    return inputs


def read_grouped_systems(files: Sequence[str], input_format: str, field: str, group_by: str, on_empty: str,
                         id_field: Optional[str]) -> Dict[str, List[InputText]]:
    """Every system's texts from one JSONL file whose lines name their system in ``group_by`` (``compare`` and
    ``report --group-by``): at least two systems, the same number of texts each, aligned ids."""
    if len(files) != 1:
        raise InputError(f"--group-by reads every system from one JSONL file, got {len(files)} files")
    if input_format not in ("doc", "jsonl"):
        raise InputError(f"--group-by needs JSONL input (each line names its system), not -i {input_format}")
    try:
        groups = read_grouped_texts(files[0], field, group_by, on_empty, id_field)
    except EmptyTextError as error:
        raise EmptyTextError(f"{error} ({ON_EMPTY_HINT})") from None
    if len(groups) < 2:
        name = "<stdin>" if files[0] == "-" else files[0]
        raise InputError(f"{name} names {len(groups)} system in field {group_by!r}: a comparison needs at least 2")
    counts = {system: len(items) for system, items in groups.items()}
    _check_aligned(groups, counts, "a paired comparison needs the same number, the i-th text of every system "
                   "answering the same input", id_field)
    return groups


def drop_empty_inputs(inputs: Dict[str, List[InputText]], on_empty: str
                      ) -> Tuple[Dict[str, List[InputText]], List[int]]:
    """The systems' texts without the inputs where any system's text is empty (``--on-empty skip`` or ``nan``;
    said in one warning), and the positions left out."""
    sides, kept, _ = paired_rows(list(inputs.values()), on_empty)
    kept_set = set(kept)
    left_out = [index for index in range(len(next(iter(inputs.values())))) if index not in kept_set]
    return dict(zip(inputs, sides)), left_out


def compare_inputs(inputs: Dict[str, List[InputText]], output_format: str, bootstrap_resamples: int,
                   randomization_trials: int, seed: int, build_scorer: Callable[[], Any],
                   left_out: Sequence[int] = (), on_empty: str = "error",
                   all_inputs: Optional[Dict[str, List[InputText]]] = None) -> None:
    """Compare systems already read (one list of texts each, same length), print in ``output_format``.
    ``left_out``: positions in ``all_inputs`` (every input, before the empty ones were left out) not in
    ``inputs``; under ``--on-empty nan`` their rows are printed (TSV, JSON) with NaN/null scores."""
    systems: Dict[str, List[Any]] = {label: [item.text for item in items] for label, items in inputs.items()}
    try:
        comparison = build_scorer().compare_systems(systems, bootstrap_resamples=bootstrap_resamples, seed=seed,
                                                    randomization_trials=randomization_trials)
    except InputError as error:
        raise _named_by_label(error, inputs) from None
    every = all_inputs if (all_inputs is not None and on_empty == "nan") else inputs
    gone = set(left_out) if every is all_inputs else set()

    def rows(label: str) -> List[Tuple[InputText, float]]:
        scores = iter(comparison.systems[label].scores)
        return [(item, math.nan if index in gone else next(scores)) for index, item in enumerate(every[label])]

    if output_format == "json":
        data = comparison.to_dict()
        for label in inputs:
            data["systems"][label]["labels"] = [item.label for item, _ in rows(label)]
            if gone:
                data["systems"][label]["scores"] = [None if math.isnan(value) else value for _, value in rows(label)]
        if left_out and all_inputs is not None:
            first = next(iter(all_inputs.values()))
            data["on_empty"] = on_empty
            data["left_out"] = [{"label": first[index].label,
                                 "reason": next(items[index].empty for items in all_inputs.values()
                                                if items[index].empty is not None)} for index in left_out]
        click.echo(json.dumps(data, indent=2))
    elif output_format == "tsv":
        click.echo("system\tlabel\tscore")
        for label in inputs:
            for item, value in rows(label):
                click.echo(f"{escape_label(label)}\t{escape_label(item.label)}\t{value:.6f}")
        click.echo(f"signature: {comparison.signature}", err=True)
    elif output_format in TABLE_FORMATS:
        click.echo(render_markdown(comparison) if output_format == "markdown" else render_latex(comparison))
    else:
        _render(comparison)
        if left_out:
            total = len(next(iter(all_inputs.values()))) if all_inputs else len(left_out)
            click.echo(left_out_line(len(left_out), total, on_empty))
        click.echo(f"signature: {comparison.signature}")
