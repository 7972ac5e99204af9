"""Progress bars for long scoring jobs: one per pass over the texts, on stderr, only when asked for.

A score call makes up to two passes: the document model over length-sorted batches of token ids, then (for a
checkpoint with a sentence-level term) the sentence encoder over batches of distinct sentences, which on the default
takes about as long again. A bar over the first pass alone stopped at 100% and then sat still for as long, so each
pass has its own bar, named. tqdm comes with transformers (through huggingface-hub); it is imported only when a
bar is shown.

Without a bar (stderr not a terminal: a pipeline, a job log) a long run printed nothing for minutes. Inside
:func:`progress_lines` (the CLI enters it unless ``--quiet`` or a bar is shown) each pass prints one plain line on
stderr at most every ``LINE_INTERVAL_S`` seconds (``coherence: documents: 120/400 batches (30%), 31 s``), and a last
one when it ends if it printed any, so short runs stay silent.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any, Iterable, Iterator, Optional, TypeVar

Item = TypeVar("Item")

DOCUMENTS = "coherence: documents"
SENTENCES = "coherence: sentences"


LINE_INTERVAL_S = 30.0
"""Seconds between two progress lines of one pass (:func:`progress_lines`)."""

_lines: Optional[float] = None  # the interval of progress_lines when it is on, else None


@contextlib.contextmanager
def progress_lines(enabled: bool = True, interval: Optional[float] = None) -> Iterator[None]:
    """Within this block, passes without a bar print a progress line on stderr every ``interval`` seconds
    (default ``LINE_INTERVAL_S``); ``enabled`` False leaves them silent."""
    global _lines
    previous = _lines
    _lines = (LINE_INTERVAL_S if interval is None else interval) if enabled else None
    try:
        yield
    finally:
        _lines = previous


def _line(description: str, done: int, total: int, started: float) -> None:
    percent = f" ({100 * done // total}%)" if total else ""
    print(f"{description}: {done}/{total} batches{percent}, {time.monotonic() - started:.0f} s", file=sys.stderr,
          flush=True)


def _with_lines(items: Iterable[Item], description: str, total: int, interval: float) -> Iterator[Item]:
    started = last = time.monotonic()
    done = 0
    printed = False
    for item in items:
        yield item
        done += 1
        now = time.monotonic()
        if now - last >= interval and done < total:
            _line(description, done, total, started)
            last, printed = now, True
    if printed:
        _line(description, done, total, started)


def with_progress(items: Iterable[Item], enabled: bool, description: str, total: int) -> Iterator[Item]:
    """``items``, with a bar of ``total`` steps named ``description`` on stderr when ``enabled``; else, inside
    :func:`progress_lines`, a plain line now and then."""
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
