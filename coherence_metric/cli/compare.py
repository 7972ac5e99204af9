"""``coherence-metric compare A B [C ...]``: which of two texts is more coherent, or how two or more systems rank."""

from __future__ import annotations

import json
from typing import Any, Optional, Tuple

import click

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, MAX_SEED
from ..errors import InputError
from ..significance import DEFAULT_TRIALS, MAX_TRIALS
from . import cli
from .labels import display_name, errors_named_by_label, escape_label, refuse_repeated_files
from .options import build_scorer, input_options, model_options, read_all


def _render_single(result: Any, label_a: str, label_b: str) -> None:
    width = max(len(label_a), len(label_b))
    click.echo(f"A  {label_a:<{width}}  {result.score_a:10.4f}")
    click.echo(f"B  {label_b:<{width}}  {result.score_b:10.4f}")
    if result.winner == "tie":
        click.echo(f"winner: tie (scores within {result.tie_tolerance:g})")
    else:
        winner = label_a if result.winner == "a" else label_b
        click.echo(f"winner: {result.winner.upper()} ({winner}), more coherent by {abs(result.difference):.4f}")


def _render_paired(result: Any, label_a: str, label_b: str) -> None:
    low, high = result.win_rate_interval
    diff_low, diff_high = result.mean_difference_interval
    percent = round(100 * (result.confidence or 0.95))
    click.echo(f"A  {label_a}  system score {result.score_a:.4f}")
    click.echo(f"B  {label_b}  system score {result.score_b:.4f}")
    click.echo(f"pairs: {len(result.pair_winners)}  A wins {result.wins_a}  B wins {result.wins_b}  ties {result.ties}")
    click.echo(f"A win rate: {result.win_rate:.3f}  ({percent}% CI {low:.3f} to {high:.3f})")
    click.echo(f"mean difference A-B: {result.difference:+.4f}  ({percent}% CI {diff_low:+.4f} to {diff_high:+.4f})")
    click.echo(f"p-value (A and B differ): paired bootstrap {result.p_value_bootstrap:.4f}, "
               f"approximate randomization {result.p_value_randomization:.4f}")
    click.echo(f"winner: {result.winner.upper() if result.winner != 'tie' else 'tie'}")


@cli.command("compare")
@click.argument("file_a")
@click.argument("file_b")
@click.argument("more_files", nargs=-1)
@input_options
@click.option("--bootstrap", "bootstrap_resamples", type=click.IntRange(1, MAX_RESAMPLES), default=DEFAULT_RESAMPLES,
              show_default=True, help=f"Paired-bootstrap resamples (paired comparisons), at most {MAX_RESAMPLES}.")
@click.option("--trials", "randomization_trials", type=click.IntRange(1, MAX_TRIALS), default=DEFAULT_TRIALS,
              show_default=True, help=f"Approximate-randomization trials (paired comparisons), at most {MAX_TRIALS}.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=DEFAULT_SEED, show_default=True,
              help="Seed of the paired bootstrap and the randomization test (0 to 2**63 - 1).")
@model_options
def compare_command(file_a: str, file_b: str, more_files: Tuple[str, ...], input_format: str, field: str,
                    output_format: str, bootstrap_resamples: int, randomization_trials: int, seed: int, model: str,
                    revision: Optional[str], device: Optional[str], dtype: str, batch_size: int,
                    max_length: Optional[int], truncation: str, offline: bool, progress: bool) -> None:
    """Compare FILE_A with FILE_B: two texts (default), or two or more systems' outputs on the same inputs
    (--input-format lines/paragraphs/jsonl: item i of every file is the same input), with paired-bootstrap
    intervals and p-values (paired bootstrap, approximate randomization) for every pair."""
    if more_files:
        from .compare_systems import compare_many

        compare_many([file_a, file_b, *more_files], input_format, field, output_format, bootstrap_resamples,
                     randomization_trials, seed,
                     lambda: build_scorer(model, revision, device, dtype, batch_size, max_length, truncation, offline,
                                          progress))
        return
    refuse_repeated_files([file_a, file_b], allow_same_file=True)  # a file against itself is a tie check
    side_a = read_all([file_a], input_format, field)
    side_b = read_all([file_b], input_format, field)
    paired = input_format != "doc"
    if paired and len(side_a) != len(side_b):
        raise InputError(f"{file_a} has {len(side_a)} texts and {file_b} has {len(side_b)}: "
                         "a paired comparison needs the same number, in the same order")
    scorer = build_scorer(model, revision, device, dtype, batch_size, max_length, truncation, offline, progress)
    texts_a = [item.text for item in side_a]
    texts_b = [item.text for item in side_b]
    with errors_named_by_label([item.label for item in side_a + side_b]):
        if paired:
            result = scorer.compare(texts_a, texts_b, bootstrap_resamples=bootstrap_resamples, seed=seed,
                                    randomization_trials=randomization_trials)
        else:
            result = scorer.compare(texts_a[0], texts_b[0])
    label_a, label_b = display_name(file_a), display_name(file_b)
    if output_format == "json":
        data = result.to_dict()
        data.update({"a": label_a, "b": label_b})
        click.echo(json.dumps(data, indent=2))
        return
    if output_format == "tsv":
        click.echo("side\tlabel\tscore")
        for label, values in (("a", side_a), ("b", side_b)):
            scores = result.scores_a if label == "a" else result.scores_b
            for item, value in zip(values, scores):
                click.echo(f"{label}\t{escape_label(item.label)}\t{value:.6f}")
        click.echo(f"signature: {result.signature}", err=True)
        return
    (_render_paired if paired else _render_single)(result, escape_label(label_a), escape_label(label_b))
    click.echo(f"signature: {result.signature}")
