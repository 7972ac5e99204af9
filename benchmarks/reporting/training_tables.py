"""The measured tables of docs/training.md that come from committed dev reports: the stored-teacher students, each
ranked on dev beside the 0.8.0 default and the accurate tier.

The dev reports (``training/ablation/reports/distil_stored/dev-report-*.json``, written by
``python -m coherence_metric.training.pointwise.dev_report``) pair every option with the first one on the same dev
items; ``make tables`` rewrites the table and tests/benchmarks/reporting/test_landing.py fails while they differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Sequence

from .explain_tables import dev_reports_folder
from .report_reader import LandingError, Reports

DISTIL_STORED = "distil_stored"
DEFAULT_CHECKPOINT = "cm-minilm-gpu-joint-2026.11"
#: What the page calls each option of the reports, by the checkpoint (or saved-scores file) the report names.
OPTION_LABELS: Mapping[str, str] = {
    "cm-minilm-gpu-joint-2026.11": "the default (0.8.0)",
    "as-written.scores-471.json.gz": "the accurate tier (its dev scores, saved on the GPU)",
    "runs/distil-stored-a/final": "A: + 150 steps, teacher MSE 1 and ranking 1 (gap 0.1)",
    "runs/distil-stored-f/final": "F: A + the pool's cuts, extract and long texts in each step",
    "runs/distil-stored-d/final": "D: the same 150 steps without the teacher (control)",
    "runs/distil-stored-b/final": "B: + 150 steps, teacher ranking 2 only",
}


def _label(checkpoint: str) -> str:
    return OPTION_LABELS.get(checkpoint, OPTION_LABELS.get(Path(checkpoint).name, checkpoint))


def _points(value: float) -> str:
    return f"{100 * value:.1f}"


def _versus(option: Mapping[str, Any]) -> str:
    paired = option.get("vs_first") or {}
    low, high = paired.get("interval", (0.0, 0.0))
    if low == high:
        return ""
    return f"{100 * paired['difference']:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def _row(option: Mapping[str, Any]) -> List[str]:
    human = option["human"]
    return [_label(option["checkpoint"]), _points(option["human_mean"]), _versus(option),
            " / ".join(_points(human[name]) for name in ("HANNA", "DELTASCORE", "FFCI")),
            f"{_points(option['synthetic_accuracy'])} / {_points(option['synthetic_auc'])}",
            _points(option["own_shuffle"]), _points(option["first_beats_whole"]),
            " / ".join(f"{100 * option[key]:.0f}" for key in ("long_first_beats_whole", "long_first_third_beats_whole",
                                                              "long_first_half_beats_whole")),
            f"{option['system_tau_mean']:.2f}"]


def distil_stored_table(reports: Reports) -> str:
    """Every option of every committed stored-teacher dev report once: the default, the students in report order,
    the accurate tier last."""
    folder = dev_reports_folder(reports) / DISTIL_STORED
    paths = sorted(folder.glob("dev-report-*.json"))
    if not paths:
        raise LandingError(f"{folder}: no dev-report-*.json (run the dev report of the stored-teacher runs)")
    seen: Dict[str, List[str]] = {}
    for path in paths:
        for option in json.loads(path.read_text(encoding="utf-8"))["options"]:
            seen.setdefault(option["checkpoint"], _row(option))
    header: Sequence[str] = ("option", "dev-select mean", "vs the default [95% paired CI]", "HANNA / DeltaScore / FFCI",
                             "synthetic acc / AUC", "own shuffle", "first sentence above whole",
                             "long: first / third / half above whole", "system τ (HANNA, FFCI mean)")
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    # The default first, the students in the order they were reported, the teacher (saved scores) last.
    order = sorted(seen, key=lambda checkpoint: (checkpoint != DEFAULT_CHECKPOINT, checkpoint.endswith(".json.gz")))
    lines += ["| " + " | ".join(seen[checkpoint]) + " |" for checkpoint in order]
    return "\n".join(lines) + "\n"


BLOCKS: Mapping[str, Callable[[Reports], str]] = {"distil-stored": distil_stored_table}

__all__ = ["BLOCKS", "distil_stored_table"]
