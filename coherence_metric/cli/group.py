"""The root command group: what every command module attaches itself to, and its one-line errors.

A module of its own so that the command modules import the group from here and not from the package that imports
them (importing it from ``cli/__init__.py`` would make a circle of imports).
"""

from __future__ import annotations

from typing import Any, List, Optional

import click

from ..errors import CoherenceMetricError
from ..version import __version__
from .labels import one_line
from .lazy import LazyGroup

ERROR_EXIT_CODE = 2


class OneLineUsageError(click.UsageError):
    """A click usage error shown as one line (click prints usage, hint and error on four), exit status 2."""

    def show(self, file: Any = None) -> None:
        click.echo(f"coherence-metric: error: {self.format_message()}", file=file, err=file is None)


def _one_line(error: click.UsageError) -> click.UsageError:
    """The same error, its message on one line with where to find help; help itself (no arguments) passes."""
    if isinstance(error, (OneLineUsageError, click.exceptions.NoArgsIsHelpError)):
        return error
    message = " ".join(error.format_message().split()).rstrip(".")
    path = error.ctx.command_path if error.ctx is not None else "coherence-metric"
    return OneLineUsageError(f"{message} (see '{path} --help')", ctx=error.ctx)


class MetricGroup(LazyGroup):
    """The root group: turns CoherenceMetricError and click's usage errors into one line and exit status 2."""

    def make_context(self, info_name: Optional[str], args: List[str], parent: Optional[click.Context] = None,
                     **extra: Any) -> click.Context:
        """Parse the group's own options (``coherence-metric --bogus``): usage errors in one line."""
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as error:
            raise _one_line(error) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:  # an unknown command, or a subcommand's options and arguments
            raise _one_line(error) from None
        except CoherenceMetricError as error:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"coherence-metric: error: {one_line(str(error))}", err=True)  # one line, whatever it names
            ctx.exit(ERROR_EXIT_CODE)


@click.group(
    cls=MetricGroup,
    lazy_subcommands={"train": "coherence_metric.training.cli:train",
                      "benchmark": "coherence_metric.benchmarks.cli:benchmark"},
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


__all__ = ["ERROR_EXIT_CODE", "MetricGroup", "OneLineUsageError", "cli"]
