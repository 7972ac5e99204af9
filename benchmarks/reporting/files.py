"""Writing a run's reports into its output folder: ``<stem>.md``, ``<stem>.json`` and ``<stem>.png``."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

LOGGER = logging.getLogger("coherence_metric.benchmarks")


def write_json(result: Mapping[str, Any], path: Union[str, Path]) -> Path:
    """Write ``result`` as indented UTF-8 JSON and return the path; NaN is refused (a metric must be a number)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
    return target


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
    folder.mkdir(parents=True, exist_ok=True)
    outputs = {"markdown": str(folder / f"{stem}.md"), "json": str(folder / f"{stem}.json")}
    (folder / f"{stem}.md").write_text(render(result), encoding="utf-8")
    if chart and plot is not None:
        try:
            outputs["png"] = str(plot(result, folder / f"{stem}.png"))
        except ImportError:
            LOGGER.warning("matplotlib is not installed: no chart (pip install 'coherence-metric[bench]')")
    write_json({**result, "outputs": outputs}, folder / f"{stem}.json")
    return outputs
