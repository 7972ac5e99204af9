"""The Markdown report of a suite run: one row per test set (three for LMVLM), one column per system, and the
paper's published numbers beside them, with every caveat that makes a number differ in kind written below.
"""

from __future__ import annotations

from typing import Any, Mapping

from .cells import format_value, metric_rows, ties_of

STAND_IN_MARK = "‡"


def render_suite_markdown(result: Mapping[str, Any]) -> str:
    """Render a suite result (``run_suite``'s dict, or its JSON read back) as Markdown.

    Args:
        result: the run result.

    Returns:
        The Markdown text: a header line with the signature, the table, and notes.
    """
    systems = [system["name"] for system in result["systems"]]
    model = result["model"]
    title = f"## Benchmark `{result['suite']}`: {model['label']}"
    if result.get("partial"):
        title += " (partial: still running)"
    lines = [title, "", _summary_line(result), "", f"Signature: `{model['signature']}`", ""]
    lines.extend(table_lines(result, systems, bold_first=True))
    lines += ["", *notes_lines(result, systems)]
    return "\n".join(lines) + "\n"


def table_lines(result: Mapping[str, Any], systems: list[str], bold_first: bool = False) -> list[str]:
    """The results table: one row per test set (three for LMVLM), a column per system, then the paper's numbers.

    Args:
        result: a suite result (its ``test_sets``).
        systems: the system names to show, in column order.
        bold_first: set the first system's name in bold (the model under test).
    """
    names = [f"**{_escape(name)}**" if bold_first and index == 0 else _escape(name)
             for index, name in enumerate(systems)]
    header = ["Test set", "n", "Metric", *names, "Paper: full model", "Paper: No FT"]
    lines = ["| " + " | ".join(header) + " |", "|---|---:|---|" + "---:|" * (len(systems) + 2)]
    for row in result["test_sets"]:
        lines.extend(_rows(row, systems))
    return lines


def _summary_line(result: Mapping[str, Any]) -> str:
    limit = result.get("limit")
    sample = "all pairs" if limit is None else f"at most {limit} pairs per test set (seeded subset)"
    cache = result.get("cache", {})
    return (f"Model `{result['model']['spec']}`; seed {result['seed']}; {sample}; {result.get('seconds', 0):.0f} s "
            f"on {result.get('threads', '?')} torch threads (cache: {cache.get('hits', 0)} hits, "
            f"{cache.get('misses', 0)} misses){_resumed_text(result)}.")


def _resumed_text(result: Mapping[str, Any]) -> str:
    """How much of the run was taken from an earlier run's report (``--resume-from``), or nothing."""
    resumed = result.get("resumed") or {}
    names = resumed.get("test_sets") or []
    parts = resumed.get("parts") or {}
    text = ""
    if names:
        reports = ", ".join(f"`{path}`" for path in resumed["from"])
        text += (f"; {len(names)} test set(s) taken from earlier runs' reports ({reports}), where they took "
                 f"{resumed['seconds']:.0f} s of scoring ({', '.join(names)})")
    if parts:
        counts = ", ".join(f"{name} {count}" for name, count in parts.items())
        text += (f"; score parts another run had finished, taken from beside its report (per set: {counts}; a "
                 f"set's seconds include theirs)")
    return text


def _rows(row: Mapping[str, Any], systems: list[str]) -> list[str]:
    published = row.get("published")
    stand_in = bool(published and published.get("stand_in"))
    name = _escape(row["name"]) + (f" {STAND_IN_MARK}" if stand_in else "")
    if published and row["name"].startswith("PROBE-"):
        name += f" ({published['paper_test_set']})"
    lines = []
    for number, (key, label, scale) in enumerate(metric_rows(row["metric"])):
        cells = []
        for system in systems:
            cell = row["results"].get(system)
            if cell is None or cell.get(key) is None:
                cells.append("")
                continue
            text = format_value(float(cell[key]) * scale, scale)
            interval = cell.get("accuracy_interval") if key == "accuracy" else None
            if interval:
                text += f" [{interval[0] * scale:.1f}, {interval[1] * scale:.1f}]"
            ties = ties_of(cell)
            cells.append(text + (f" ({ties} ties)" if ties and number == 0 else ""))
        paper_full = paper_no_ft = ""
        if published and number == 0:
            paper_full = _published_cell(published.get("full_model"), scale, published, stand_in)
            paper_no_ft = _published_cell(published.get("no_ft"), scale, published, stand_in)
        lines.append(f"| {name} | {row['n']} | {label} | " + " | ".join(cells) + f" | {paper_full} | {paper_no_ft} |")
    return lines


def _published_cell(value: Any, scale: float, published: Mapping[str, Any], stand_in: bool) -> str:
    if value is None:
        return ""
    text = format_value(float(value), scale)
    return f"{text} ({published['paper_test_set']}) {STAND_IN_MARK}" if stand_in else text


def notes_lines(result: Mapping[str, Any], systems: list[str]) -> list[str]:
    """The caveats under the table: tie rule, paper sources, stand-ins, LMVLM, No FT, per-test-set facts."""
    notes = [
        "Notes:",
        "- Accuracy: share of pairs where score(pos) > score(neg); a tie (equal scores) counts as wrong and is "
        "shown as \"(N ties)\"; the JSON also gives accuracy excluding ties. [low, high]: 95% percentile "
        "bootstrap interval (1000 resamples, seed 12345) over groups of pairs sharing their positive text (one "
        "document's permutations or intrusions, one summary's pairs), the same draws for every system.",
        "- Paper columns: Jwalapuram et al. 2022, Table 1 (XLNet-base, mean of 5 seeds) and Table 3 (probes, "
        "full model; the paper gives no No FT probe numbers).",
    ]
    if any((row.get("published") or {}).get("stand_in") for row in result["test_sets"]):
        notes.append(f"- {STAND_IN_MARK} stand-in: the paper's test set is not available here (WSJ sections 14-24 are "
                     "LDC-licensed, INSTED-CNN was not released), so our own set is scored under its own name; the "
                     "published number, shown with the paper's set name, is on that other set and only indicates "
                     "the level.")
    if any(row["metric"] == "lmvlm_agreement" for row in result["test_sets"]):
        notes.append("- LMVLM: nominal Krippendorff's alpha with the model as a 4th coder beside the 3 annotator "
                     "rows (the paper's number); rows 0 and 1 are identical upstream, so alpha over rows 1-2 + "
                     "model is given too, and plain agreement with the annotators' majority label.")
    for system in result["systems"]:
        if system.get("note") and system["name"] in systems:
            notes.append(f"- {system['name']}: untrained head seeded {system.get('head_seed')} on "
                         f"{system['note']} (`{system.get('backbone')}`).")
    notes.extend(_test_set_notes(result))
    return notes


def _test_set_notes(result: Mapping[str, Any]) -> list[str]:
    notes = []
    reused = set()
    for row in result["test_sets"]:
        facts = row.get("notes", {})
        if facts.get("identical_pairs"):
            notes.append(f"- {row['name']}: {facts['identical_pairs']} pair(s) with identical texts "
                         f"(ids {', '.join(map(str, facts.get('identical_pair_ids', [])))}): a tie for every system.")
        if facts.get("ties_excluded"):
            notes.append(f"- {row['name']}: {facts['ties_excluded']} candidate pairs with equal human ratings were "
                         f"excluded (and {facts.get('identical_text_pairs_excluded', 0)} with identical texts).")
        truncated = {name: cell["n_truncated"] for name, cell in row["results"].items() if cell.get("n_truncated")}
        if truncated:
            listed = ", ".join(f"{name} {count}" for name, count in truncated.items())
            notes.append(f"- {row['name']}: documents cut at max_length (of {_documents(row)} unique): {listed}.")
        windowed = {name: cell["n_windowed"] for name, cell in row["results"].items() if cell.get("n_windowed")}
        if windowed:
            listed = ", ".join(f"{name} {count}" for name, count in windowed.items())
            notes.append(f"- {row['name']}: documents longer than max_length, scored as the mean of overlapping "
                         f"sentence windows (of {_documents(row)} unique): {listed}.")
        undefined = [name for name, cell in row["results"].items() if cell.get("alpha_undefined")]
        if undefined:
            notes.append(f"- {row['name']}: alpha undefined for {', '.join(undefined)} (every label the same: "
                         "too few items or a model that ties everywhere); agreement counts are still given.")
        for name, cell in row["results"].items():
            if cell.get("reused_from"):
                reused.add((name, cell["reused_from"]))
    for name, source in sorted(reused):
        notes.append(f"- {name} has exactly the parameters of {source} (an untrained checkpoint), so its scores "
                     "are that model's.")
    return notes


def _documents(row: Mapping[str, Any]) -> int:
    return max((int(cell.get("n_documents", 0)) for cell in row["results"].values()), default=0)


def _escape(text: str) -> str:
    return str(text).replace("|", "\\|")
