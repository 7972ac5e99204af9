"""Options shared by ``score`` and ``compare``: which model, where, how long, which input and output format."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import os
import sys
import warnings
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import click

from ..inputs import INPUT_FORMATS

OUTPUT_FORMATS = ("text", "json", "tsv", "markdown", "latex")
_quiet: contextvars.ContextVar[bool] = contextvars.ContextVar("coherence_metric_quiet", default=False)


def is_quiet() -> bool:
    """Whether the running command was given ``--quiet`` (a command that starts other libraries' logging, as Ray
    does, silences theirs too)."""
    return _quiet.get()


@contextlib.contextmanager
def output_mode(progress: Optional[bool]) -> Iterator[bool]:
    """Whether to show progress bars (``None``: when stderr is a terminal, so logs and pipes stay clean); with
    ``--quiet`` (False) warnings and the ``coherence_metric`` logger's messages below ERROR are silenced too, for
    this command only (errors still print)."""
    if progress is not False:
        yield sys.stderr.isatty() if progress is None else progress
        return
    logger = logging.getLogger("coherence_metric")
    level = logger.level
    token = _quiet.set(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logger.setLevel(logging.ERROR)
        try:
            yield False
        finally:
            logger.setLevel(level)
            _quiet.reset(token)


def _with_output_mode(function: Callable[..., Any]) -> Callable[..., Any]:
    """Run the command inside ``output_mode``, passing it the resolved ``progress`` (a bool)."""

    @functools.wraps(function)
    def wrapper(*args: Any, progress: Optional[bool] = None, **kwargs: Any) -> Any:
        with output_mode(progress) as show:
            return function(*args, progress=show, **kwargs)

    return wrapper


def model_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add the options that build a CoherenceScorer, and --progress/--quiet (the command receives ``progress``,
    resolved to a bool, and runs with warnings silenced under --quiet)."""
    function = _with_output_mode(function)
    decorators = [
        click.option("--model", "-m", default="default", show_default=True,
                     help="'default' (an alias), a packaged checkpoint's name (coherence-metric models), "
                          "a checkpoint folder, or a Hub repo id."),
        click.option("--revision", default=None, help="Hub revision (branch, tag or commit) for a repo id."),
        click.option("--device", default=None, help="cpu, cuda, cuda:N or mps [default: a GPU if there is one]."),
        click.option("--dtype", type=click.Choice(["auto", "fp32", "bf16", "fp16"], case_sensitive=False),
                     default="auto", show_default=True,
                     help="Compute dtype. auto = bf16 autocast on CPUs reporting AMX-BF16/AVX512-BF16 and on "
                          "GPUs with bf16, else fp32 ($COHERENCE_METRIC_DTYPE overrides it); the signature says "
                          "which. Pass fp32 to compare with fp32 numbers from other machines; fp16 is GPU-only."),
        click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True,
                     help="Most texts per forward pass."),
        click.option("--max-length", type=click.IntRange(min=8), default=None,
                     help="Most tokens per text [default: the checkpoint's]."),
        click.option("--truncation", type=click.Choice(["window", "warn", "error"]), default="window",
                     show_default=True,
                     help="Texts over --max-length: window = score overlapping sentence windows and average "
                          "them; warn = cut them (the paper's behaviour) and warn; error = refuse them."),
        click.option("--offline", is_flag=True, help="Never use the network (same as HF_HUB_OFFLINE=1)."),
        click.option("--progress/--quiet", "progress", default=None,
                     help="--progress: a progress bar per pass (document model, sentence encoder) on stderr "
                          "[default: when stderr is a terminal]; --quiet: no bars and no warnings (errors still "
                          "print)."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def input_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add the input and output format options."""
    return _input_options(function, OUTPUT_FORMATS)


def input_options_for(output_formats: Sequence[str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The input and output format options, for a command whose output comes in ``output_formats`` only
    (``diagnose`` prints a report, which has no one-row-per-text TSV form)."""
    return lambda function: _input_options(function, tuple(output_formats))


def _format_help(output_formats: Tuple[str, ...]) -> str:
    """The ``--format`` help, naming the table formats only where the command has them (``explain --help`` promised
    markdown and latex, which it refused)."""
    if {"markdown", "latex"} <= set(output_formats):
        return "Output format (markdown and latex: tables to paste into a README or a paper)."
    return "Output format."


def _input_options(function: Callable[..., Any], output_formats: Tuple[str, ...]) -> Callable[..., Any]:
    decorators = [
        click.option("--input-format", "-i", type=click.Choice(INPUT_FORMATS), default="doc", show_default=True,
                     help="doc: a file is one text; lines: one text per line; paragraphs: blank-line "
                          "separated; jsonl: one JSON object per line."),
        click.option("--field", default="text", show_default=True,
                     help="The jsonl field holding the text (a string or a list of sentences)."),
        click.option("--format", "-f", "output_format", type=click.Choice(output_formats), default="text",
                     show_default=True, help=_format_help(output_formats)),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def bf16_hint(requested_dtype: str, resolved_dtype: str) -> Optional[str]:
    """The one-line note for a run where ``--dtype auto`` chose bf16 by itself: the numbers are fine to read, but
    the setting to report (and to compare across machines) is fp32. None when the user chose the dtype."""
    from ..runtime import DTYPE_ENV_VAR

    if requested_dtype.lower() != "auto" or resolved_dtype != "bf16" or os.environ.get(DTYPE_ENV_VAR, "").strip():
        return None
    return ("scored in bf16 (--dtype auto on hardware with native bf16; the signature says dtype:bf16): fp32 is the "
            "setting for numbers in a paper or compared across machines, pass --dtype fp32")


def build_scorer(model: str, revision: Optional[str], device: Optional[str], dtype: str, batch_size: int,
                 max_length: Optional[int], truncation: str, offline: bool, progress: bool = False) -> Any:
    """Build the scorer the options describe (imports torch, so only after the inputs have been read)."""
    from ..scorer import CoherenceScorer

    scorer = CoherenceScorer(
        model,
        device=device,
        dtype=dtype,
        batch_size=batch_size,
        max_length=max_length,
        truncation=truncation,
        revision=revision,
        local_files_only=offline,
        progress=progress,
    )
    hint = bf16_hint(dtype, scorer.dtype)
    if hint:
        warnings.warn(hint, stacklevel=2)  # a warning, so --quiet silences it with the others
    return scorer


def read_all(paths: List[str], input_format: str, field: str) -> List[Any]:
    """Read every input file before any model loads, so a typo fails in milliseconds."""
    from ..inputs import read_texts

    texts: List[Any] = []
    for path in paths:
        texts.extend(read_texts(path, input_format, field))
    return texts
