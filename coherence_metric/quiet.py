"""Silencing transformers' progress bars and info logs around our own loads, without changing them for good."""

from __future__ import annotations

import contextlib
from typing import Iterator


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Hide transformers' weight-loading progress bars and info logs for one call, then restore them.

    A metric that prints bars on every load floods evaluation logs (COMET #85); changing the global
    setting for good would surprise the user's own transformers code, so it is restored afterwards.
    """
    from transformers.utils import logging as hf_logging

    bars_were_on = hf_logging.is_progress_bar_enabled()
    verbosity = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars_were_on:
            hf_logging.enable_progress_bar()
