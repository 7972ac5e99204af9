"""``coherence-metric report A B [C ...] -o report.html`` (or ``report ALL.jsonl --group-by FIELD``): one
self-contained HTML page comparing systems."""

from __future__ import annotations

import math
import shlex
import sys
from typing import Any, Dict, List, Optional, Tuple

import click

from ..errors import InputError
from ..inputs.files import InputText
from ..scoring.progress import progress_scope
from ..settings import ScorerSettings
from ..statistics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, MAX_SEED, MIN_CLI_RESAMPLES
from ..statistics.significance import DEFAULT_TRIALS, MAX_TRIALS, MIN_CLI_TRIALS
from .compare_systems import PAIRED_FORMATS, drop_empty_inputs, read_grouped_systems, read_systems
from .comparison_output import SystemsOutput
from .group import cli
from .options import (
    OUTPUT_FORMATS,
    batch_options,
    build_scorer,
    label_option,
    length_warning,
    model_options,
    system_labels,
)
from .output import also_option, also_targets, write_also
from .saved import FROM_SCORES_HELP, given_or_saved, read_saved, refuse_scoring_options
from .scored import ScoredSystems, score_inputs

COMPARISON = "the comparison"
"""What ``report --also FORMAT=FILE`` writes, as its messages name it."""


def _read_systems(files: List[str], input_format: str, field: str, names: List[str], on_empty: str,
                  id_field: Optional[str], group_by: Optional[str]
                  ) -> Tuple[Dict[str, List[InputText]], Dict[str, List[InputText]], List[int]]:
    """Each system's texts by name (one file per system, or one JSONL file ``--group-by`` splits), counts agreeing;
    the same without the inputs with an empty text (``--on-empty skip``), and those inputs' positions."""
    if group_by is not None:
        inputs = read_grouped_systems(files, input_format, field, group_by, on_empty, id_field)
    else:
        inputs = read_systems(files, input_format, field, needed_by="a report", names=names, on_empty=on_empty,
                              id_field=id_field, on_empty_choices=("error", "skip"))
    kept, left_out = drop_empty_inputs(inputs, on_empty)
    length_warning(kept)
    return inputs, kept, left_out


def _row_labels(scored: ScoredSystems) -> List[str]:
    """The page's label of each input compared: the first system's id (``--id-field``), else its line number."""
    labels = [label for label, value in scored.rows[0] if not math.isnan(value)]
    if scored.id_field is not None:
        return labels
    return [label.rsplit(":", 1)[1] if ":" in label else label for label in labels]


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


def _from_scores(paths: List[str], labels: Tuple[str, ...], on_empty: str, stats: Tuple[int, int, int],
                 command: str) -> Tuple[SystemsOutput, Any]:
    """The comparison and the report of systems saved already: scores only, texts when the score files keep
    them, none shaded (that takes the model)."""
    from ..report import SystemsReport

    saved = read_saved(paths, labels, on_empty, shorten=True)
    result = SystemsOutput(saved.scored, *given_or_saved(saved.stats, stats))
    texts = dict(zip(saved.scored.names, saved.scored.texts or []))
    return result, SystemsReport(result.comparison, texts, labels=_row_labels(saved.scored), command=command)


@cli.command("report")
@click.argument("files", nargs=-1, required=True)
@click.option("--output", "-o", required=True, help="The HTML file to write (self-contained: open it from disk).")
@click.option("--input-format", "-i", type=click.Choice(PAIRED_FORMATS), default="lines", show_default=True,
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
@click.option("--from-scores", is_flag=True,
              help=FROM_SCORES_HELP + " The page then shows scores only, and the texts only if the score files "
                                      "keep them (score -f json --with-texts); none is shaded.")
@also_option(OUTPUT_FORMATS)
@model_options
def report_command(files: Tuple[str, ...], output: str, input_format: str, field: str, group_by: Optional[str],
                   explain_rows: int, title: Optional[str], bootstrap_resamples: int,
                   randomization_trials: int, seed: int, labels: Tuple[str, ...], on_empty: str,
                   id_field: Optional[str], from_scores: bool, also: Tuple[str, ...], model: str,
                   settings: ScorerSettings) -> None:
    """Write an HTML report comparing two or more systems' outputs on the same inputs (one file per system, or one
    JSONL file with --group-by): scores with intervals, ranking, every pair's win rate and p-values, histograms, and
    the inputs where they differ most, with the sentences explain flags marked. --also writes the comparison in
    other formats from the same scores; --from-scores reads scores saved already."""
    from ..report import check_writable, explain_systems

    paths = list(files)
    check_writable(output, inputs=paths)
    targets = also_targets(also, OUTPUT_FORMATS, paths, output, COMPARISON)
    stats = (bootstrap_resamples, randomization_trials, seed)
    arguments = sys.argv[1:] if sys.argv and sys.argv[0].endswith("coherence-metric") else \
        ["report", *paths, "-i", input_format, "-o", output]
    command = "coherence-metric " + " ".join(shlex.quote(argument) for argument in arguments)
    if from_scores:
        refuse_scoring_options("report")
        result, report = _from_scores(paths, labels, on_empty, stats, command)
    else:
        names = _systems_named(paths, labels, group_by)
        inputs, kept, left_out = _read_systems(paths, input_format, field, names, on_empty, id_field, group_by)
        scorer = build_scorer(model, settings)
        scored = score_inputs(scorer, list(inputs), list(kept.values()), list(inputs.values()), left_out, on_empty,
                              id_field, paths if group_by is None else [])
        result = SystemsOutput(scored, *stats)
        with progress_scope("explain"):
            report = explain_systems(scorer, result.comparison, dict(zip(scored.names, scored.texts or [])),
                                     labels=_row_labels(scored), explain_rows=explain_rows, command=command)
    path = report.write(output, title)
    write_also(targets, result.render, COMPARISON)
    if "tsv" in (fmt for fmt, _ in targets):
        click.echo(f"signature: {result.signature('tsv')}", err=True)
    ranking = report.comparison.ranking
    left = len(result.scored.left_out)
    skipped = f"; {left} left out, with an empty text" if left else ""
    click.echo(f"wrote {path} ({result.scored.n_inputs - left} inputs{skipped}, {len(ranking)} systems; ranking: "
               f"{', '.join(ranking)})")
    click.echo(f"signature: {report.comparison.signature}")
