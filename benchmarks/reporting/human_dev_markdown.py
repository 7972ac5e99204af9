"""The Markdown report of ``benchmark human-dev``: pairwise accuracy per set and half, Kendall, length-matched pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Union

from .files import report_stem, write_reports

DEV_SELECT, DEV_REPORT, ALL = "dev-select", "dev-report", "all"


def _percent(value: Optional[float]) -> str:
    return "" if value is None else f"{100 * value:.1f}"


def _with_interval(cell: Mapping[str, Any]) -> str:
    text = _percent(cell.get("accuracy"))
    interval = cell.get("interval")
    if text and interval:
        text += f" [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"
    return text


def _accuracy_table(result: Mapping[str, Any], half: str) -> list[str]:
    names = [entry["name"] for entry in result["sets"]]
    counts = [entry["halves"][half]["pairs"] for entry in result["sets"]]
    header = ["Scorer", *(f"{name} ({count} pairs)" for name, count in zip(names, counts)), "Mean [95% CI]"]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(names) + 1)]
    for index, row in enumerate(result["rows"]):
        name = f"**{row['name']}**" if index == 0 else row["name"]
        cells = [_percent(row["sets"][set_name][half]["accuracy"]) for set_name in names]
        lines.append("| " + " | ".join([name, *cells, _with_interval(row["mean"][half])]) + " |")
    return lines


def _detail_table(result: Mapping[str, Any], half: str) -> list[str]:
    names = [entry["name"] for entry in result["sets"]]
    header = ["Scorer", *(f"{name} τ" for name in names), *(f"{name} length-matched" for name in names)]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (2 * len(names))]
    for index, row in enumerate(result["rows"]):
        name = f"**{row['name']}**" if index == 0 else row["name"]
        taus = []
        for set_name in names:
            value = row["sets"][set_name][half]["kendall"]["value"]
            taus.append("" if value is None else f"{value:.3f}")
        matched = [f"{_percent(row['sets'][set_name][half]['length_matched_accuracy'])} "
                   f"(n={row['sets'][set_name][half]['n_length_matched']})" for set_name in names]
        lines.append("| " + " | ".join([name, *taus, *matched]) + " |")
    return lines


def render_human_dev_markdown(result: Mapping[str, Any]) -> str:
    """Render a human-dev result (the runner's dict, or its JSON read back) as Markdown."""
    model, protocol = result["model"], result["protocol"]
    sets = "; ".join(f"{entry['name']}: {entry['texts']} texts, {entry['notes'].get('pair_rule', '')}"
                     for entry in result["sets"])
    lines = [
        f"## Human-judged dev sets: {model['label']}",
        "",
        f"{sets}. {result.get('seconds', 0):.0f} s on {result.get('threads', '?')} torch threads.",
        "",
        f"Signature: `{model['signature']}`",
        "",
        "### Pairwise accuracy, dev-report half (report with this one)",
        "",
        *_accuracy_table(result, DEV_REPORT),
        "",
        "### Pairwise accuracy, dev-select half (choose recipes with this one)",
        "",
        *_accuracy_table(result, DEV_SELECT),
        "",
        "### Per-group Kendall τ and length-matched pairwise accuracy, dev-report half",
        "",
        *_detail_table(result, DEV_REPORT),
        "",
        f"- Pairs: {protocol['pairs']}. Kendall: {protocol['kendall']}.",
        f"- Length-matched: {protocol['length_matched']}. Halves: {protocol['halves']}.",
        f"- Intervals: {protocol['interval']} (the mean's: each set's groups resampled, accuracies averaged).",
        "- Read every model row against the trivial baselines: where word count wins, only the length-matched "
        "column says whether a metric sees more than length.",
    ]
    return "\n".join(lines) + "\n"


def write_human_dev_reports(result: Mapping[str, Any], out_dir: Union[str, Path]) -> dict[str, str]:
    """Write ``human-dev.md`` and ``.json`` into ``out_dir`` and return their paths."""
    return write_reports(result, out_dir, report_stem(result["suite"]), render_human_dev_markdown)
