"""Both tiers' speed on every CPU they were measured on, one row per speed report, for docs/benchmarks.md.

Speed on a CPU depends on the machine more than on anything the package does: on the same 2-core shape the default
ran 40.6 texts/s (AMD EPYC with AVX512-BF16, bf16) and 16.0 (AMD EPYC with AVX2 only, where fp32 is the only fast
path). So the speed page lists every machine measured, each from its own report, beside the targets (at 256 tokens:
at least 90% of the faster dtype's forward-only limit; the default at least 60x the paper-faithful reference where
the CPU has AMX and 35x elsewhere; the accurate tier at least 8x), instead of one machine's
numbers typed into prose.

The rows: each tier's own speed report (``<checkpoint>/speed.json`` or ``speed_limit*.json``) and every report in
``cpu-speed/`` (``<machine>-<date>/speed*.json``, written by ``coherence-metric benchmark --suite speed [--model
accurate] --output benchmarks/reports/cpu-speed/<machine>[-accurate]-<date>``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Mapping, Tuple

from .report_reader import ACCURATE, DEFAULT, LandingError, Reports, speed_report
from .speed_markdown import HEADLINE_TOKENS, headline_row, share_of_fastest_limit

#: The folder of benchmarks/reports that holds speed reports of the tiers on other machines, one folder per run.
CPU_SPEED = "cpu-speed"
#: The tiers the table speaks for, by immutable name, and what it calls them.
TIERS = {DEFAULT: "default", ACCURATE: "accurate"}
#: The targets at 256 tokens: the share of the forward-only limit, and each tier's ratio to the reference.
MIN_SHARE_OF_LIMIT = 0.90
MIN_SPEEDUP_AMX = 60.0
MIN_SPEEDUP_ELSEWHERE = 35.0
MIN_SPEEDUP_ACCURATE = 8.0


def speed_runs(reports: Reports) -> List[Tuple[str, Mapping[str, Any]]]:
    """(report path relative to the reports folder, report) for each tier's own speed run and every ``cpu-speed/``
    run, in that order."""
    runs: List[Tuple[str, Mapping[str, Any]]] = []
    for checkpoint in TIERS:
        own = speed_report(reports, checkpoint)
        if own is not None:
            runs.append((f"{checkpoint}/{Path(own['outputs']['json']).name}", own))
    for path in sorted((reports.folder / CPU_SPEED).glob("*/speed*.json")):
        runs.append((f"{CPU_SPEED}/{path.parent.name}/{path.name}",
                     reports.load(f"{CPU_SPEED}/{path.parent.name}", path.name)))
    if not runs:
        raise LandingError(f"{reports.folder}: no CPU speed report of {DEFAULT} (run coherence-metric benchmark "
                           "--suite speed)")
    return runs


def target_speedup(checkpoint: str, cpu: str) -> float:
    """The reference ratio asked of this tier on this CPU: the default 60x with AMX and 35x elsewhere, the accurate
    tier 8x."""
    if checkpoint == ACCURATE:
        return MIN_SPEEDUP_ACCURATE
    return MIN_SPEEDUP_AMX if "amx" in cpu.lower() else MIN_SPEEDUP_ELSEWHERE


def _verdict(met: bool) -> str:
    return "met" if met else "missed"


def table(reports: Reports) -> str:
    """The Markdown table: tier, machine, what ``auto`` ran, texts/s in it and in fp32, the share of the fastest
    forward-only limit and the ratio to the reference at 256 tokens, each against its target."""
    lines = [
        "| tier | CPU (2 torch threads) | `auto` ran | texts/s at 256 tokens | fp32 | share of the fastest "
        "forward-only limit (target ≥ 90%) | × the paper-faithful reference (target) | texts per row | report |",
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
        share_cell = "" if share is None else f"{100 * share:.0f}%: {_verdict(share >= MIN_SHARE_OF_LIMIT)}"
        lines.append(
            f"| {TIERS[checkpoint]} | {result['cpu']} | {result['model']['dtype']} | {ours:.1f} | {fp32:.1f} | "
            f"{share_cell} | {speedup:.1f}× (≥ {wanted:.0f}×: {_verdict(speedup >= wanted)}) | "
            f"{result.get('limit') or 1000:,} | `{name}` |")
    return "\n".join(lines) + "\n"
