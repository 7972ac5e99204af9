"""The Markdown report of ``benchmark summeval-correlation``: one row per scorer, the field's protocol first."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Union

from .files import report_stem, write_reports

#: (level, correlation, column header), in column order; the first two are the field's headline numbers.
COLUMNS = (
    ("summary", "spearman", "Summary ρ [95% CI]"),
    ("summary", "kendall", "Summary τ [95% CI]"),
    ("system", "kendall", "System τ"),
    ("dataset", "spearman", "Dataset ρ"),
    ("intra_system", "spearman", "Intra-system ρ"),
)


def format_correlation(cell: Optional[Mapping[str, Any]], interval: bool = False) -> str:
    """Format one correlation cell as ``0.526`` or ``0.526 [0.478, 0.570]``; empty when absent or undefined."""
    if not cell or cell.get("value") is None:
        return ""
    text = f"{cell['value']:.3f}"
    bounds = cell.get("interval")
    if interval and bounds:
        text += f" [{bounds[0]:.3f}, {bounds[1]:.3f}]"
    return text


def _cells(row: Mapping[str, Any]) -> list[str]:
    correlations = row.get("correlations", {})
    cells = [format_correlation(correlations.get(level, {}).get(kind), interval=level == "summary")
             for level, kind, _ in COLUMNS]
    pairwise = row.get("pairwise") or {}
    cells.append("" if pairwise.get("accuracy") is None else f"{100 * pairwise['accuracy']:.1f}")
    return cells


def render_correlation_markdown(result: Mapping[str, Any]) -> str:
    """Render a summeval-correlation result (the runner's dict, or its JSON read back) as Markdown."""
    model, data, protocol = result["model"], result["data"], result["protocol"]
    sample = "all articles" if result.get("limit") is None else f"a seeded sample of {result['limit']} articles"
    lines = [
        f"## SummEval expert coherence: {model['label']}",
        "",
        f"{data['texts']} summaries of {data['articles']} articles by {data['systems']} systems ({sample}); "
        f"rating: {data['rating']}; {data['pairs']} same-article pairs with different ratings. "
        f"{result.get('seconds', 0):.0f} s on {result.get('threads', '?')} torch threads.",
        "",
        f"Signature: `{model['signature']}`",
        "",
        "| Scorer | Kind | " + " | ".join(header for _, _, header in COLUMNS) + " | Pairwise acc. |",
        "|---|---|" + "---:|" * (len(COLUMNS) + 1),
    ]
    for index, row in enumerate(result["rows"]):
        name = f"**{row['name']}**" if index == 0 else row["name"]
        lines.append("| " + " | ".join([name, row["kind"], *_cells(row)]) + " |")
    lines += [
        "",
        f"- Summary level (the UniEval / G-Eval protocol): {protocol['summary']}; Kendall is {protocol['kendall']}.",
        f"- System level: {protocol['system']}. Dataset level: {protocol['dataset']}. "
        f"Intra-system (Steen & Markert): {protocol['intra_system']}.",
        f"- Intervals: {protocol['interval']}. Pairwise accuracy: {protocol['pairwise']}.",
        "- *published predictions*: per-summary scores released by Steen & Markert (2022), recomputed here by "
        "the same code; *published number*: as printed in the G-Eval paper (not recomputable here).",
        "- Read every model row against the trivial baselines (word count, sentence count, minus repeated "
        "trigrams): a metric that only learned length or repetition is not a coherence metric.",
    ]
    if result.get("per_system"):
        lines += ["", *_per_system_lines(result["per_system"], result["rows"][0]["name"])]
    return "\n".join(lines) + "\n"


#: The published measure kept beside the model in the per-system table: the shuffle-trained RoBERTa-large.
REFERENCE_ROW = "ccl-roberta-large-ours-cnndm (S&M)"


def _per_system_lines(table: Mapping[str, Any], model: str) -> list[str]:
    """The per-system table: experts' rank order, each system's mean and rank under the model (and the published
    RoBERTa-large where it was read), and each one's Kendall τ with the systems' mean length."""
    shown = [who for who in (model, REFERENCE_ROW) if who in table["length_kendall"]]
    length = table["length_kendall"]
    lines = [
        "### Per system",
        "",
        "Each system's mean over its summaries and its rank (1 = highest), in the experts' order; extractive "
        "systems take their sentences in order from the article. Kendall τ of the system means with the systems' "
        "mean length in words: "
        + ", ".join(f"{who} {length[who]:+.3f}" for who in ("experts", *shown)) + ".",
        "",
        "| System | Extractive | Words | Experts: mean (rank) | " + " | ".join(f"{who}: mean (rank)" for who in shown)
        + " |",
        "|---|---|---:|---:|" + "---:|" * len(shown),
    ]
    for row in table["systems"]:
        cells = [f"{row['system']} {row['name']}", "yes" if row["extractive"] else "", f"{row['words']:.1f}",
                 f"{row['experts']['mean']:.2f} ({row['experts']['rank']})",
                 *(f"{row[who]['mean']:+.3f} ({row[who]['rank']})" for who in shown)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def write_correlation_reports(result: Mapping[str, Any], out_dir: Union[str, Path]) -> dict[str, str]:
    """Write ``summeval-correlation[_limitN].md`` and ``.json`` into ``out_dir`` and return their paths."""
    stem = report_stem(result["suite"], result.get("limit"))
    return write_reports(result, out_dir, stem, render_correlation_markdown)
