"""The Markdown report of ``benchmark localisation``: top-1 / top-2 hit rates of the lowest transition per kind."""

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


def _signed(cell: Mapping[str, Any], key: str) -> str:
    interval = cell[f"{key}_interval"]
    return f"{100 * cell[key]:+.1f} [{100 * interval[0]:+.0f}, {100 * interval[1]:+.0f}]"


def difference_table(result: Mapping[str, Any], kinds: Optional[Sequence[str]] = None) -> list[str]:
    """Each method's top-1 / top-2 difference from the adjacent cosine on the same texts (paired bootstrap); no
    lines when no method has one."""
    kinds = list(kinds or result["n_items"])
    compared = [row for row in result["rows"] if row.get("vs_cosine")]
    if not compared:
        return []
    header = ["Method minus adjacent cosine"] + [f"{kind} top-{rank}" for rank in (1, 2) for kind in kinds]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (2 * len(kinds))]
    for row in compared:
        cells = [_signed(row["vs_cosine"][kind], "top1") for kind in kinds] + \
            [_signed(row["vs_cosine"][kind], "top2") for kind in kinds]
        lines.append("| " + " | ".join([row["name"], *cells]) + " |")
    return lines


def _one_in_transitions_line(result: Mapping[str, Any]) -> list[str]:
    random_row = next((row for row in result["rows"] if row["name"] == "random"), None)
    if random_row is None or "one_in_transitions" not in next(iter(random_row["kinds"].values())):
        return []
    cells = ", ".join(f"{kind} {100 * cell['one_in_transitions']:.1f}% ({cell['mean_transitions']:.1f} transitions, "
                      f"{cell['mean_breaks']:.1f} breaking)" for kind, cell in random_row["kinds"].items())
    return [f"Picking one given transition at random (1 / transitions): {cells}.", ""]


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
        *_one_in_transitions_line(result),
    ]
    differences = difference_table(result)
    if differences:
        lines += ["Paired differences from the adjacent cosine on the same texts (percentage points, 95% paired "
                  "bootstrap interval):", "", *differences, ""]
    target = result.get("target") or {}
    if target.get("checked"):
        itself = target.get("is_cosine", False)
        verdicts = ", ".join(
            f"{kind} {entry['factor_over_random']:.1f}x random"
            + ("" if itself else f", {'above' if entry['above_cosine'] else 'not above'} cosine")
            for kind, entry in target["kinds"].items())
        line = (f"Target ({protocol['target']}) for {target['mechanism']}: "
                f"{'met' if target['met'] else 'NOT met'} against the exact chance ({verdicts}).")
        if "met_one_in_transitions" in target:
            factors = ", ".join(f"{kind} {entry['factor_over_one_in_transitions']:.1f}x"
                                for kind, entry in target["kinds"].items())
            line += (f" Against 1 / transitions: {'met' if target['met_one_in_transitions'] else 'NOT met'} "
                     f"({factors}).")
        if itself:
            line += (f" {target['mechanism']} is the adjacent cosine itself, so it cannot be above it: the target's "
                     "second half is out of reach by construction for this mechanism.")
        lines.append(line)
        lines.append("")
    cache = result["cache"]
    lines.append(f"Run: {result['seconds']} s, cache hits {cache['hits']}, misses {cache['misses']}.")
    return "\n".join(lines) + "\n"
