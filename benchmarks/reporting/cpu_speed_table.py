"""Both tiers' speed on every CPU they were measured on, one row per speed report, for docs/benchmarks.md.

Speed on a CPU depends on the machine more than on anything the package does (native bf16 or not, AMX or not), so the
speed page lists every machine measured, each from its own report, beside the targets of ``targets.toml``'s
``[speed]`` (the share of the faster dtype's forward-only limit, and each tier's ratio to the paper-faithful reference
by the one rule of :meth:`.targets.Targets.cpu_min_ratio`), instead of one machine's numbers typed into prose.

The rows: each tier's own speed report (``<checkpoint>/speed.json`` or ``speed_limit*.json``) and every report in
``cpu-speed/`` (``<machine>-<date>/speed*.json``, written by ``coherence-metric benchmark speed [--model
accurate] --output benchmarks/reports/cpu-speed/<machine>[-accurate]-<date>``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Mapping, Tuple

from . import targets
from .report_reader import ACCURATE, FAST, LandingError, Reports, speed_report, tier_label
from .speed_markdown import HEADLINE_TOKENS, headline_row, share_of_fastest_limit

#: The folder of benchmarks/reports that holds speed reports of the tiers on other machines, one folder per run.
CPU_SPEED = "cpu-speed"
#: The tiers the table speaks for, by immutable name, and what it calls them (``fast (default)``: the label follows
#: the alias).
TIERS = {FAST: tier_label(FAST), ACCURATE: tier_label(ACCURATE)}


def other_machine_runs(reports: Reports, pattern: str) -> List[Tuple[str, Mapping[str, Any]]]:
    """(report path relative to the reports folder, report) for each ``cpu-speed/<run>/`` report matching
    ``pattern`` (e.g. ``speed*.json``), in path order."""
    return [(f"{CPU_SPEED}/{path.parent.name}/{path.name}", reports.load(f"{CPU_SPEED}/{path.parent.name}", path.name))
            for path in sorted((reports.folder / CPU_SPEED).glob(f"*/{pattern}"))]


def speed_runs(reports: Reports) -> List[Tuple[str, Mapping[str, Any]]]:
    """(report path relative to the reports folder, report) for each tier's own speed run and every ``cpu-speed/``
    run, in that order."""
    runs: List[Tuple[str, Mapping[str, Any]]] = []
    for checkpoint in TIERS:
        own = speed_report(reports, checkpoint)
        if own is not None:
            runs.append((f"{checkpoint}/{Path(own['outputs']['json']).name}", own))
    runs += other_machine_runs(reports, "speed*.json")
    if not runs:
        raise LandingError(f"{reports.folder}: no CPU speed report of {FAST} or {ACCURATE} (run coherence-metric "
                           "benchmark speed)")
    return runs


def target_speedup(checkpoint: str, cpu: str) -> float:
    """The reference ratio asked of this tier on this CPU (``targets.toml``'s one speed rule)."""
    return targets.load().cpu_min_ratio(cpu, accurate=checkpoint == ACCURATE)


def _verdict(met: bool) -> str:
    return "met" if met else "missed"


def table(reports: Reports) -> str:
    """The Markdown table: tier, machine, what ``auto`` ran, texts/s in it and in fp32, the share of the fastest
    forward-only limit and the ratio to the reference at 256 tokens, each against its target."""
    min_share = targets.load().speed.min_share_of_limit
    lines = [
        "| tier | CPU (2 torch threads) | `auto` ran | texts/s at 256 tokens | fp32 | share of the fastest "
        f"forward-only limit (target ≥ {100 * min_share:.0f}%) | × the paper-faithful reference (target) | texts per "
        "row | report |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, result in speed_runs(reports):
        checkpoint = result["model"]["label"]
        if checkpoint not in TIERS:
            raise LandingError(f"{reports.folder / name}: measures {checkpoint}, not {' or '.join(TIERS)}")
        row = headline_row(result)
        if row is None:
            raise LandingError(f"{reports.folder / name}: no {HEADLINE_TOKENS}-token set")
        ours = row["runs"]["ours"]["docs_per_second"]
        fp32 = row["runs"].get("ours_fp32", row["runs"]["ours"])["docs_per_second"]
        share = share_of_fastest_limit(row, "ours")
        speedup = row["ratios"]["ours_speedup"]
        wanted = target_speedup(checkpoint, result["cpu"])
        share_cell = "" if share is None else f"{100 * share:.0f}%: {_verdict(share >= min_share)}"
        lines.append(
            f"| {TIERS[checkpoint]} | {result['cpu']} | {result['model']['dtype']} | {ours:.1f} | {fp32:.1f} | "
            f"{share_cell} | {speedup:.1f}× (≥ {targets.times(wanted)}×: {_verdict(speedup >= wanted)}) | "
            f"{result.get('limit') or 1000:,} | `{name}` |")
    return "\n".join(lines) + "\n"
