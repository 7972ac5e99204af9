"""The ``coherence-metric`` command line: one small module per command, errors as one line on stderr.

A user mistake (missing file, empty text, bad model id, corrupt checkpoint, no network) prints one line
naming it and exits with status 2; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import warnings
from typing import Any, List, Optional

import click

from ..errors import CoherenceMetricError
from ..version import __version__
from .lazy import LazyGroup

ERROR_EXIT_CODE = 2


class MetricGroup(LazyGroup):
    """The root group: turns CoherenceMetricError into a one-line message and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CoherenceMetricError as error:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"coherence-metric: error: {error}", err=True)
            ctx.exit(ERROR_EXIT_CODE)


@click.group(
    cls=MetricGroup,
    lazy_subcommands={"train": "training.cli:train", "benchmark": "benchmarks.cli:benchmark"},
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="coherence-metric")
@click.option("--debug", is_flag=True, help="Show full tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Score how coherent texts are, compare two texts or two systems, manage checkpoints.

    Scores are comparative: higher is more coherent, and only differences between texts scored with the
    same signature mean anything.
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    click.echo(f"coherence-metric: warning: {message}", err=True)


def main(argv: Optional[List[str]] = None) -> None:
    """Console entry point: registers the commands, prints warnings as one line, runs click."""
    from . import compare, download, models, score  # noqa: F401  (registers the commands)

    warnings.showwarning = _show_warning
    cli.main(args=argv, prog_name="coherence-metric")
