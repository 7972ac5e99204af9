"""PNG bar charts of a suite run and of a speed run, drawn with matplotlib's object API on the Agg canvas.

matplotlib is imported only here and only when a chart is drawn (no pyplot, no global backend switch), so the
benchmarks package imports without it and a missing matplotlib costs only the chart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Union

from .cells import primary_value


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(figure)
    return figure


def _grouped_bars(axes: Any, labels: list[str], series: list[tuple[str, list[Optional[float]], dict]]) -> None:
    width = 0.85 / max(len(series), 1)
    for number, (name, values, style) in enumerate(series):
        positions = [index + (number - (len(series) - 1) / 2) * width for index in range(len(labels))]
        heights = [0.0 if value is None else value for value in values]
        axes.bar(positions, heights, width=width, label=name, **style)
    axes.set_xticks(range(len(labels)))
    axes.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)


def plot_suite(result: Mapping[str, Any], path: Union[str, Path]) -> Path:
    """Draw every system's headline number per test set beside the paper's full model (hatched).

    LMVLM's alpha is scaled by 100 to share the accuracy axis, as the paper's figures do.

    Args:
        result: a suite result.
        path: the PNG file to write.

    Returns:
        The path written.
    """
    rows = result["test_sets"]
    labels = [row["name"] + (" (α×100)" if row["metric"] == "lmvlm_agreement" else "")
              + (" ‡" if (row.get("published") or {}).get("stand_in") else "") for row in rows]
    series: list[tuple[str, list[Optional[float]], dict]] = []
    for system in result["systems"]:
        values = []
        for row in rows:
            cell = row["results"].get(system["name"])
            value = None if cell is None else primary_value(cell, row["metric"])
            values.append(None if value is None else value * (100.0 if row["metric"] == "lmvlm_agreement" else 1.0))
        series.append((system["name"], values, {}))
    paper = []
    for row in rows:
        published = row.get("published") or {}
        value = published.get("full_model")
        paper.append(None if value is None else float(value) * (100.0 if row["metric"] == "lmvlm_agreement" else 1.0))
    series.append(("paper: full model (‡ other set)", paper, {"hatch": "//", "fill": False, "edgecolor": "black"}))
    figure = _figure(max(7.0, 1.1 * len(rows) + 3), 4.8)
    axes = figure.add_subplot(1, 1, 1)
    _grouped_bars(axes, labels, series)
    axes.axhline(50.0, color="grey", linewidth=0.6, linestyle=":")
    lowest = min([0.0] + [value for _, values, _ in series for value in values if value is not None])
    axes.set_ylim(min(0.0, lowest - 5.0), 105)
    axes.axhline(0.0, color="black", linewidth=0.6)
    axes.set_ylabel("accuracy % (LMVLM: alpha × 100)")
    title = f"{result['suite']} suite: {result['model']['label']}"
    if result.get("limit") is not None:
        title += f" [limit {result['limit']}]"
    axes.set_title(title, fontsize=10, pad=22)
    # Above the bars: below them, long rotated test-set names (the probes') ran into it.
    axes.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(series), frameon=False)
    figure.tight_layout()
    return _save(figure, path)


def plot_speed(result: Mapping[str, Any], path: Union[str, Path]) -> Path:
    """Draw documents per second of each configuration per text set (log scale: the gap spans decades).

    Args:
        result: a speed result (``run_speed``'s dict).
        path: the PNG file to write.

    Returns:
        The path written.
    """
    sets = result["sets"]
    labels = [row["name"] for row in sets]
    names = list(result["configurations"])
    series: list[tuple[str, list[Optional[float]], dict]] = [
        (result["configurations"][name], [row["runs"].get(name, {}).get("docs_per_second") for row in sets], {})
        for name in names
    ]
    figure = _figure(max(6.0, 1.4 * len(sets) + 3), 4.2)
    axes = figure.add_subplot(1, 1, 1)
    _grouped_bars(axes, labels, series)
    axes.set_yscale("log")
    axes.set_ylabel("documents per second (log)")
    axes.set_title(f"scoring speed: {result['model']['label']} ({result['device']})", fontsize=10)
    axes.legend(fontsize=7, frameon=False)
    figure.tight_layout()
    return _save(figure, path)


def _save(figure: Any, path: Union[str, Path]) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(target)
    return target
