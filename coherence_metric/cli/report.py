"""``coherence-metric report A B [C ...] -o report.html`` (or ``report ALL.jsonl --group-by FIELD``): one
self-contained HTML page comparing systems."""

from __future__ import annotations

import shlex
import sys
from typing import Any, Dict, List, Optional, Tuple

import click

from ..errors import InputError
from ..settings import ScorerSettings
from ..statistics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, MAX_SEED, MIN_CLI_RESAMPLES
from ..statistics.significance import DEFAULT_TRIALS, MAX_TRIALS, MIN_CLI_TRIALS
from .compare_systems import drop_empty_inputs, read_grouped_systems, read_systems
from .group import cli
from .options import batch_options, build_scorer, label_option, length_warning, model_options, system_labels

_PAIRED_FORMATS = ("lines", "paragraphs", "jsonl")


def _read_systems(files: List[str], input_format: str, field: str, names: List[str], on_empty: str,
                  id_field: Optional[str], group_by: Optional[str]) -> Tuple[Dict[str, List[Any]], List[str], int]:
    """Each system's texts by name (one file per system, or one JSONL file ``--group-by`` splits), and the first
    system's labels (its line numbers, or the rows' ids); counts must agree. Inputs with an empty text are left out
    under ``--on-empty skip`` (their count last)."""
    if group_by is not None:
        inputs = read_grouped_systems(files, input_format, field, group_by, on_empty, id_field)
    else:
        inputs = read_systems(files, input_format, field, needed_by="a report", names=names, on_empty=on_empty,
                              id_field=id_field, on_empty_choices=("error", "skip"))
    inputs, left_out = drop_empty_inputs(inputs, on_empty)
    length_warning(inputs)
    first = next(iter(inputs.values()))
    labels = [item.label if id_field is not None else item.label.rsplit(":", 1)[1] if ":" in item.label
              else item.label for item in first]
    return {name: [item.text for item in items] for name, items in inputs.items()}, labels, len(left_out)


def _systems_named(files: List[str], labels: Tuple[str, ...], group_by: Optional[str]) -> List[str]:
    """The systems' names: ``--label`` or the files' short names; with ``--group-by``, one file and no labels (the
    field names the systems)."""
    if group_by is not None:
        if labels:
            raise InputError(f"--label names the systems of separate files: with --group-by the field {group_by!r} "
                             "names them")
        if len(files) != 1:
            raise InputError(f"--group-by reads every system from one JSONL file, got {len(files)} files")
        return []
    if len(files) < 2:
        raise InputError("a report compares two or more systems: give one file per system, or one JSONL file with "
                         "--group-by FIELD")
    return system_labels(files, labels, shorten=True)  # a.txt rather than runs/2026-11/outputs/a.txt


@cli.command("report")
@click.argument("files", nargs=-1, required=True)
@click.option("--output", "-o", required=True, help="The HTML file to write (self-contained: open it from disk).")
@click.option("--input-format", "-i", type=click.Choice(_PAIRED_FORMATS), default="lines", show_default=True,
              help="lines: one text per line; paragraphs: blank-line separated; jsonl: one JSON object per line. "
                   "Item i of every file is the same input.")
@click.option("--field", default="text", show_default=True, help="The jsonl field holding the text.")
@click.option("--group-by", default=None, metavar="FIELD",
              help="Read every system from one JSONL file (-i jsonl): FIELD names the system that wrote each line "
                   "(the i-th line of each system answers input i), as in compare.")
@click.option("--explain-rows", type=click.IntRange(min=0), default=100, show_default=True,
              help="Inputs (largest difference first) whose texts get per-transition scores and shading.")
@click.option("--title", default=None, help="The page's heading [default: Coherence report].")
@click.option("--bootstrap", "bootstrap_resamples", type=click.IntRange(MIN_CLI_RESAMPLES, MAX_RESAMPLES),
              default=DEFAULT_RESAMPLES, show_default=True, help="Paired-bootstrap resamples.")
@click.option("--trials", "randomization_trials", type=click.IntRange(MIN_CLI_TRIALS, MAX_TRIALS),
              default=DEFAULT_TRIALS, show_default=True, help="Approximate-randomization trials.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=DEFAULT_SEED, show_default=True,
              help="Seed of the bootstrap and the randomization test.")
@label_option
@batch_options("An empty text (an empty or null JSONL field, an empty line, one of invisible characters only): "
               "error = stop before scoring, naming it; skip = leave that input out for every system, said with "
               "how many.", choices=("error", "skip"))
@model_options
def report_command(files: Tuple[str, ...], output: str, input_format: str, field: str, group_by: Optional[str],
                   explain_rows: int, title: Optional[str], bootstrap_resamples: int,
                   randomization_trials: int, seed: int, labels: Tuple[str, ...], on_empty: str,
                   id_field: Optional[str], model: str, settings: ScorerSettings) -> None:
    """Write an HTML report comparing two or more systems' outputs on the same inputs (one file per system, or one
    JSONL file with --group-by): scores with intervals, ranking, every pair's win rate and p-values, histograms, and
    the inputs where they differ most, with the sentences explain flags marked."""
    from ..report import build_report, check_writable

    paths = list(files)
    check_writable(output, inputs=paths)
    names = _systems_named(paths, labels, group_by)
    systems, row_labels, left_out = _read_systems(paths, input_format, field, names, on_empty, id_field, group_by)
    scorer = build_scorer(model, settings)
    arguments = sys.argv[1:] if sys.argv and sys.argv[0].endswith("coherence-metric") else \
        ["report", *paths, "-i", input_format, "-o", output]
    command = "coherence-metric " + " ".join(shlex.quote(argument) for argument in arguments)
    report = build_report(scorer, systems, labels=row_labels, explain_rows=explain_rows,
                          bootstrap_resamples=bootstrap_resamples, seed=seed,
                          randomization_trials=randomization_trials, command=command)
    path = report.write(output, title)
    ranking = report.comparison.ranking
    skipped = f"; {left_out} left out, with an empty text" if left_out else ""
    click.echo(f"wrote {path} ({len(row_labels)} inputs{skipped}, {len(ranking)} systems; ranking: "
               f"{', '.join(ranking)})")
    click.echo(f"signature: {report.comparison.signature}")
