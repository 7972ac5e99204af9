"""Progress bars for long scoring jobs: one per pass over the texts, on stderr, only when asked for.

A score call makes up to two passes: the document model over length-sorted batches of token ids, then (for a
checkpoint with a sentence-level term) the sentence encoder over batches of distinct sentences, which on the default
takes about as long again. A bar over the first pass alone stopped at 100% and then sat still for as long, so each
pass has its own bar, named. A checkpoint with a transition term adds the transition model's pass, which prints
progress lines but shows no bar. tqdm comes with transformers (through huggingface-hub); it is imported only when a
bar is shown.

Without a bar (stderr not a terminal: a pipeline, a job log) a long run printed nothing for minutes. Inside
:func:`progress_lines` (the CLI enters it unless ``--quiet`` or a bar is shown) the running pass prints one plain line
on stderr whenever ``LINE_INTERVAL_S`` seconds have passed since the block's last line
(``coherence: documents: 120/400 batches (30%), 31 s``), and a last one when it ends if it printed any, so short runs
stay silent. The clock runs across passes: a run of many short passes (a compare scoring systems one after another,
each pass under the interval) still prints every ``LINE_INTERVAL_S`` seconds.

Inside :func:`progress_scope` bars and lines name what is being scored before the pass
(``coherence: system B (b.txt): documents: ...``): the CLI sets it while it scores each system of a comparison.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Optional, TypeVar

Item = TypeVar("Item")

DOCUMENTS = "coherence: documents"
SENTENCES = "coherence: sentences"
TRANSITIONS = "coherence: transitions"


LINE_INTERVAL_S = 30.0
"""Seconds between two progress lines (:func:`progress_lines`)."""


@dataclass
class _LineClock:
    """The interval of a :func:`progress_lines` block and when it last printed (or began), shared by its passes."""

    interval: float
    last: float


_lines: Optional[_LineClock] = None  # the clock of progress_lines when it is on, else None
_scope: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("coherence_metric_progress_scope",
                                                                       default=None)


@contextlib.contextmanager
def progress_lines(enabled: bool = True, interval: Optional[float] = None) -> Iterator[None]:
    """Within this block, passes without a bar print a progress line on stderr every ``interval`` seconds
    (default ``LINE_INTERVAL_S``), counted across passes; ``enabled`` False leaves them silent."""
    global _lines
    previous = _lines
    seconds = LINE_INTERVAL_S if interval is None else interval
    _lines = _LineClock(seconds, time.monotonic()) if enabled else None
    try:
        yield
    finally:
        _lines = previous


@contextlib.contextmanager
def progress_scope(name: str) -> Iterator[None]:
    """Within this block, bars and progress lines name ``name`` (``system B (b.txt)``) before their pass."""
    token = _scope.set(name)
    try:
        yield
    finally:
        _scope.reset(token)


def scoped(description: str) -> str:
    """``description`` (``coherence: documents``) naming the :func:`progress_scope` it runs in, if any:
    ``coherence: system B (b.txt): documents``."""
    scope = _scope.get()
    if scope is None:
        return description
    head, _, rest = description.partition(": ")
    return f"{head}: {scope}: {rest}"


def _line(description: str, done: int, total: int, started: float) -> None:
    percent = f" ({100 * done // total}%)" if total else ""
    print(f"{description}: {done}/{total} batches{percent}, {time.monotonic() - started:.0f} s", file=sys.stderr,
          flush=True)


def _with_lines(items: Iterable[Item], description: str, total: int, clock: _LineClock) -> Iterator[Item]:
    started = time.monotonic()
    done = 0
    printed = False
    for item in items:
        yield item
        done += 1
        now = time.monotonic()
        if now - clock.last >= clock.interval and done < total:
            _line(description, done, total, started)
            clock.last, printed = now, True
    if printed:
        _line(description, done, total, started)
        clock.last = time.monotonic()


def with_progress(items: Iterable[Item], enabled: bool, description: str, total: int) -> Iterator[Item]:
    """``items``, with a bar of ``total`` steps named ``description`` (and the :func:`progress_scope`) on stderr
    when ``enabled``; else, inside :func:`progress_lines`, a plain line now and then."""
    description = scoped(description)
    if not enabled:
        if _lines is not None:
            yield from _with_lines(items, description, total, _lines)
        else:
            yield from items
        return
    from tqdm.auto import tqdm

    bar: Any = tqdm(items, desc=description, total=total, unit="batch")
    try:
        yield from bar
    finally:
        bar.close()
