"""Reports of benchmark runs: Markdown tables beside the published numbers, JSON with every number, PNG charts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Union

from .cells import format_value, metric_rows, primary_value, ties_of
from .charts import plot_speed, plot_suite
from .files import report_stem, write_json, write_reports
from .speed_markdown import render_speed_markdown
from .suite_markdown import render_suite_markdown


def write_suite_reports(result: Mapping[str, Any], out_dir: Union[str, Path], chart: bool = True) -> dict[str, str]:
    """Write ``<suite>[_limitN].md/.json/.png`` of a suite run into ``out_dir`` and return their paths."""
    stem = report_stem(result["suite"], result.get("limit"))
    return write_reports(result, out_dir, stem, render_suite_markdown, plot_suite, chart=chart)


def write_speed_reports(result: Mapping[str, Any], out_dir: Union[str, Path]) -> dict[str, str]:
    """Write ``speed[_limitN].md/.json/.png`` of a speed run into ``out_dir`` and return their paths."""
    stem = report_stem("speed", result.get("limit"))
    return write_reports(result, out_dir, stem, render_speed_markdown, plot_speed)


__all__ = [
    "format_value",
    "metric_rows",
    "plot_speed",
    "plot_suite",
    "primary_value",
    "render_speed_markdown",
    "render_suite_markdown",
    "report_stem",
    "ties_of",
    "write_json",
    "write_reports",
    "write_speed_reports",
    "write_suite_reports",
]
