"""Writing a run's reports into its output folder: ``<stem>.md``, ``<stem>.json`` and ``<stem>.png``."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

from coherence_metric.errors import CoherenceMetricError, InputError
from coherence_metric.toolkit import pip_install_hint, write_atomically

LOGGER = logging.getLogger("coherence_metric.benchmarks")


def write_json(result: Mapping[str, Any], path: Union[str, Path]) -> Path:
    """Write ``result`` as indented UTF-8 JSON and return the path; NaN is refused (a metric must be a number).

    The write is atomic (:func:`~coherence_metric.atomic_write.write_atomically`): a run killed while it rewrites
    its partial report leaves the previous one whole for ``--resume-from``, and a path that is no regular file (a
    FIFO, a device) is refused rather than replaced."""
    return write_text(path, _json_text(result, path), what="the report")


def _json_text(result: Any, path: Union[str, Path]) -> str:
    """``result`` as the report's JSON; a NaN or an infinity is refused in one line (JSON cannot hold it)."""
    try:
        return json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError as error:
        raise InputError(f"{path}: cannot write the report: {error} (a NaN or an infinity)") from None


def write_text(path: Union[str, Path], text: str, what: str = "the report") -> Path:
    """Write ``text`` to ``path`` all or nothing (its folder created) and return the path.

    Raises:
        InputError: one line naming ``path`` and the system's reason (a full disk: ENOSPC); the file that was
            there is left whole.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"{target}: cannot write {what} ({error.strerror or error})") from None
    write_atomically(target, text, what=what)
    return target


def write_script_output(path: Union[str, Path], text: str, what: str = "the output") -> Path:
    """:func:`write_text` for a script's ``--out``: a failure ends the script with one line on stderr naming the
    file (exit status 2) instead of a traceback."""
    try:
        return write_text(path, text, what)
    except CoherenceMetricError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def report_stem(name: str, limit: Any = None) -> str:
    """Return the file stem of a run's reports: the suite name, plus ``_limitN`` for a limited run."""
    return name if limit is None else f"{name}_limit{limit}"


def write_reports(
    result: Mapping[str, Any],
    out_dir: Union[str, Path],
    stem: str,
    render: Callable[[Mapping[str, Any]], str],
    plot: Optional[Callable[[Mapping[str, Any], Path], Path]] = None,
    chart: bool = True,
) -> dict[str, str]:
    """Write the Markdown, the chart (when asked and matplotlib is installed) and the JSON with their paths.

    Args:
        result: the run result.
        out_dir: the output folder (created if needed).
        stem: the file stem.
        render: result -> Markdown.
        plot: (result, path) -> path of the PNG; None for a report without a chart.
        chart: draw the PNG (skipped while a run is still going, to keep partial reports cheap).

    Returns:
        Paths written, keyed ``markdown``, ``json`` and ``png`` (when drawn).
    """
    folder = Path(out_dir)
    outputs = {"markdown": str(folder / f"{stem}.md"), "json": str(folder / f"{stem}.json")}
    _json_text(result, outputs["json"])  # a value JSON cannot hold is refused before any file is written
    write_text(folder / f"{stem}.md", render(result))
    if chart and plot is not None:
        try:
            outputs["png"] = str(plot(result, folder / f"{stem}.png"))
        except ImportError:
            LOGGER.warning("matplotlib is not installed: no chart (%s)", pip_install_hint("bench"))
    write_json({**result, "outputs": outputs}, folder / f"{stem}.json")
    return outputs
