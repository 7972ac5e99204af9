"""``coherence-metric score --ray IN -o OUT``: score a JSONL or Parquet dataset on a Ray cluster, write it back.

Everything a user can get wrong (no output folder, an output folder with files in it, a missing input, an input that
is neither JSONL nor Parquet, a missing text field, a bad row anywhere in the dataset) is checked on the driver before
a single actor starts (:mod:`coherence_metric.ray_inputs`), so it is one line naming the file and line, not a Ray task
traceback. Inputs and outputs are local paths or URIs Ray Data reads through pyarrow (``file://``, ``s3://``,
``gs://``...).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Callable, Iterator, List, Optional

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


def _input_kind(location: Any, input_format: str) -> str:
    from ..ray_inputs import is_folder

    if input_format == "jsonl":
        return "jsonl"
    if location.given.rstrip("/").endswith(".parquet") or is_folder(location):
        return "parquet"
    raise InputError(f"with --ray the input is JSONL (pass -i jsonl) or Parquet (a .parquet file or a folder of "
                     f"them), not {location.given} as -i {input_format}")


@contextlib.contextmanager
def _ray_logs(quiet: bool) -> Iterator[None]:
    """Ray's own INFO and WARNING lines on the terminal (cluster start, dataset plans, "execution finished", Ray Data's
    warnings) hidden under --quiet and restored afterwards; errors still print, and Ray's session log files keep every
    line.

    Importing Ray and Ray Data sets up their loggers and console handlers, levels included, so they are imported
    first: levels set before the import were overwritten by it, and every line printed."""
    if not quiet:
        yield
        return
    import ray.data  # noqa: F401  (sets up the "ray" and "ray.data" loggers; what follows must come after)

    handlers = _ray_console_handlers()
    levels = [handler.level for handler in handlers]
    for handler in handlers:
        handler.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for handler, level in zip(handlers, levels):
            handler.setLevel(level)


def _ray_console_handlers() -> List[logging.Handler]:
    """The handlers of Ray's loggers that write to the terminal (not to Ray's session log files)."""
    loggers = [logging.getLogger("ray")] + [logger for name, logger in logging.root.manager.loggerDict.items()
                                            if name.startswith("ray.") and isinstance(logger, logging.Logger)]
    handlers: List[logging.Handler] = []
    for logger in loggers:
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler) \
                    and handler not in handlers:
                handlers.append(handler)
    return handlers


def score_with_ray(files: List[str], input_format: str, field: str, output_dir: Optional[str],
                   ray_address: Optional[str], actors: Optional[int], model: str, settings: dict,
                   progress: bool, quiet: bool = False) -> None:
    """Check every row, then read, score on Ray, write; print where the output went and the signature the actors
    scored with (their dtype, the truncation count)."""
    from ..ray_inputs import check_jsonl, check_output, check_parquet, locate

    if len(files) != 1:
        raise InputError(f"--ray reads one dataset (a file or a folder), got {len(files)} paths")
    if output_dir is None:
        raise InputError("--ray writes a dataset: pass --output FOLDER")
    location = locate(files[0])
    kind = _input_kind(location, input_format)
    check_output(output_dir)
    (check_jsonl if kind == "jsonl" else check_parquet)(location, field)  # every row, before any Ray task
    with _ray_logs(quiet):
        _run_on_ray(location.given, kind, field, output_dir, ray_address, actors, model, settings, progress, quiet)


def _run_on_ray(path: str, kind: str, field: str, output_dir: str, ray_address: Optional[str],
                actors: Optional[int], model: str, settings: dict, progress: bool, quiet: bool) -> None:
    import ray

    from ..distributed import SignatureTally, score_dataset

    if not ray.is_initialized():
        ray.init(address=ray_address, log_to_driver=progress,
                 logging_level=logging.ERROR if quiet else logging.INFO)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = progress
    dataset = ray.data.read_json(path, lines=True) if kind == "jsonl" else ray.data.read_parquet(path)
    tally = SignatureTally.create()
    scored = score_dataset(dataset, column=field, model=model, actors=actors, tally=tally, **settings)
    if kind == "jsonl":
        scored.write_json(output_dir)
    else:
        scored.write_parquet(output_dir)
    signatures = ray.get(tally.signatures.remote())
    click.echo(f"wrote {kind} with a 'coherence' column to {output_dir}")
    if len(signatures) > 1:
        click.echo(f"the actors scored with {len(signatures)} different settings (mixed hardware): the scores are not "
                   "all comparable", err=True)
    for signature in signatures:
        click.echo(f"signature: {signature}")
