"""``coherence-metric score --ray IN -o OUT``: score a JSONL or Parquet dataset on a Ray cluster, write it back.

Everything a user can get wrong (no output folder, an output folder with files in it, a missing input, an input that
is neither JSONL nor Parquet, a missing text field, a bad row anywhere in the dataset) is checked on the driver before
a single actor starts (:mod:`coherence_metric.inputs.ray_io`), so it is one line naming the file and line, not a Ray
task traceback. Inputs and outputs are local paths or URIs Ray Data reads through pyarrow (``file://``, ``s3://``,
``gs://``...). What only the job can find (a file changed after the check, an error raised on a worker) is turned
back into one line too, and what the failed job wrote is removed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import warnings
from typing import Any, Callable, Iterator, List, Optional

import click

from .. import errors
from ..distributed import SignatureTally, fitting_actors, score_dataset, score_json_lines
from ..errors import CoherenceMetricError, InputError
from ..inputs.ray_io import (
    JSONL_SUFFIXES,
    OUTPUT_COLUMN,
    PARQUET_SUFFIXES,
    _name,
    changed_file,
    check_jsonl,
    check_output,
    check_parquet,
    file_states,
    input_files,
    is_folder,
    json_lines_datasink,
    json_lines_datasource,
    locate,
    ray_filesystem,
)
from ..settings import ScorerSettings


def ray_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options of ``score --ray``."""
    decorators = [
        click.option("--ray", "use_ray", is_flag=True,
                     help="Score a JSONL (-i jsonl) or Parquet (.parquet file or folder) dataset on Ray Data, one "
                          "scorer actor per worker slot; needs --output."),
        click.option("--output", "-o", "output_dir", default=None, metavar="PATH",
                     help="Write the output to this file instead of stdout (the same bytes, in the --format; "
                          "replaced all or nothing). With --ray: the folder to write the scored dataset to (same "
                          "format as the input)."),
        click.option("--ray-address", default=None,
                     help="With --ray: the cluster to join (ray://HOST:10001, or auto) [default: RAY_ADDRESS, else a "
                          "local cluster]."),
        click.option("--actors", type=click.IntRange(min=1), default=None,
                     help="With --ray: scorer actors, one CPU each [default and most: the cluster's CPUs less one, "
                          "left to reading and writing; actors on every CPU starve them and the job never ends, so "
                          "more are cut to that, with a warning]."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _input_kind(location: Any, input_format: str) -> str:
    if input_format == "jsonl":
        return "jsonl"
    if location.given.rstrip("/").endswith(".parquet") or is_folder(location):
        return "parquet"
    raise InputError(f"with --ray the input is JSONL (pass -i jsonl) or Parquet (a .parquet file or a folder of "
                     f"them), not {location.given} as -i {input_format}")


class _FailedTaskFilter(logging.Filter):
    """Drops Ray Data's ERROR records announcing that a task failed ("An exception was raised from a task of
    operator ...", "Exception occurred in user code ..." and its stack): the failure comes back to ``score --ray`` as
    an exception, reported once, in one line where the input explains it (a traceback where it does not)."""

    PHRASES = ("An exception was raised from a task", "Exception occurred in user code")

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("ray.data") or record.levelno < logging.ERROR:
            return True
        message = str(record.msg)
        return not any(phrase in message for phrase in self.PHRASES)


@contextlib.contextmanager
def _ray_logs(quiet: bool) -> Iterator[None]:
    """Ray's own INFO and WARNING lines on the terminal (cluster start, dataset plans, "execution finished", Ray Data's
    warnings) hidden under --quiet and restored afterwards; errors still print, but for Ray Data's announcements of a
    failed task (:class:`_FailedTaskFilter`), and Ray's session log files keep every line.

    Importing Ray and Ray Data sets up their loggers and console handlers, levels included, so they are imported
    first: levels set before the import were overwritten by it, and every line printed."""
    import ray.data  # noqa: F401  (sets up the "ray" and "ray.data" loggers; what follows must come after)

    handlers = _ray_console_handlers()
    levels = [handler.level for handler in handlers]
    failed_tasks = _FailedTaskFilter()
    for handler in handlers:
        handler.addFilter(failed_tasks)
        if quiet:
            handler.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for handler, level in zip(handlers, levels):
            handler.removeFilter(failed_tasks)
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
                   ray_address: Optional[str], actors: Optional[int], model: str, settings: ScorerSettings,
                   progress: bool, quiet: bool = False) -> None:
    """Check every row, then read, score on Ray, write; print where the output went and the signature the actors
    scored with (their dtype, the truncation count)."""
    if len(files) != 1:
        raise InputError(f"--ray reads one dataset (a file or a folder), got {len(files)} paths")
    if output_dir is None:
        raise InputError("--ray writes a dataset: pass --output FOLDER")
    location = locate(files[0])
    kind = _input_kind(location, input_format)
    output = check_output(output_dir)
    output_existed = is_folder(output)  # an empty folder; else check_output found nothing there
    paths = input_files(location, JSONL_SUFFIXES if kind == "jsonl" else PARQUET_SUFFIXES)
    states = file_states(location, paths)  # before the check: an edit from here on is caught
    (check_jsonl if kind == "jsonl" else check_parquet)(location, field, OUTPUT_COLUMN)  # every row, before Ray
    with _ray_logs(quiet):
        try:
            _run_on_ray(location, paths, kind, field, output, ray_address, actors, model, settings, progress, quiet)
        except Exception as error:  # a Ray task failed: one line naming the input where the input explains it
            _remove_partial_output(output, output_existed)
            raise _input_error(error, location, states) from None


def _input_error(error: Exception, location: Any, states: dict) -> Exception:
    """The one-line error a failed Ray job stands for, or ``error`` itself when neither the input nor our own code
    explains it.

    A file edited after the driver's check would otherwise end in a 74-line Ray traceback and exit 1; it is named
    instead, with what went wrong on the worker (whose own error names the file and line)."""
    reason = _worker_error(error)
    changed = changed_file(location, states)
    if changed is not None:
        detail = str(reason) if reason is not None else _first_line(error)
        return InputError(f"{changed} changed after it was checked, while Ray was reading it ({detail}); nothing "
                          "was written: score it again once it no longer changes")
    if reason is not None:
        return type(reason)(f"{reason}; nothing was written")
    return error


_WORKER_ERROR = re.compile(r"^coherence_metric\.errors\.(\w+): (.+)$", re.MULTILINE)


def _worker_error(error: BaseException) -> Optional[CoherenceMetricError]:
    """The error of ours a Ray worker raised (an InputError naming a row, a CheckpointError...), found through
    Ray's wrappers (``RayTaskError``, Ray Data's ``UserCodeException``), or in the worker's traceback Ray passes on
    as text when the chain did not survive the trip between processes; None when there is none."""
    seen = set()
    pending: List[Any] = [error]
    while pending:
        current = pending.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, CoherenceMetricError) and type(current).__module__ == errors.__name__:
            return current
        pending.extend([getattr(current, "cause", None), current.__cause__, current.__context__])
    found = _WORKER_ERROR.findall(str(error))
    for name, message in reversed(found):
        kind = getattr(errors, name, None)
        if isinstance(kind, type) and issubclass(kind, CoherenceMetricError):
            return kind(message.strip())
    return None


def _first_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[0].strip() if lines else type(error).__name__


def _remove_partial_output(output: Any, existed: bool) -> None:
    """Remove what a failed job wrote: the output location was absent (removed again) or an empty folder (emptied
    again) when it was checked, so nothing of the user's is touched, and the command can be run again as it was."""
    import pyarrow.fs

    try:
        if output.filesystem.get_file_info(output.path).type != pyarrow.fs.FileType.Directory:
            return
        if existed:
            output.filesystem.delete_dir_contents(output.path)
        else:
            output.filesystem.delete_dir(output.path)
    except OSError:
        pass


@contextlib.contextmanager
def _quiet_ray_backend(quiet: bool) -> Iterator[None]:
    """Around ``ray.init`` under --quiet: Ray's C++ core prints nothing below FATAL on the terminal from then on.

    Its driver printed a ``core_worker.cc ... E`` line on every run ("constructor arguments in the object store and
    max_restarts > 0", about Ray Data's own actors, whose restarts we keep). The C++ core reads
    ``RAY_BACKEND_LOG_LEVEL`` when ``ray.init`` starts it, and says so in a line of its own, so the terminal's file
    descriptor points at the null device while it starts (an error is raised, not printed, and comes through; a
    local cluster started here writes to its session log files, which keep every line)."""
    if not quiet:
        yield
        return
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _run_on_ray(location: Any, paths: List[str], kind: str, field: str, output: Any, ray_address: Optional[str],
                actors: Optional[int], model: str, settings: ScorerSettings, progress: bool, quiet: bool) -> None:
    import ray

    if not ray.is_initialized():
        with _quiet_ray_backend(quiet):
            ray.init(address=ray_address, log_to_driver=progress,
                     logging_level=logging.ERROR if quiet else logging.INFO)
    actors, warning = fitting_actors(actors)
    if warning:
        warnings.warn(warning.replace("scorer actors", "scorer actors (--actors)", 1), stacklevel=2)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = progress
    filesystem = ray_filesystem(location)
    tally = SignatureTally.create()
    out_filesystem = ray_filesystem(output)
    if kind == "jsonl":
        names = {path: _name(location, path) for path in paths}
        dataset = ray.data.read_datasource(json_lines_datasource(paths, names, filesystem))
        scored = score_json_lines(dataset, field, OUTPUT_COLUMN, model, actors=actors, tally=tally, settings=settings)
        scored.write_datasink(json_lines_datasink(output.path, out_filesystem))
    else:
        dataset = ray.data.read_parquet(paths, filesystem=filesystem)
        scored = score_dataset(dataset, column=field, output_column=OUTPUT_COLUMN, model=model, actors=actors,
                               tally=tally, settings=settings)
        scored.write_parquet(output.path, filesystem=out_filesystem)
    signatures = ray.get(tally.signatures.remote())
    click.echo(f"wrote {kind} with a 'coherence' column to {output.given}")
    if len(signatures) > 1:
        click.echo(f"the actors scored with {len(signatures)} different settings (mixed hardware): the scores are not "
                   "all comparable", err=True)
    for signature in signatures:
        click.echo(f"signature: {signature}")
