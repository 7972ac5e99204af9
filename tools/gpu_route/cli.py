"""``python -m tools.gpu_route ...``: the route's three commands (export-inputs, on-device, unpack-outputs).

A click group of its own rather than commands of ``coherence-metric train``: the route exists for one lender's device
machine and stays in the repository, so the installed command line keeps only what a user runs.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import click

from coherence_metric.errors import InputError

#: What usage lines and messages call this command line (it has no console script).
PROG_NAME = "python -m tools.gpu_route"


class RouteInputError(click.ClickException):
    """A bad option value or missing data: printed as one ``Error:`` line, exit status 2 like InputError."""

    exit_code = 2


def parse_overrides(values: Sequence[str], hint: str = "--set") -> Dict[str, Any]:
    """``KEY=VALUE`` strings as a dict of dotted keys to values read as YAML (``[bbc, lee]`` is a list), the form
    ``coherence-metric train run --set`` takes."""
    import yaml

    overrides = {}
    for value in values:
        key, separator, raw = value.partition("=")
        if not separator or not key:
            raise click.BadParameter(f"{value!r} is not KEY=VALUE (e.g. train.max_steps=200)", param_hint=hint)
        overrides[key] = yaml.safe_load(raw)
    return overrides


def parse_variant(spec: str) -> Tuple[str, Dict[str, Any]]:
    """``'NAME KEY=VALUE ...'``: a variant's name and its overrides."""
    name, *settings = spec.split()
    if not name or "=" in name:
        raise click.BadParameter(f"{spec!r} is not 'NAME KEY=VALUE ...' (e.g. 'wiki data.corpora=[bbc,wiki]')",
                                 param_hint="--variant")
    return name, parse_overrides(settings, "--variant")


@click.group(name="gpu_route")
def cli() -> None:
    """Train a pointwise or transition-model recipe on a lent GPU machine that has no data, backbone or network:
    export its inputs here, train them there, unpack what comes back here (docs/training.md, "Training on a lent
    GPU"). With a GPU of your own, run `coherence-metric train run RECIPE` instead."""


@cli.command("export-inputs")
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
def export_inputs(recipe: Path, out_dir: Path, overrides: List[str], max_sentences: int,
                  backbone_folder: Optional[Path], split_mb: float, continue_from: Optional[Path]) -> None:
    """Pack what a GPU machine needs to train RECIPE (a pointwise or transition_model recipe) and lacks: its
    documents, its dev ruler, an fp16 copy of its backbone and the checkpoints it starts from or learns from; says
    what each device call carries."""
    from .inputs import export_inputs as export
    from .inputs import size_report

    started = time.perf_counter()
    try:
        manifest = export(recipe, out_dir, parse_overrides(overrides), max_sentences, backbone_folder, split_mb,
                          continue_from)
    except InputError as error:
        raise RouteInputError(str(error)) from error
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


@cli.command("on-device")
@click.option("--inputs", "inputs_dir", required=True, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="The folder export-inputs wrote (carried by the call).")
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
    them into OUTPUT as parts the device tool brings back; run it with `python3 -m tools.gpu_route on-device` from
    the checkout's root, which needs no install."""
    from .on_device import run_on_device

    work = work_dir or Path(tempfile.mkdtemp(prefix="coherence-metric-gpu-"))
    try:
        result = run_on_device(inputs_dir, out_dir, work, deadline, [parse_variant(spec) for spec in variants],
                               parse_overrides(overrides), workers, not fixed_steps, device, parts_dirs)
    except InputError as error:
        raise RouteInputError(str(error)) from error
    for pick in result["picks"]:
        click.echo(json.dumps(pick))
    if result["left_out"]:
        click.echo(f"did not fit the return: {', '.join(result['left_out'])} (their dev records are in "
                   "result.json)")
    packed = result["archive"]["parts"] if result["archive"] else []
    click.echo(f"wrote {out_dir}: result.json{', ' + result['logs'] if result.get('logs') else ''}"
               f"{', ' + ', '.join(packed) if packed else ' (no snapshot after step 0: nothing packed)'} in "
               f"{result['seconds']:.0f} s")


@cli.command("unpack-outputs")
@click.argument("outputs", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--output", "-o", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the checkpoints, the logs and result.json (e.g. runs/gpu-1).")
def unpack_outputs(outputs: Path, out_dir: Path) -> None:
    """Check and unpack what an on-device call brought back (OUTPUTS: the folder its files came back to)."""
    from .on_device import unpack_outputs as unpack

    try:
        result = unpack(outputs, out_dir)
    except InputError as error:
        raise RouteInputError(str(error)) from error
    for folder in result["folders"]:
        click.echo(folder)
    if not result["folders"]:
        click.echo("no checkpoint came back (result.json says why)")


def main(argv: Optional[List[str]] = None) -> None:
    """Run the command line (``argv``: the arguments, default ``sys.argv[1:]``)."""
    cli.main(args=argv, prog_name=PROG_NAME)


__all__ = ["PROG_NAME", "RouteInputError", "cli", "main", "parse_overrides", "parse_variant"]
