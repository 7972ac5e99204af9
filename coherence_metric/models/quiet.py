"""Silencing transformers' progress bars and info logs around our own loads, without changing them for good."""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator, Optional, Tuple

# The settings are process-wide, so quiet sections of several threads must act as one: the first to enter saves
# them, the last to leave restores them. Each section saving and restoring on its own (as before) left them
# changed when two overlapped: the second saved the first's ERROR and restored it after the first had left.
_lock = threading.Lock()
_open_sections = 0
_saved: Optional[Tuple[int, bool]] = None  # verbosity, progress bars on


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Hide transformers' weight-loading progress bars and info logs for one call, then restore them.

    A metric that prints bars on every load floods evaluation logs (COMET #85); changing the global
    setting for good would surprise the user's own transformers code, so it is restored afterwards, once
    every thread's quiet section has ended. Sections nest.
    """
    _enter()
    try:
        yield
    finally:
        _leave()


def _enter() -> None:
    global _open_sections, _saved
    from transformers.utils import logging as hf_logging

    with _lock:
        if _open_sections == 0:
            _saved = (hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled())
            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
        _open_sections += 1


def _leave() -> None:
    global _open_sections, _saved
    from transformers.utils import logging as hf_logging

    with _lock:
        _open_sections -= 1
        if _open_sections == 0 and _saved is not None:
            verbosity, bars_were_on = _saved
            _saved = None
            hf_logging.set_verbosity(verbosity)
            if bars_were_on:
                hf_logging.enable_progress_bar()


@contextlib.contextmanager
def peft_deprecation_hidden() -> Iterator[None]:
    """Hide the ``is_gradient_checkpointing`` deprecation that transformers raises when peft reads that attribute
    (wrapping a model in adapters, or loading them): it is about peft's code, not the user's input or recipe, and
    it was printed on every ``--model accurate`` load and every LoRA training run."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*")
        yield
