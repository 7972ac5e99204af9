"""``coherence-metric score --ray IN -o OUT``: score a JSONL or Parquet dataset on a Ray cluster, write it back.

Everything a user can get wrong (no output folder, an output folder with files in it, a missing input, an input that
is neither JSONL nor Parquet, a missing text field) is checked on the driver before a single actor starts, so it is
one line, not a Ray task traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, List, Optional

import click

from ..errors import InputError


def ray_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options of ``score --ray``."""
    decorators = [
        click.option("--ray", "use_ray", is_flag=True,
                     help="Score a JSONL (-i jsonl) or Parquet (.parquet file or folder) dataset on Ray Data, one "
                          "scorer actor per worker slot; needs --output."),
        click.option("--output", "-o", "output_dir", default=None,
                     help="With --ray: the folder to write the scored dataset to (same format as the input)."),
        click.option("--ray-address", default=None,
                     help="With --ray: the cluster to join (ray://HOST:10001, or auto) [default: RAY_ADDRESS, else a "
                          "local cluster]."),
        click.option("--actors", type=click.IntRange(min=1), default=None,
                     help="With --ray: scorer actors, one CPU each [default: the cluster's CPUs less one, left to "
                          "reading and writing; actors on every CPU starve them and the job never ends]."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _input_kind(path: str, input_format: str) -> str:
    if input_format == "jsonl":
        return "jsonl"
    if path.endswith(".parquet") or Path(path).is_dir():
        return "parquet"
    raise InputError(f"with --ray the input is JSONL (pass -i jsonl) or Parquet (a .parquet file or a folder of "
                     f"them), not {path} as -i {input_format}")


def _check_output(output_dir: Optional[str]) -> None:
    if output_dir is None:
        raise InputError("--ray writes a dataset: pass --output FOLDER")
    folder = Path(output_dir)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{output_dir} exists and is not an empty folder: Ray would add its files to what is there")


def score_with_ray(files: List[str], input_format: str, field: str, output_dir: Optional[str],
                   ray_address: Optional[str], actors: Optional[int], model: str, settings: dict,
                   progress: bool) -> None:
    """Read, score on Ray, write; print where the output went and the signature."""
    if len(files) != 1:
        raise InputError(f"--ray reads one dataset (a file or a folder), got {len(files)} paths")
    path = files[0]
    if not Path(path).exists():
        raise InputError(f"{path}: no such file or folder")
    kind = _input_kind(path, input_format)
    _check_output(output_dir)
    import ray

    from ..distributed import dataset_signature, score_dataset

    if not ray.is_initialized():
        ray.init(address=ray_address, log_to_driver=progress)
    ray.data.DataContext.get_current().enable_progress_bars = progress
    dataset = ray.data.read_json(path, lines=True) if kind == "jsonl" else ray.data.read_parquet(path)
    columns = dataset.schema().names
    if field not in columns:
        raise InputError(f"{path} has no field {field!r} (its fields: {', '.join(columns)}; use --field)")
    scored = score_dataset(dataset, column=field, model=model, actors=actors, **settings)
    if kind == "jsonl":
        scored.write_json(output_dir)
    else:
        scored.write_parquet(output_dir)
    click.echo(f"wrote {kind} with a 'coherence' column to {output_dir}")
    click.echo(f"signature: {dataset_signature(model, **_signature_settings(settings))}")


def _signature_settings(settings: dict) -> dict:
    """The settings that name a signature (batch size never changes a score)."""
    names = ("device", "dtype", "max_length", "truncation", "revision", "local_files_only")
    return {key: settings[key] for key in names}
