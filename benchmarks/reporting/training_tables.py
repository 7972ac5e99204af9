"""The measured tables of docs/training.md that come from committed dev reports: the stored-teacher students, each
ranked on dev beside the 0.8.0 default and the accurate tier, and the earlier comparisons that chose (or did not
ship) each recipe: the GPU default, the accurate tier's snapshot, the teacher run's control, the long-window runs,
the five-layer student and the transition term's weight.

The dev reports (``training/ablation/reports/**/dev-report*.json``, written by
``python -m coherence_metric.training.pointwise.dev_report``) pair every option with the first one on the same dev
items; the earlier tables were typed into the page from them and are now rendered from them, so ``make tables``
rewrites every table and tests/benchmarks/reporting/test_landing.py fails while a page and its reports differ.
"""

from __future__ import annotations

import json
import statistics
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple, Union

from .explain_tables import dev_reports_folder
from .report_reader import BASELINES, FAST, LandingError, Reports, tier_label

DISTIL_STORED = "distil_stored"
#: What the page calls the fast tier, the checkpoint the students and the accurate tier's snapshots were read against
#: on dev (``fast (default)`` while it is the default: the label follows the alias).
FAST_LABEL = tier_label(FAST)
#: What the page calls each option of the reports, by the checkpoint (or saved-scores file) the report names.
OPTION_LABELS: Mapping[str, str] = {
    FAST: FAST_LABEL,
    "as-written.scores-471.json.gz": "the accurate tier (its dev scores, saved on the GPU)",
    "runs/distil-stored-a/final": "A: + 150 steps, teacher MSE 1 and ranking 1 (gap 0.1)",
    "runs/distil-stored-f/final": "F: A + the pool's cuts, extract and long texts in each step",
    "runs/distil-stored-d/final": "D: the same 150 steps without the teacher (control)",
    "runs/distil-stored-b/final": "B: + 150 steps, teacher ranking 2 only",
    "runs/distil-stored-h/final": "H: F with capped targets 0.5 below the whole, at 5x the learning rate (5e-5)",
    "runs/distil-stored-i/final": "I: H without the teacher (control at the same learning rate)",
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
    """Every option of every committed stored-teacher dev report once: the fast tier, the students in report order,
    the accurate tier last."""
    folder = dev_reports_folder(reports) / DISTIL_STORED
    paths = sorted(folder.glob("dev-report-*.json"))
    if not paths:
        raise LandingError(f"{folder}: no dev-report-*.json (run the dev report of the stored-teacher runs)")
    seen: Dict[str, List[str]] = {}
    for path in paths:
        for option in json.loads(path.read_text(encoding="utf-8"))["options"]:
            seen.setdefault(option["checkpoint"], _row(option))
    header: Sequence[str] = ("option", "dev-select mean", f"vs {FAST_LABEL} [95% paired CI]",
                             "HANNA / DeltaScore / FFCI", "synthetic acc / AUC", "own shuffle",
                             "first sentence above whole", "long: first / third / half above whole",
                             "system τ (HANNA, FFCI mean)")
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    # The fast tier first, the students in the order they were reported, the teacher (saved scores) last.
    order = sorted(seen, key=lambda checkpoint: (checkpoint != FAST, checkpoint.endswith(".json.gz")))
    lines += ["| " + " | ".join(seen[checkpoint]) + " |" for checkpoint in order]
    return "\n".join(lines) + "\n"


# --- the earlier dev tables ------------------------------------------------------------------------------------------
#
# Each was typed into the page from a committed dev report; each is now a ``DevTable`` whose rows name a report and an
# option of it, and whose columns say what the page shows of each option.

Option = Mapping[str, Any]
Cell = Callable[[Option], str]
#: The human_dev sets, in the order the pages list them.
SETS = ("HANNA", "DELTASCORE", "FFCI")


@dataclass(frozen=True)
class DevRow:
    """One option of a committed dev report (a path under training/ablation/reports) as a table shows it. ``option``
    is the checkpoint the report names, or ``weight=W`` in a report of one model's weights; ``versus`` says what the
    paired difference is against where that is not the table's first row."""

    report: str
    option: str
    label: str
    bold: bool = False
    versus: str = ""


@dataclass(frozen=True)
class BaselineRow:
    """A trivial baseline (``name`` in the baselines' human_dev report) on the same dev-select pairs."""

    name: str
    label: str


@dataclass(frozen=True)
class DevTable:
    """A table of dev options: its columns (header, cell of one option) and its rows, the first row the base."""

    columns: Sequence[Tuple[str, Cell]]
    rows: Sequence[Union[DevRow, BaselineRow]]


def _cell(read: Cell) -> Cell:
    """``read`` of an option, empty where the option lacks what it reads (a baseline has no synthetic dev)."""
    def cell(option: Option) -> str:
        try:
            return read(option)
        except KeyError:
            return ""
    return cell


def points(key: str, suffix: str = "") -> Cell:
    """A share as points, one decimal."""
    return _cell(lambda option: f"{_points(option[key])}{suffix}")


def signed(key: str) -> Cell:
    """A signed number, two decimals (a gap in sd, a Spearman ρ)."""
    return _cell(lambda option: f"{option[key]:+.2f}")


def human_set(name: str) -> Cell:
    """One human_dev set's dev-select agreement, points."""
    return _cell(lambda option: _points(option["human"][name]))


versus = _cell(_versus)
dev_select = _cell(lambda option: f"{_points(option['human_mean'])} ("
                   + " / ".join(_points(option["human"][name]) for name in SETS) + ")")
synthetic = _cell(lambda option: f"{_points(option['synthetic_accuracy'])} / {_points(option['synthetic_auc'])}")
long_cuts = _cell(lambda option: " / ".join(f"{100 * option[key]:.0f}" for key in (
    "long_first_beats_whole", "long_first_third_beats_whole", "long_first_half_beats_whole")))
tau_mean = _cell(lambda option: f"{option['system_tau_mean']:.2f} ("
                 + ", ".join(f"{option['system_tau'][name]:.2f}" for name in ("HANNA", "FFCI")) + ")")
tau_hanna = _cell(lambda option: f"{option['system_tau']['HANNA']:.2f} ["
                  + ", ".join(f"{bound:.2f}" for bound in option["system_tau_interval"]["HANNA"]) + "]")
tau_both = _cell(lambda option: " / ".join(f"{option['system_tau'][name]:.2f}" for name in ("HANNA", "FFCI")))


def _dev_options(reports: Reports, report: str) -> List[Option]:
    path = dev_reports_folder(reports) / report
    try:
        return list(json.loads(path.read_text(encoding="utf-8"))["options"])
    except FileNotFoundError:
        raise LandingError(f"{path}: report not found (run the dev report that writes it)") from None


def _dev_option(reports: Reports, row: DevRow) -> Option:
    for option in _dev_options(reports, row.report):
        if row.option.startswith("weight="):
            if option.get("weight") == float(row.option[len("weight="):]):
                return option
        elif option.get("checkpoint") == row.option:
            return option
    raise LandingError(f"{dev_reports_folder(reports) / row.report}: no option {row.option!r}")


def _baseline_option(reports: Reports, row: BaselineRow) -> Option:
    found = reports.row(BASELINES, "human-dev.json", row.name)
    return {"human_mean": found["mean"]["dev-select"]["accuracy"],
            "human": {name: cell["dev-select"]["accuracy"] for name, cell in found["sets"].items()}}


def dev_table(table: DevTable) -> Callable[[Reports], str]:
    """``table`` rendered from its reports: one line per row, a bold row bold in every cell it fills."""
    def render(reports: Reports) -> str:
        lines = ["| option | " + " | ".join(header for header, _ in table.columns) + " |",
                 "|---|" + "---:|" * len(table.columns)]
        for row in table.rows:
            if isinstance(row, BaselineRow):
                option, bold, against = _baseline_option(reports, row), False, ""
            else:
                option, bold, against = _dev_option(reports, row), row.bold, row.versus
            cells = [row.label]
            for _, read in table.columns:
                cell = read(option)
                cells.append(f"{cell} {against}" if read is versus and cell and against else cell)
            lines.append("| " + " | ".join(f"**{cell}**" if bold and cell else cell for cell in cells) + " |")
        return "\n".join(lines) + "\n"
    return render


def _joint_columns(against: str, dev: str = "dev-select (HANNA / DeltaScore / FFCI)", first: str = "first above whole",
                   count: str = "ρ count") -> List[Tuple[str, Cell]]:
    """The joint recipe's dev ruler as the 0.7.0 and 0.8.0 choices read it."""
    return [(dev, dev_select), (f"vs {against} [95% CI]", versus), ("synthetic acc / AUC", synthetic),
            ("own shuffle", points("own_shuffle")), (first, points("first_beats_whole")),
            ("gap (sd)", signed("truncation_gap_sd")), (count, signed("count_spearman"))]


def _human_columns() -> List[Tuple[str, Cell]]:
    """Agreement with people on dev-select, per set, with the paired difference from the first row."""
    return [("human pairs", points("human_mean")), (f"vs {FAST_LABEL} [95% paired CI]", versus),
            ("HANNA", human_set("HANNA")), ("DeltaScore", human_set("DELTASCORE")), ("FFCI", human_set("FFCI")),
            ("own shuffle", points("own_shuffle", "%"))]


GPU_JOINT = "gpu_joint/dev-report-default-vs-gpu-joint.json"
GPU_JOINT_PASS = "gpu_joint/dev-report-gpu-joint-vs-boundary-pass.json"
GPU_MPNET = "gpu_mpnet/dev-report-default-vs-mpnet-snapshots.json"
LONG_WINDOWS = "long_windows/dev-report.json"
LONG_WINDOWS_ONE_SIDED = "long_windows/dev-report-one-sided-long-only.json"
BOUNDARY_0_7 = "cm-minilm-joint-boundary-2026.11"
TRANSITION_TERM = "transitions/transition-term-dev.json"


def _five_layer(report: str, run: str, label: str, bold: bool = False) -> DevRow:
    return DevRow(f"boundary_joint/dev-report-boundary-vs-{report}.json", f"runs/{run}/best", label, bold)


#: The long-window runs, numbered as the page's prose names them: (run folder, label).
LONG_WINDOW_RUNS: Sequence[Tuple[str, str]] = (
    ("long-windows", "three cuts, weight 0.5"),
    ("long-windows-b", "first sentence, weight 2.0"),
    ("long-windows-c", "first sentence, weight 5.0"),
    ("long-windows-d", "first sentence, weight 2.0, one-sided"),
    ("long-windows-e", "first sentence, weight 0.5, one-sided"),
    ("long-windows-f", "run 5, leads on long texts only"),
    ("long-windows-g", "run 5 + leads above negatives 0.5"),
    ("long-windows-h", "run 4 + leads above negatives 0.5"),
    ("long-windows-i", "run 8, one-sided on long texts only"),
)

DEV_TABLES: Mapping[str, DevTable] = {
    "gpu-joint-dev": DevTable(_joint_columns("0.7.0"), (
        DevRow(GPU_JOINT, BOUNDARY_0_7, "0.7.0's default"),
        DevRow(GPU_JOINT, "runs/gpu-joint-1/long-step-687", "GPU run, step 687 of a 1,141-step run"),
        DevRow(GPU_JOINT, "runs/gpu-joint-2/long-step-3000", "GPU run, 3,000 steps: shipped", bold=True),
        DevRow(GPU_JOINT_PASS, "runs/gpu-joint-boundary/best", "the same + one pass of the boundary recipe",
               versus="vs the shipped one"),
        DevRow(GPU_JOINT_PASS, "runs/gpu-joint-1/long-step-687", "step 687 again, paired with the shipped run",
               versus="vs the shipped one"),
    )),
    "gpu-mpnet-dev": DevTable([
        ("dev-select (HANNA / DeltaScore / FFCI)", dev_select), (f"vs {FAST_LABEL} [95% CI]", versus),
        ("synthetic acc / AUC", synthetic), ("own shuffle", points("own_shuffle")),
        ("first above whole", points("first_beats_whole")), ("extract above lead", points("extractive_vs_lead")),
        ("long: first / third / half above whole", long_cuts), ("system τ: mean (HANNA, FFCI)", tau_mean)], (
        DevRow(GPU_MPNET, FAST, FAST_LABEL),
        DevRow(GPU_MPNET, "/tmp/gml/as-written.scores-471.json.gz", "step 471: shipped", bold=True),
        DevRow(GPU_MPNET, "/tmp/gml/as-written.scores-628.json.gz", "step 628"),
        DevRow(GPU_MPNET, "/tmp/gml/as-written.scores-785.json.gz", "step 785 (last)"),
    )),
    "distil-accurate-dev": DevTable(_human_columns() + [
        ("first sentence > whole (checks)", points("first_beats_whole", "%")),
        ("system τ HANNA / FFCI", tau_both)], (
        DevRow(LONG_WINDOWS, "default", FAST_LABEL),  # "default" named the fast tier then
        DevRow(LONG_WINDOWS, "runs/distil-control/final", "+ 150 steps without the teacher (control)"),
        BaselineRow("word count", "word count (longer wins)"),
        BaselineRow("sentence count", "sentence count"),
    )),
    "long-windows-dev": DevTable(_human_columns() + [
        ("first > whole (checks)", points("first_beats_whole", "%")),
        ("long: first / third / half > whole (%)", long_cuts),
        ("extract > shuffle", points("extractive_vs_shuffle", "%")),
        ("ρ with sentence count", signed("count_spearman")),
        ("system τ HANNA [95% CI]", tau_hanna)], (
        DevRow(LONG_WINDOWS, "default", FAST_LABEL),  # "default" named the fast tier then
        DevRow(LONG_WINDOWS, "runs/distil-control/final", "+ 150 steps, short texts (control)"),
        *(DevRow(LONG_WINDOWS_ONE_SIDED if run.endswith("-i") else LONG_WINDOWS, f"runs/{run}/final",
                 f"run {number}: {label}") for number, (run, label) in enumerate(LONG_WINDOW_RUNS, start=1)),
    )),
    "five-layer-dev": DevTable(_joint_columns("default"), (
        DevRow("boundary_joint/dev-report-boundary-vs-l5.json", BOUNDARY_0_7, "the 0.7.0 default (six layers)"),
        _five_layer("five-layers", "joint-boundary5", "boundary recipe on the 0.4.0 default, cut"),
        _five_layer("five-layers-from-0.7", "joint-boundary5-from07", "boundary recipe on the default, cut"),
        _five_layer("five-layers-distil", "joint-boundary5-distil", "+ the default's score taught (weight 2)"),
        _five_layer("five-layers-distil8", "joint-boundary5-distil8", "+ the default's score taught (weight 8)"),
        _five_layer("l5", "joint-boundary5-distil-t2",
                    "+ the score taught (weight 2), truncation term 2.0: shipped opt-in", bold=True),
    )),
    "transition-term-dev": DevTable(_joint_columns("the base", dev="dev-select mean (HANNA / DeltaScore / FFCI)",
                                                   first="first sentence above whole",
                                                   count="ρ with sentence count"), (
        DevRow(TRANSITION_TERM, "weight=0", "the base (`cm-minilm-joint-long-2026.11`)"),
        DevRow(TRANSITION_TERM, "weight=0.1", "with the transition term (0.1): the opt-in checkpoint", bold=True),
        *(DevRow(TRANSITION_TERM, f"weight={weight}", f"weight {weight}") for weight in ("0.2", "0.3", "0.5")),
    )),
}


def dev_reports_read() -> List[str]:
    """Every dev report (a path under training/ablation/reports) the earlier tables and the trade line read."""
    found = {row.report for table in DEV_TABLES.values() for row in table.rows if isinstance(row, DevRow)}
    return sorted(found | {LONG_WINDOWS, LONG_WINDOWS_ONE_SIDED})


def long_windows_trade(reports: Reports) -> str:
    """One line over every distinct option of the long-window reports: how the share of long texts whose first
    sentence beats the whole and the score's Spearman ρ with sentence count move together."""
    seen: Dict[str, Option] = {}
    for report in (LONG_WINDOWS, LONG_WINDOWS_ONE_SIDED):
        for option in _dev_options(reports, report):
            seen.setdefault(option["checkpoint"], option)
    shares = [option["long_first_beats_whole"] for option in seen.values()]
    leans = [option["count_spearman"] for option in seen.values()]
    fit = statistics.linear_regression(shares, leans)
    return textwrap.fill(f"Across the {len(seen)} rows the share of long texts whose first sentence wins and the lean "
                         f"on short texts fall on one line (Pearson r {statistics.correlation(shares, leans):.2f}), "
                         f"about {-fit.slope / 10:+.2f} of ρ for every 10 points gained on long texts.", width=118,
                         break_long_words=False, break_on_hyphens=False) + "\n"


#: The accurate tier's stored scores of the pool, in the checkout beside ``benchmarks/reports``.
TEACHER_SCORES = ("training", "teacher_scores", "cm-mpnet-lora-joint-2026.11")


def teacher_scores_folder(reports: Reports) -> Path:
    """The stored teacher scores of the checkout whose ``benchmarks/reports`` is ``reports``."""
    return reports.folder.resolve().parent.parent.joinpath(*TEACHER_SCORES)


def teacher_pool_line(reports: Reports) -> str:
    """How many pool texts the teacher has scored, in how many parts, and what they cost per 1,000 texts on each CPU
    that scored them (wall and CPU seconds, as every part records them)."""
    folder = teacher_scores_folder(reports)
    parts = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("part-*.json"))]
    if not parts:
        raise LandingError(f"{folder}: no part-*.json "
                           "(python -m coherence_metric.training.pointwise.teacher.score_pool)")
    by_cpu: Dict[str, List[Mapping[str, Any]]] = {}
    for part in parts:
        by_cpu.setdefault(part["cpu"], []).append(part)
    costs = []
    for cpu, scored in sorted(by_cpu.items()):
        texts = sum(part["texts"] for part in scored)
        wall = 1000 * sum(part["wall_seconds"] for part in scored) / texts
        used = 1000 * sum(part["cpu_seconds"] for part in scored) / texts
        costs.append(f"{texts:,} on {cpu}: {wall:.0f} s wall and {used:.0f} s CPU per 1,000 texts")
    total = sum(part["texts"] for part in parts)
    line = (f"The teacher has scored {total:,} of the pool's texts in {len(parts)} parts ({'; '.join(costs)}; a part "
            "scored while other work ran on the same cores records more wall time).")
    return textwrap.fill(line, width=118, break_long_words=False, break_on_hyphens=False) + "\n"


BLOCKS: Mapping[str, Callable[[Reports], str]] = {
    "teacher-pool": teacher_pool_line,
    "distil-stored": distil_stored_table,
    "long-windows-trade": long_windows_trade,
    **{name: dev_table(table) for name, table in DEV_TABLES.items()},
}

__all__ = ["BLOCKS", "DEV_TABLES", "BaselineRow", "DevRow", "DevTable", "dev_reports_read", "dev_table",
           "distil_stored_table", "long_windows_trade", "teacher_pool_line", "teacher_scores_folder"]
