"""One table from several suite runs: each run's model as a column, then the baselines, then the paper.

An ablation (pairwise vs contrastive vs full) or a shipped model against its predecessors is benchmarked one
model at a time (``coherence-metric benchmark paper --model X --output DIR``); this lays their JSON
reports side by side. Runs are combined only when they scored the same pairs (same suite, limit and seed),
so every column is measured on identical test items; baselines are read from the first run.

    python -m coherence_metric.benchmarks.reporting.combine full=runs/benchmarks/a/paper.json \
        pairwise=runs/benchmarks/b/paper.json
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Mapping, Sequence

from coherence_metric.errors import CoherenceMetricError, InputError
from coherence_metric.toolkit import parse_json

from .cell_checks import refuse_bad_cells
from .suite_markdown import notes_lines, table_lines


def read_run(path: Path, allow_partial: bool = False) -> dict[str, Any]:
    """Read one suite report (the ``.json`` that ``benchmark SUITE -o`` writes), with a one-line error if unusable
    (a cell of the wrong type or out of range, a test set without results: :mod:`.cell_checks`); a partial report
    (a run still going, or killed) only with ``allow_partial`` (``--resume-from`` reads one)."""
    try:
        result = parse_json(Path(path).read_bytes(), f"benchmark report {path}")
    except FileNotFoundError:
        raise InputError(f"benchmark report not found: {path}") from None
    except OSError as error:
        raise InputError(f"benchmark report {path}: cannot read it ({error.strerror or error})") from None
    if not isinstance(result, dict) or "test_sets" not in result or "systems" not in result:
        raise InputError(f"{path} is not a suite report (no test_sets / systems): was it written by `benchmark SUITE`?")
    if not isinstance(result.get("partial", False), bool):
        raise InputError(f"{path}: partial must be true or false, got {result['partial']!r} (was it edited by hand?)")
    refuse_bad_cells(Path(path), result)
    if result.get("partial") and not allow_partial:
        raise InputError(f"{path} is a partial report (the run had not finished)")
    return result


def combine_runs(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """Merge suite results into one result whose systems are each run's model (under its label) + the baselines.

    Args:
        runs: ``(label, result)`` pairs, in column order.

    Returns:
        A result dict with the shape ``render_suite_markdown`` reads: ``systems``, ``test_sets`` (only those
        every run scored, in the first run's order), ``suite``, ``limit``, ``seed``.

    Raises:
        InputError: no runs, a repeated label, or runs that did not score the same pairs.
    """
    check_comparable_runs(runs, part="column", done="scored", items="pairs")
    first_label, first = runs[0]
    baselines = [system for system in first["systems"] if system.get("role") == "baseline"]
    systems = [{**_model_system(result), "name": label} for label, result in runs] + baselines
    shared = set.intersection(*({row["name"] for row in result["test_sets"]} for _, result in runs))
    rows = []
    for row in first["test_sets"]:
        if row["name"] not in shared:
            continue
        results = {label: _model_cell(result, row["name"]) for label, result in runs}
        for baseline in baselines:
            if baseline["name"] in row["results"]:
                results[baseline["name"]] = row["results"][baseline["name"]]
        rows.append({**row, "results": results})
    differing = [label for label, result in runs[1:] if _baseline_ids(result) != _baseline_ids(first)]
    return {"suite": first.get("suite"), "limit": first.get("limit"), "seed": first.get("seed"),
            "systems": systems, "test_sets": rows, "baselines_from": first_label, "baselines_differ": differing}


def check_comparable_runs(runs: Sequence[tuple[str, Mapping[str, Any]]], part: str, done: str, items: str) -> None:
    """Refuse no runs, repeated labels, or runs with another ``limit`` or ``seed`` than the first (other items).

    ``part``, ``done`` and ``items`` word the errors for the table at hand (column / scored / pairs for suite
    reports, row / evaluated / items for DiscoEval).
    """
    if not runs:
        raise InputError("give at least one LABEL=REPORT.json")
    labels = [label for label, _ in runs]
    if len(set(labels)) != len(labels):
        raise InputError(f"{part} labels must differ: {', '.join(labels)}")
    first_label, first = runs[0]
    for label, result in runs[1:]:
        for key in ("limit", "seed"):
            if result.get(key) != first.get(key):
                raise InputError(f"{label} was {done} with {key}={result.get(key)} and {first_label} with "
                                 f"{key}={first.get(key)}: the {part}s would not be on the same {items}")


def _baseline_ids(result: Mapping[str, Any]) -> dict[str, Any]:
    return {system["name"]: system.get("id") for system in result["systems"] if system.get("role") == "baseline"}


def _model_system(result: Mapping[str, Any]) -> dict[str, Any]:
    return next(system for system in result["systems"] if system.get("role") == "model")


def _model_cell(result: Mapping[str, Any], test_set: str) -> Mapping[str, Any]:
    model = _model_system(result)["name"]
    row = next(row for row in result["test_sets"] if row["name"] == test_set)
    return row["results"].get(model, {})


def render_combined_markdown(combined: Mapping[str, Any]) -> str:
    """Render a combined result as a Markdown table (model columns first) with the suite report's notes."""
    systems = [system["name"] for system in combined["systems"]]
    limit = combined.get("limit")
    sample = "all pairs" if limit is None else f"at most {limit} pairs per test set (seeded subset)"
    lines = [f"Suite `{combined['suite']}`; seed {combined['seed']}; {sample}; every column on the same pairs.", "",
             *table_lines(combined, systems)]
    lines += ["", "Signatures:"]
    lines += [f"- {system['name']}: `{system.get('signature', system.get('id', ''))}`"
              for system in combined["systems"] if system.get("role") == "model"]
    lines += ["", *notes_lines(combined, systems)]
    lines.append(f"- Baselines are {combined.get('baselines_from')}'s run."
                 + (f" The runs of {', '.join(combined['baselines_differ'])} scored baselines with other settings "
                    "(see their own reports)." if combined.get("baselines_differ") else ""))
    return "\n".join(lines) + "\n"


def parse_labelled_report(text: str) -> tuple[str, Path]:
    """``LABEL=REPORT.json`` -> (label, path); the last ``=`` splits, so a label may hold one (``k=2=a.json``)."""
    label, separator, path = text.rpartition("=")
    if not separator or not label or not path:
        raise InputError(f"expected LABEL=REPORT.json, got {text!r}")
    return label, Path(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the combined table; one-line errors (exit status 2) for bad arguments or reports."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("columns", nargs="+", metavar="LABEL=REPORT.json",
                        help="a column label and the suite report (.json) whose model fills it")
    args = parser.parse_args(argv)
    try:
        runs = [(label, read_run(path)) for label, path in map(parse_labelled_report, args.columns)]
        print(render_combined_markdown(combine_runs(runs)), end="")
    except CoherenceMetricError as error:
        parser.exit(2, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
