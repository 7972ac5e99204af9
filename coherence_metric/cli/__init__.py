"""The ``coherence-metric`` command line: one small module per command, errors as one line on stderr.

A user mistake (missing file, empty text, bad model id, corrupt checkpoint, no network) prints one line
naming it and exits with status 2; ``--debug`` shows the traceback instead. So does a usage mistake (an unknown
option or command, a missing argument, a bad choice or value): click's usage block and hint become one line.
"""

from __future__ import annotations

import warnings
from typing import Any, List, Optional

import click

from .group import ERROR_EXIT_CODE, MetricGroup, OneLineUsageError, cli


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    click.echo(f"coherence-metric: warning: {message}", err=True)


def main(argv: Optional[List[str]] = None) -> None:
    """Console entry point: registers the commands, prints warnings as one line, runs click."""
    from . import commands  # noqa: F401  (registers the commands)

    warnings.showwarning = _show_warning
    cli.main(args=argv, prog_name="coherence-metric")


__all__ = ["ERROR_EXIT_CODE", "MetricGroup", "OneLineUsageError", "cli", "main"]
