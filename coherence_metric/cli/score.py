"""``coherence-metric score FILE...``: one score per text, the mean, and the signature."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import click

from ..errors import InputError
from ..inputs.lengths import word_count
from ..settings import ScorerSettings
from ..statistics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, MAX_SEED
from .group import cli
from .labels import display_name, errors_named_by_label, escape_label
from .options import (
    OUTPUT_FORMATS,
    batch_options,
    build_scorer,
    empty_note,
    input_options,
    is_quiet,
    model_options,
    read_all,
    split_empty,
)
from .output import also_option, also_targets, check_output_file, emit, write_also
from .score_ray import ray_options, score_with_ray
from .tables import plural, render_score_latex, render_score_markdown

SCORES = "the scores"
"""What ``score -o FILE`` writes, as its messages name it."""


@cli.command("score", short_help="Score texts: one score each, their mean and its interval.")
@click.argument("files", nargs=-1, required=True)
@input_options
@click.option("--bootstrap", "bootstrap_resamples", type=click.IntRange(0, MAX_RESAMPLES), default=DEFAULT_RESAMPLES,
              show_default=True,
              help=f"Bootstrap resamples of the texts for the system score's 95% interval, 0 to {MAX_RESAMPLES} "
                   "(0: no interval; one text has none).")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=DEFAULT_SEED, show_default=True,
              help="Seed of that bootstrap (0 to 2**63 - 1).")
@batch_options("An empty text (an empty or null JSONL field, an empty line, one of invisible characters only): "
               "error = stop before scoring, naming it; skip = leave it out; nan = print it with a NaN score "
               "(null in JSON), left out of the mean. skip and nan say how many.")
@click.option("--with-texts", is_flag=True,
              help="-f json: keep each text beside its score, for the HTML report of 'report --from-scores'.")
@also_option(OUTPUT_FORMATS)
@ray_options
@model_options
def score_command(files: List[str], input_format: str, field: str, output_format: str, bootstrap_resamples: int,
                  seed: int, on_empty: str, id_field: Optional[str], with_texts: bool, also: Tuple[str, ...],
                  use_ray: bool, output_dir: Optional[str], ray_address: Optional[str], actors: Optional[int],
                  model: str, settings: ScorerSettings) -> None:
    """Score the texts in FILES (use - for stdin); higher is more coherent. Prints each text's score and their mean
    (the system score) with a bootstrap interval, or writes them to --output FILE. With --ray, score a JSONL or
    Parquet dataset on a Ray cluster and write it with a 'coherence' column to --output FOLDER."""
    if use_ray:
        if on_empty != "error" or id_field is not None or also or with_texts:
            raise InputError("--on-empty, --id-field, --also and --with-texts are for scoring here; --ray reads the "
                             "dataset on the cluster (every row must hold a text) and keeps its columns, ids included")
        # the actors show no bars of their own: Ray's progress bars follow --progress
        score_with_ray(list(files), input_format, field, output_dir, ray_address, actors, model,
                       dataclasses.replace(settings, progress=False), settings.progress, quiet=is_quiet())
        return
    if output_dir is not None:
        check_output_file(output_dir, list(files), SCORES, folder_hint=" (a folder only with --ray)")
    targets = also_targets(also, OUTPUT_FORMATS, list(files), output_dir, SCORES)
    inputs = read_all(list(files), input_format, field, on_empty, id_field)
    scored, empty = split_empty(inputs)
    empty_note(empty, on_empty)
    scorer = build_scorer(model, settings)
    with errors_named_by_label([item.label for item in scored]):
        result = scorer.score([item.text for item in scored])
    if len(result.scores) > 1 and bootstrap_resamples > 0:
        result = result.with_system_score_interval(bootstrap_resamples, seed)
    shown = inputs if on_empty == "nan" else scored
    by_label = iter(result.scores)
    values = [math.nan if item.empty is not None else next(by_label) for item in shown]
    rows = _Shown(files, shown, values, id_field, with_texts)
    render = functools.partial(_render, result=result, shown=rows, empty=empty, on_empty=on_empty)
    emit(render(output_format), output_dir, SCORES)
    write_also(targets, render, SCORES)
    if "tsv" in (output_format, *(fmt for fmt, _ in targets)):
        click.echo(f"signature: {result.signature}", err=True)  # stdout (or the file) stays a clean table


@dataclass(frozen=True)
class _Shown:
    """The texts shown, by label, and what ``-f json`` keeps of them to be read back (``compare --from-scores``):
    the files, the id field, each text's length in words (the length note), the texts themselves if asked."""

    files: Sequence[str]
    items: List[Any]
    values: List[float]
    id_field: Optional[str]
    with_texts: bool

    @property
    def labels(self) -> List[str]:
        return [item.label for item in self.items]

    def saved(self) -> Dict[str, Any]:
        """The keys ``-f json`` adds for reading it back."""
        data: Dict[str, Any] = {"files": [display_name(path) for path in self.files]}
        if self.id_field is not None:
            data["id_field"] = self.id_field
        data["words"] = [word_count(item.text) for item in self.items]
        if self.with_texts:
            data["texts"] = [item.text for item in self.items]
        return data


def _render(output_format: str, result: Any, shown: _Shown, empty: List[Any], on_empty: str) -> str:
    """What ``score`` prints on stdout (or writes to ``-o FILE``) in ``output_format``, whole lines; TSV's signature
    goes to stderr apart."""
    labels, values = shown.labels, shown.values
    if output_format == "markdown":
        return render_score_markdown(labels, result, values) + "\n"
    if output_format == "latex":
        return render_score_latex(labels, result, values) + "\n"
    if output_format == "json":
        data: Any = result.to_dict()
        data["scores"] = [None if math.isnan(value) else value for value in values]
        data["labels"] = labels
        if empty:
            data["on_empty"] = on_empty
            data["empty"] = [{"label": item.label, "reason": item.empty} for item in empty]
        data.update(shown.saved())
        return json.dumps(data, indent=2) + "\n"
    if output_format == "tsv":
        header = escape_label(shown.id_field) if shown.id_field is not None else "label"
        rows = [f"{escape_label(label)}\t{value:.6f}" for label, value in zip(labels, values)]
        return "".join(line + "\n" for line in [f"{header}\tscore", *rows])
    lines = [f"{value:10.4f}  {escape_label(label)}" for label, value in zip(labels, values)]
    summary = f"system score: {result.system_score:.4f} (mean of {plural(len(result.scores), 'text')}"
    if empty:
        summary += (f"; {plural(len(empty), 'empty text')} "
                    f"{'left out' if on_empty == 'skip' else 'scored NaN, left out of the mean'}")
    if result.system_score_interval is not None:
        low, high = result.system_score_interval
        summary += (f"; {round(100 * (result.confidence or 0.95))}% CI {low:.4f} to {high:.4f}, bootstrap over "
                    "the texts")
    lines += [summary + ")", f"signature: {result.signature}"]
    return "".join(line + "\n" for line in lines)
