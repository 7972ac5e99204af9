"""The Markdown report of ``--suite localisation``: top-1 / top-2 hit rates of the lowest transition per kind."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence


def _percent(value: Optional[float]) -> str:
    return "" if value is None else f"{100 * value:.1f}"


def _cell(cell: Mapping[str, Any], key: str) -> str:
    text = _percent(cell.get(key))
    interval = cell.get(f"{key}_interval")
    if text and interval:
        text += f" [{100 * interval[0]:.0f}, {100 * interval[1]:.0f}]"
    return text


def localisation_table(result: Mapping[str, Any], kinds: Optional[Sequence[str]] = None) -> list[str]:
    """The table's lines: one row per method, top-1 and top-2 per kind (percent, 95% interval)."""
    kinds = list(kinds or result["n_items"])
    header = ["Method"] + [f"{kind} top-1 ({result['n_items'][kind]})" for kind in kinds] + \
        [f"{kind} top-2" for kind in kinds]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (2 * len(kinds))]
    for row in result["rows"]:
        notes = (["explain's"] if row.get("auto") else []) + \
            ([f"= the {row['baseline']} baseline"] if row.get("baseline") else [])
        name = f"**{row['name']}**" if row.get("auto") else row["name"]
        if notes:
            name += f" ({'; '.join(notes)})"
        cells = [_cell(row["kinds"][kind], "top1") for kind in kinds] + \
            [_cell(row["kinds"][kind], "top2") for kind in kinds]
        lines.append("| " + " | ".join([name, *cells]) + " |")
    return lines


def render_localisation_markdown(result: Mapping[str, Any]) -> str:
    """The whole report: what was measured, the table, and whether the target is met."""
    model = result["model"]
    protocol = result["protocol"]
    lines = [
        f"# Localisation: {model['label']} ({result.get('split', 'test')} split)",
        "",
        f"Signature: `{model['signature']}`",
        "",
        f"Documents: {protocol['documents']}; {result['per_kind']} sampled, seed {result['seed']}.",
        "True break: " + protocol["true_break"] + ". " + protocol["hit"] + ". Random: " + protocol["random"] + ".",
        "Cells: hit rate in percent [95% bootstrap interval over texts].",
        "",
        *localisation_table(result),
        "",
    ]
    target = result.get("target") or {}
    if target.get("checked"):
        itself = target.get("is_cosine", False)
        verdicts = ", ".join(
            f"{kind} {entry['factor_over_random']:.1f}x random"
            + ("" if itself else f", {'above' if entry['above_cosine'] else 'not above'} cosine")
            for kind, entry in target["kinds"].items())
        line = (f"Target ({protocol['target']}) for {target['mechanism']}: "
                f"{'met' if target['met'] else 'NOT met'} ({verdicts}).")
        if itself:
            line += (f" {target['mechanism']} is the adjacent cosine itself, so it cannot be above it: the target's "
                     "second half is out of reach by construction for this mechanism.")
        lines.append(line)
        lines.append("")
    cache = result["cache"]
    lines.append(f"Run: {result['seconds']} s, cache hits {cache['hits']}, misses {cache['misses']}.")
    return "\n".join(lines) + "\n"
