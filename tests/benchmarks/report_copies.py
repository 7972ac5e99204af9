"""A writable copy of benchmarks/reports for tests that move a measured number and watch the pages follow."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..conftest import REPO_DIR

REPORTS = REPO_DIR / "benchmarks" / "reports"


def copy_reports(tmp_path: Path) -> Path:
    """Every report's JSON under ``tmp_path/reports`` (no plots, no Markdown)."""
    folder = tmp_path / "reports"
    shutil.copytree(REPORTS, folder, ignore=shutil.ignore_patterns("*.png", "*.md"))
    return folder


def set_system_tau(reports: Path, checkpoint: str, value: float) -> None:
    """Make ``checkpoint``'s SummEval system-level Kendall τ ``value`` in the copy ``reports``."""
    path = reports / checkpoint / "summeval-correlation.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    row = next(r for r in report["rows"] if r["name"] == checkpoint)
    row["correlations"]["system"]["kendall"]["value"] = value
    path.write_text(json.dumps(report), encoding="utf-8")
