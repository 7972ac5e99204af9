"""MODEL_HISTORY.md's table of the past defaults, generated from aliases.json's history and each one's reports.

The model history was a thousand lines of narrative whose typed numbers drifted from their reports (a run time of
one report typed as another's, a speed target the speed page judged the other way). Now its one table, the
``history`` block, holds each past default's name, the versions it was ``default`` in (read from
``coherence_metric/checkpoints/aliases.json``'s ``history``), its headline numbers read from
``benchmarks/reports/<checkpoint>/*.json`` by the model cards' own measures, its CPU speed judged by the one speed
rule of ``targets.toml``, the release targets it missed, and a link to its section, whose short paragraph (what
recipe, why it was replaced, where the detail lives) holds no measured number.
"""

from __future__ import annotations

import re
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from coherence_metric.toolkit import read_alias_table

from .model_cards import ROWS, Measure, Row, release_targets
from .report_reader import LandingError, Reports

#: The first version whose default was held to ``targets.toml``'s ``[release]`` targets (earlier defaults had
#: targets of their own, written before these).
RELEASE_TARGETS_FROM = (0, 3, 0)
#: The table's measured columns: the model cards' row key and the header it gets here.
COLUMNS: Sequence[Tuple[str, str]] = (
    ("summary_rho", "SummEval summary-level ρ [95% CI]"),
    ("human", "human-judged pairs, dev-report % [95% CI]"),
    ("own_shuffle", "above a shuffle of itself %"),
    ("first_whole", "first sentence alone above the whole %; gap (sd)"),
    ("news", "permuted news (stand-in) %"),
)
#: What the missed-targets cell calls each release target.
TARGET_NAMES: Mapping[str, str] = {
    "summary_rho": "SummEval ρ", "human": "human-judged pairs", "length_matched": "length-matched pairs",
    "first_whole": "first sentence", "wsj": "permuted WSJ", "news": "permuted news", "insted": "INSteD-Wiki",
    "lowest_probe": "probes", "cpu_speed": "CPU speed",
}


def _version(text: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def past_defaults() -> List[Tuple[str, List[str]]]:
    """(checkpoint, the versions it was ``default`` in), newest first, for every recorded default but today's."""
    table = read_alias_table()
    current = table.aliases.get("default")
    versions: Dict[str, List[str]] = {}
    for version in sorted(table.history, key=_version):
        versions.setdefault(table.history[version], []).append(version)
    past = [(name, found) for name, found in versions.items() if name != current]
    return sorted(past, key=lambda item: _version(item[1][0]), reverse=True)


def version_range(versions: Sequence[str]) -> str:
    """``0.4.0-0.6.0`` for consecutive versions, ``0.3.0`` for one."""
    return versions[0] if len(versions) == 1 else f"{versions[0]}-{versions[-1]}"


def heading(checkpoint: str, versions: Sequence[str]) -> str:
    """The section heading of a past default (its anchor is what the changelog and the docs link to)."""
    return f"`{checkpoint}` (`default` in coherence-metric {version_range(versions)})"


def anchor(text: str) -> str:
    """The anchor MkDocs and GitHub give a heading: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text.lower()).strip())


_ROWS: Mapping[str, Row] = {row.key: row for row in ROWS}


def _measure(reports: Reports, checkpoint: str, key: str) -> Optional[Measure]:
    return _ROWS[key].measure(reports, checkpoint)


def _speed_cell(reports: Reports, checkpoint: str) -> str:
    """The CPU speed run's ratio at 256 tokens and the one speed rule's verdict; "not measured" without a run."""
    measure = _measure(reports, checkpoint, "cpu_speed")
    if measure is None:
        return "not measured"
    (target,) = release_targets()["cpu_speed"]
    return f"{measure.text}; {target.wording(measure)}: {'met' if target.met(measure, None) else 'missed'}"


def _missed(reports: Reports, checkpoint: str, versions: Sequence[str]) -> str:
    """The release targets the checkpoint missed, by name; empty for a default from before those targets."""
    if _version(versions[0]) < RELEASE_TARGETS_FROM:
        return "(before these targets)"
    missed = []
    for key, wanted in release_targets().items():
        if key not in TARGET_NAMES:
            continue
        measure = _measure(reports, checkpoint, key)
        if measure is not None and not all(target.met(measure, None) for target in wanted):
            missed.append(TARGET_NAMES[key])
    return ", ".join(missed) or "none"


def history_table(reports: Reports) -> str:
    """One row per past default, newest first: where it is described, when it was ``default``, its headline numbers,
    its CPU speed against the speed rule, the release targets it missed, and its reports."""
    header = ["checkpoint", "`default` in", *(label for _, label in COLUMNS),
              "speed at 256 tokens on a CPU: texts/s, x the reference; target", "release targets missed", "reports"]
    lines = ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * len(COLUMNS) + "---|---|---|"]
    for checkpoint, versions in past_defaults():
        if not (reports.folder / checkpoint).is_dir():
            raise LandingError(f"{reports.folder / checkpoint}: no reports of the past default {checkpoint}")
        cells = [f"[`{checkpoint}`](#{anchor(heading(checkpoint, versions))})", version_range(versions)]
        for key, _ in COLUMNS:
            measure = _measure(reports, checkpoint, key)
            cells.append(measure.text if measure is not None else "not measured")
        cells += [_speed_cell(reports, checkpoint), _missed(reports, checkpoint, versions),
                  f"`benchmarks/reports/{checkpoint}/`"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


__all__ = ["COLUMNS", "RELEASE_TARGETS_FROM", "anchor", "heading", "history_table", "past_defaults", "version_range"]
