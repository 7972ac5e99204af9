"""``coherence-metric score FILE...``: one score per text, the mean, and the signature."""

from __future__ import annotations

import json
from typing import Any, List, Optional

import click

from . import cli
from .labels import errors_named_by_label, escape_label
from .options import build_scorer, input_options, is_quiet, model_options, read_all
from .score_ray import ray_options, score_with_ray


@cli.command("score")
@click.argument("files", nargs=-1, required=True)
@input_options
@ray_options
@model_options
def score_command(files: List[str], input_format: str, field: str, output_format: str, use_ray: bool,
                  output_dir: Optional[str], ray_address: Optional[str], actors: Optional[int], model: str,
                  revision: Optional[str], device: Optional[str], dtype: str, batch_size: int,
                  max_length: Optional[int], truncation: str, offline: bool, progress: bool) -> None:
    """Score the texts in FILES (use - for stdin); higher is more coherent. With --ray, score a JSONL or Parquet
    dataset on a Ray cluster and write it with a 'coherence' column to --output."""
    if use_ray:
        settings = {"device": device, "dtype": dtype, "batch_size": batch_size, "max_length": max_length,
                    "truncation": truncation, "revision": revision, "local_files_only": offline}
        score_with_ray(list(files), input_format, field, output_dir, ray_address, actors, model, settings, progress,
                       quiet=is_quiet())
        return
    inputs = read_all(list(files), input_format, field)
    scorer = build_scorer(model, revision, device, dtype, batch_size, max_length, truncation, offline, progress)
    labels = [item.label for item in inputs]
    with errors_named_by_label(labels):
        result = scorer.score([item.text for item in inputs])
    if output_format == "json":
        data: Any = result.to_dict()
        data["labels"] = labels
        click.echo(json.dumps(data, indent=2))
    elif output_format == "tsv":
        click.echo("label\tscore")
        for label, value in zip(labels, result.scores):
            click.echo(f"{escape_label(label)}\t{value:.6f}")
        click.echo(f"signature: {result.signature}", err=True)
    else:
        for label, value in zip(labels, result.scores):
            click.echo(f"{value:10.4f}  {escape_label(label)}")
        click.echo(f"system score: {result.system_score:.4f} (mean of {len(result.scores)} texts)")
        click.echo(f"signature: {result.signature}")
