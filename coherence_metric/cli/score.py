"""``coherence-metric score FILE...``: one score per text, the mean, and the signature."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, List, Optional

import click

from ..errors import InputError
from ..settings import ScorerSettings
from ..statistics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, MAX_SEED
from .group import cli
from .labels import errors_named_by_label, escape_label
from .options import (
    batch_options,
    build_scorer,
    empty_note,
    input_options,
    is_quiet,
    model_options,
    read_all,
    split_empty,
)
from .score_ray import ray_options, score_with_ray
from .tables import plural, render_score_latex, render_score_markdown


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
@ray_options
@model_options
def score_command(files: List[str], input_format: str, field: str, output_format: str, bootstrap_resamples: int,
                  seed: int, on_empty: str, id_field: Optional[str], use_ray: bool, output_dir: Optional[str],
                  ray_address: Optional[str], actors: Optional[int], model: str, settings: ScorerSettings) -> None:
    """Score the texts in FILES (use - for stdin); higher is more coherent. Prints each text's score and their mean
    (the system score) with a bootstrap interval. With --ray, score a JSONL or Parquet dataset on a Ray cluster and
    write it with a 'coherence' column to --output."""
    if use_ray:
        if on_empty != "error" or id_field is not None:
            raise InputError("--on-empty and --id-field are for scoring here; --ray reads the dataset on the "
                             "cluster (every row must hold a text) and keeps its columns, ids included")
        # the actors show no bars of their own: Ray's progress bars follow --progress
        score_with_ray(list(files), input_format, field, output_dir, ray_address, actors, model,
                       dataclasses.replace(settings, progress=False), settings.progress, quiet=is_quiet())
        return
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
    labels = [item.label for item in shown]
    if output_format == "markdown":
        click.echo(render_score_markdown(labels, result, values))
    elif output_format == "latex":
        click.echo(render_score_latex(labels, result, values))
    elif output_format == "json":
        data: Any = result.to_dict()
        data["scores"] = [None if math.isnan(value) else value for value in values]
        data["labels"] = labels
        if empty:
            data["on_empty"] = on_empty
            data["empty"] = [{"label": item.label, "reason": item.empty} for item in empty]
        click.echo(json.dumps(data, indent=2))
    elif output_format == "tsv":
        click.echo("label\tscore")
        for label, value in zip(labels, values):
            click.echo(f"{escape_label(label)}\t{value:.6f}")
        click.echo(f"signature: {result.signature}", err=True)
    else:
        for label, value in zip(labels, values):
            click.echo(f"{value:10.4f}  {escape_label(label)}")
        summary = f"system score: {result.system_score:.4f} (mean of {plural(len(result.scores), 'text')}"
        if empty:
            summary += (f"; {plural(len(empty), 'empty text')} "
                        f"{'left out' if on_empty == 'skip' else 'scored NaN, left out of the mean'}")
        if result.system_score_interval is not None:
            low, high = result.system_score_interval
            summary += (f"; {round(100 * (result.confidence or 0.95))}% CI {low:.4f} to {high:.4f}, bootstrap over "
                        "the texts")
        click.echo(summary + ")")
        click.echo(f"signature: {result.signature}")
