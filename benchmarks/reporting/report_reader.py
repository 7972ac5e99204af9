"""Reading the committed benchmark reports, ``benchmarks/reports/<checkpoint>/*.json``, for the generated pages.

The landing page (``landing.py``) and the model cards (``model_cards.py``) take every number they print from here,
so a number is typed once, by the run that measured it, and cannot drift from its report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from coherence_metric.toolkit import read_alias_table

#: The tiers the generated pages speak for, by immutable name: ``fast`` (MiniLM, in the wheel) and ``accurate``
#: (all-mpnet-base-v2 with LoRA). A tier's reports stay under its own name whichever tier ``default`` names.
FAST = "cm-minilm-gpu-joint-2026.11"
ACCURATE = "cm-mpnet-lora-joint-2026.11"
#: What the pages call each tier: the alias that always names it.
TIER_NAMES: Mapping[str, str] = {FAST: "fast", ACCURATE: "accurate"}
#: The tier ``default`` names in this release (``aliases.json``), so that the pages' labels follow the alias.
DEFAULT_TIER = read_alias_table().aliases["default"]
#: The report whose rows hold the trivial baselines scored here (they do not depend on the checkpoint; the 0.2.0
#: default's run scored them).
BASELINES = "cm-minilm-pointwise-2026.11"
HUMAN_SETS = ("HANNA", "DELTASCORE", "FFCI")
HUMAN_SET_NAMES = {"HANNA": "HANNA", "DELTASCORE": "DeltaScore", "FFCI": "FFCI"}


class LandingError(ValueError):
    """A report a generated page needs is missing or lacks a row; the message names the file and the row."""


def tier_label(checkpoint: str, otherwise: Optional[str] = None) -> str:
    """What a page calls a tier's row: its alias (``fast``, ``accurate``), with `` (default)`` for the one
    ``default`` names, so a page says which tier is the default without a typed word to change when it moves.

    ``otherwise`` names a checkpoint that is neither tier (a report's own label for it); without it such a
    checkpoint is an error.
    """
    name = TIER_NAMES.get(checkpoint, otherwise)
    if name is None:
        raise LandingError(f"{checkpoint} is not a tier ({' or '.join(TIER_NAMES)})")
    return f"{name} (default)" if checkpoint == DEFAULT_TIER else name


class Reports:
    """The JSON reports under one folder, read once each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._cache: Dict[Path, Any] = {}

    def exists(self, checkpoint: str, name: str) -> bool:
        """Whether ``<folder>/<checkpoint>/<name>`` is there (a report that was never run is not an error)."""
        return (self.folder / checkpoint / name).is_file()

    def load(self, checkpoint: str, name: str) -> Any:
        path = self.folder / checkpoint / name
        if path not in self._cache:
            try:
                self._cache[path] = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise LandingError(f"{path}: report not found (run the benchmark that writes it)") from None
            except json.JSONDecodeError as error:
                raise LandingError(f"{path}: not valid JSON ({error})") from None
        return self._cache[path]

    def row(self, checkpoint: str, report: str, name: str) -> Mapping[str, Any]:
        rows = self.load(checkpoint, report)["rows"]
        for row in rows:
            if row["name"] == name:
                return row
        raise LandingError(f"{self.folder / checkpoint / report}: no row named {name!r}")


def number(value: Optional[float], digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def with_interval(cell: Optional[Mapping[str, Any]], digits: int = 3, scale: float = 1.0) -> str:
    """``value [low, high]`` of a report cell (``value`` or ``accuracy`` with ``interval``), scaled; blank if none."""
    if not cell or cell.get("value", cell.get("accuracy")) is None:
        return ""
    value = float(cell.get("value", cell.get("accuracy"))) * scale
    text = f"{value:.{digits}f}"
    interval = cell.get("interval")
    if interval and None not in interval:
        text += f" [{interval[0] * scale:.{digits}f}, {interval[1] * scale:.{digits}f}]"
    return text


def percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def order_truncation(reports: Reports, checkpoint: str) -> Mapping[str, Any]:
    """The checkpoint's entry of ``summeval-order-truncation.json`` (own shuffles, first sentence against whole)."""
    entries = reports.load(checkpoint, "summeval-order-truncation.json")
    for entry in entries:
        if entry["model"] == checkpoint or f"|model:{checkpoint}@" in entry.get("signature", ""):
            return entry
    raise LandingError(f"{reports.folder / checkpoint / 'summeval-order-truncation.json'}: no entry for {checkpoint}")


def per_set(sets: Mapping[str, Any], key: str) -> str:
    """One dev-report number of human_dev's sets, ``HANNA / DeltaScore / FFCI``: a share in % or a count."""
    cells = [sets[name]["dev-report"][key] for name in HUMAN_SETS]
    return " / ".join(str(cell) if isinstance(cell, int) else f"{100 * cell:.1f}" for cell in cells)


def human_sets(reports: Reports, checkpoint: str, row: str) -> Mapping[str, Any]:
    return reports.row(checkpoint, "human-dev.json", row)["sets"]


def suite_result(reports: Reports, checkpoint: str, name: str) -> Mapping[str, Any]:
    """The checkpoint's result on one test set of its ``all.json`` (the paper suite and the probes)."""
    for entry in reports.load(checkpoint, "all.json")["test_sets"]:
        if entry["name"] == name:
            return entry["results"][checkpoint]
    raise LandingError(f"{reports.folder / checkpoint / 'all.json'}: no test set {name}")


def speed_report(reports: Reports, checkpoint: str) -> Optional[Mapping[str, Any]]:
    """The checkpoint's speed run: ``speed.json``, else the first ``speed_limit*.json``; None when there is none."""
    folder = reports.folder / checkpoint
    candidates = [folder / "speed.json", *sorted(folder.glob("speed_limit*.json"))]
    for path in candidates:
        if path.is_file():
            return reports.load(checkpoint, path.name)
    return None
