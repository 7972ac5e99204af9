"""``coherence-metric compare A B [C ...]``: which of two texts is more coherent, or how two or more systems rank.

Systems come one file each (``-i lines|paragraphs|jsonl``: item i of every file is the same input) or from one
JSONL file whose lines name their system (``--group-by system``).
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Any, Callable, List, Optional, Tuple

import click

from ..errors import InputError
from ..inputs.files import InputText
from ..settings import ScorerSettings
from ..statistics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, MAX_SEED, MIN_CLI_RESAMPLES
from ..statistics.p_values import at_floor, disagreement_note, floor_note, format_p_value
from ..statistics.significance import DEFAULT_TRIALS, MAX_TRIALS, MIN_CLI_TRIALS, bootstrap_p_note, mean_interval
from .compare_systems import compare_inputs, compare_many, drop_empty_inputs, read_grouped_systems
from .group import cli
from .labels import errors_named_by_label, escape_label, refuse_repeated_files
from .options import (
    batch_options,
    build_scorer,
    check_ids_aligned,
    input_options,
    label_option,
    length_warning,
    model_options,
    paired_rows,
    read_all,
    system_labels,
)
from .tables import TABLE_FORMATS, left_out_line

ON_EMPTY_HELP = ("An empty text (an empty or null JSONL field, an empty line, one of invisible characters only) in "
                 "a paired comparison: error = stop before scoring, naming it; skip = leave that input out for every "
                 "system (a pair needs both texts); nan = leave it out of every mean, win rate and p-value too, but "
                 "keep its rows in -f tsv/json with NaN (null) scores. skip and nan say how many.")


def _render_single(result: Any, label_a: str, label_b: str) -> None:
    width = max(len(label_a), len(label_b))
    click.echo(f"A  {label_a:<{width}}  {result.score_a:10.4f}")
    click.echo(f"B  {label_b:<{width}}  {result.score_b:10.4f}")
    if result.winner == "tie":
        click.echo(f"winner: tie (scores within {result.tie_tolerance:g})")
    else:
        winner = label_a if result.winner == "a" else label_b
        click.echo(f"winner: {result.winner.upper()} ({winner}), more coherent by {abs(result.difference):.4f}")


def _render_paired(result: Any, label_a: str, label_b: str, resamples: int, trials: int, seed: int) -> None:
    confidence = result.confidence or 0.95
    low, high = result.win_rate_interval
    diff_low, diff_high = result.mean_difference_interval
    percent = round(100 * confidence)
    for side, label, scores, value in (("A", label_a, result.scores_a, result.score_a),
                                       ("B", label_b, result.scores_b, result.score_b)):
        side_low, side_high = mean_interval(scores, resamples, seed, confidence)
        click.echo(f"{side}  {label}  system score {value:.4f}  ({percent}% CI {side_low:.4f} to {side_high:.4f})")
    click.echo(f"pairs: {len(result.pair_winners)}  A wins {result.wins_a}  B wins {result.wins_b}  ties {result.ties}")
    click.echo(f"A win rate: {result.win_rate:.3f}  ({percent}% CI {low:.3f} to {high:.3f})")
    click.echo(f"mean difference A-B: {result.difference:+.4f}  ({percent}% CI {diff_low:+.4f} to {diff_high:+.4f})")
    randomization = f"approximate randomization {format_p_value(result.p_value_randomization, trials)}"
    if result.p_value_bootstrap is None:  # too few inputs for a bootstrap p-value: say so rather than print one
        click.echo(f"p-value (A and B differ): {randomization}; {bootstrap_p_note(len(result.pair_winners))}")
    else:
        click.echo(f"p-value (A and B differ): paired bootstrap "
                   f"{format_p_value(result.p_value_bootstrap, resamples)}, {randomization}")
    if at_floor(result.p_value_bootstrap, resamples) or at_floor(result.p_value_randomization, trials):
        click.echo(floor_note(resamples, trials))
    note = disagreement_note(result.mean_difference_interval, result.p_value_bootstrap, result.p_value_randomization,
                             confidence, resamples, trials)
    if note:
        click.echo(note)
    click.echo(f"winner: {result.winner.upper() if result.winner != 'tie' else 'tie'}")


def _multi_line_hint(files: List[str], sides: List[List[InputText]]) -> None:
    """Two files read whole (``-i doc``) that each hold several lines are often two systems' outputs, one per
    line: say so in one line (silenced by --quiet) rather than compare two concatenations silently."""
    counts = [sum(1 for line in str(side[0].text).split("\n") if line.strip()) for side in sides]
    if min(counts) > 1:
        names = ["<stdin>" if path == "-" else path for path in files]
        warnings.warn(f"{names[0]} has {counts[0]} lines and {names[1]} has {counts[1]}, each compared as one text "
                      "(-i doc): one text per line? pass -i lines", stacklevel=2)


def _compare_two(label_a: str, side_a: List[InputText], label_b: str, side_b: List[InputText], paired: bool,
                 output_format: str, bootstrap_resamples: int, randomization_trials: int, seed: int,
                 make_scorer: Callable[[], Any], on_empty: str = "error", id_field: Optional[str] = None) -> None:
    if paired and len(side_a) != len(side_b):
        raise InputError(f"{label_a} has {len(side_a)} texts and {label_b} has {len(side_b)}: "
                         "a paired comparison needs the same number, in the same order")
    all_a, all_b = side_a, side_b
    kept: List[int] = list(range(len(side_a)))
    if paired:
        check_ids_aligned({label_a: side_a, label_b: side_b}, id_field)  # one file twice: one entry, aligned
        (side_a, side_b), kept, _ = paired_rows([side_a, side_b], on_empty)
        length_warning({label_a: side_a, label_b: side_b})
    kept_set = set(kept)
    left_out = [index for index in range(len(all_a)) if index not in kept_set]
    if output_format in TABLE_FORMATS:
        if not paired:
            raise InputError(f"-f {output_format} prints a table of systems: compare two systems' outputs on the same "
                             "inputs (-i lines, -i paragraphs or -i jsonl)")

        compare_inputs({label_a: side_a, label_b: side_b}, output_format, bootstrap_resamples, randomization_trials,
                       seed, make_scorer, left_out=left_out, on_empty=on_empty,
                       all_inputs={label_a: all_a, label_b: all_b})
        return
    scorer = make_scorer()
    texts_a = [item.text for item in side_a]
    texts_b = [item.text for item in side_b]
    with errors_named_by_label([item.label for item in side_a + side_b]):
        if paired:
            result = scorer.compare(texts_a, texts_b, bootstrap_resamples=bootstrap_resamples, seed=seed,
                                    randomization_trials=randomization_trials)
        else:
            result = scorer.compare(texts_a[0], texts_b[0])
    shown = list(range(len(all_a))) if on_empty == "nan" else kept
    position = {index: row for row, index in enumerate(kept)}
    values_a = [result.scores_a[position[index]] if index in position else math.nan for index in shown]
    values_b = [result.scores_b[position[index]] if index in position else math.nan for index in shown]
    if output_format == "json":
        data = result.to_dict()
        data.update({"a": label_a, "b": label_b})
        if paired:
            data["labels_a"] = [all_a[index].label for index in shown]
            data["labels_b"] = [all_b[index].label for index in shown]
        if left_out:
            data["on_empty"] = on_empty
            data["left_out"] = [{"a": all_a[index].label, "b": all_b[index].label,
                                 "reason": all_a[index].empty or all_b[index].empty} for index in left_out]
            if on_empty == "nan":
                data["scores_a"] = [None if math.isnan(value) else value for value in values_a]
                data["scores_b"] = [None if math.isnan(value) else value for value in values_b]
        click.echo(json.dumps(data, indent=2))
        return
    if output_format == "tsv":
        click.echo("system\tlabel\tscore")
        for label, side, values in ((label_a, all_a, values_a), (label_b, all_b, values_b)):
            for index, value in zip(shown, values):
                click.echo(f"{escape_label(label)}\t{escape_label(side[index].label)}\t{value:.6f}")
        click.echo(f"signature: {result.signature}", err=True)
        return
    if paired:
        _render_paired(result, escape_label(label_a), escape_label(label_b), bootstrap_resamples, randomization_trials,
                       seed)
        if left_out:
            click.echo(left_out_line(len(left_out), len(all_a), on_empty))
    else:
        _render_single(result, escape_label(label_a), escape_label(label_b))
    click.echo(f"signature: {result.signature}")


@cli.command("compare", short_help="Which text is more coherent, or rank 2+ systems with p-values.")
@click.argument("files", nargs=-1, required=True)
@input_options
@click.option("--group-by", default=None, metavar="FIELD",
              help="Read every system from one JSONL file: FIELD names the system that wrote each line (the i-th "
                   "line of each system answers input i).")
@click.option("--bootstrap", "bootstrap_resamples", type=click.IntRange(MIN_CLI_RESAMPLES, MAX_RESAMPLES),
              default=DEFAULT_RESAMPLES, show_default=True,
              help=f"Paired-bootstrap resamples (paired comparisons), {MIN_CLI_RESAMPLES} to {MAX_RESAMPLES}.")
@click.option("--trials", "randomization_trials", type=click.IntRange(MIN_CLI_TRIALS, MAX_TRIALS),
              default=DEFAULT_TRIALS, show_default=True,
              help=f"Approximate-randomization trials (paired comparisons), {MIN_CLI_TRIALS} to {MAX_TRIALS}.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=DEFAULT_SEED, show_default=True,
              help="Seed of the paired bootstrap and the randomization test (0 to 2**63 - 1).")
@label_option
@batch_options(ON_EMPTY_HELP)
@model_options
def compare_command(files: Tuple[str, ...], input_format: str, field: str, output_format: str,
                    group_by: Optional[str], bootstrap_resamples: int, randomization_trials: int, seed: int,
                    labels: Tuple[str, ...], on_empty: str, id_field: Optional[str], model: str,
                    settings: ScorerSettings) -> None:
    """Compare FILES: two texts (default: each file is one text), or two or more systems' outputs on the same
    inputs (--input-format lines/paragraphs/jsonl: item i of every file is the same input; or one JSONL file with
    --group-by FIELD), with paired-bootstrap intervals and p-values (paired bootstrap, approximate randomization)
    for every pair."""
    def make_scorer() -> Any:
        return build_scorer(model, settings)

    if group_by is not None:
        if labels:
            raise InputError(f"--label names the systems of separate files: with --group-by the field {group_by!r} "
                             "names them")
        groups = read_grouped_systems(files, input_format, field, group_by, on_empty, id_field)
    else:
        if len(files) < 2:
            raise InputError("compare needs two files (or one JSONL file with --group-by FIELD)")
        names = system_labels(files, labels)
        if len(files) > 2:
            compare_many(list(files), input_format, field, output_format, bootstrap_resamples, randomization_trials,
                         seed, make_scorer, names=names, on_empty=on_empty, id_field=id_field)
            return
        refuse_repeated_files(list(files), allow_same_file=True)  # a file against itself is a tie check
        paired = input_format != "doc"
        sides = [read_all([path], input_format, field, on_empty if paired else None, id_field) for path in files]
        if not paired:
            _multi_line_hint(list(files), sides)
        label_a, label_b = names
        _compare_two(label_a, sides[0], label_b, sides[1], paired, output_format, bootstrap_resamples,
                     randomization_trials, seed, make_scorer, on_empty, id_field)
        return
    if len(groups) > 2:
        kept, left_out = drop_empty_inputs(groups, on_empty)
        length_warning(kept)
        compare_inputs(kept, output_format, bootstrap_resamples, randomization_trials, seed, make_scorer,
                       left_out=left_out, on_empty=on_empty, all_inputs=groups)
        return
    (label_a, side_a), (label_b, side_b) = groups.items()
    _compare_two(label_a, side_a, label_b, side_b, True, output_format, bootstrap_resamples, randomization_trials,
                 seed, make_scorer, on_empty, id_field)
