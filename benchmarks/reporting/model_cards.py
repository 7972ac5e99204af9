"""The numbers of MODELS.md's model cards, generated from the benchmark reports.

A card's table holds what was measured once after the checkpoint was chosen (SummEval's experts, human-judged pairs,
SummEval's own summaries, the paper's test sets and probes, speed), beside the checkpoint it is read against and the
release targets it was held to, every cell read from ``benchmarks/reports/<checkpoint>/*.json``. The blocks:

- ``card-<checkpoint>``: a scoring checkpoint's table (``CARDS`` names what it is read against and its targets; a
  checkpoint not in ``CARDS`` gets its own column alone); for the transition model (``TRANSITION_MODEL``), its
  localisation numbers;
- ``paper-suite``: the paper's test sets and probes of every card checkpoint that ran them and of the past defaults
  the opt-ins are read against, beside the paper.

``typed_numbers`` finds a measured number typed into a page's prose instead (outside every generated block), which
tests/benchmarks/reporting/test_model_cards.py refuses for MODELS.md: each number lives in one place, its report.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from coherence_metric.research.catalogue import suite_test_sets

from . import targets
from .cpu_speed_table import CPU_SPEED, speed_runs
from .report_reader import (
    ACCURATE,
    BASELINES,
    DEFAULT_TIER,
    FAST,
    HUMAN_SET_NAMES,
    HUMAN_SETS,
    TIER_NAMES,
    LandingError,
    Reports,
    human_sets,
    order_truncation,
    per_set,
    speed_report,
    tier_label,
    with_interval,
)
from .speed_markdown import headline_row

#: The opt-in checkpoints with a card in MODELS.md, and the past defaults they are read against.
STUDENT = "cm-minilm-l5-joint-boundary-2026.11"
WITH_TRANSITIONS = "cm-minilm-joint-long-tm-2026.11"
DEFAULT_0_7 = "cm-minilm-joint-boundary-2026.11"
DEFAULT_0_4 = "cm-minilm-joint-long-2026.11"
#: The transition model behind `explain`, and the localisation run that measured it on the test split (the 0.6.0
#: default's run, the first whose report holds the model alone and `explain`'s fallback side by side).
TRANSITION_MODEL = "tm-minilm-2026.11"
LOCALISATION_RUN = (DEFAULT_0_4, "localisation.json")
#: Where the GPU speed runs are (one JSON per run, rows per checkpoint, length, batch and dtype).
GPU_SPEED_FOLDER = "gpu-speed"
#: A card block: ``card-<checkpoint>``.
CARD_PREFIX = "card-"


@dataclass(frozen=True)
class Measure:
    """One cell: the text shown, and what a target reads (value, lower end, per-set or per-CPU values, a second
    number)."""

    text: str
    value: Optional[float] = None
    low: Optional[float] = None
    values: Tuple[float, ...] = ()
    baseline: Tuple[float, ...] = ()
    extra: Optional[float] = None
    cpus: Tuple[str, ...] = ()  # a speed measure: the CPU of each of ``values``


#: A target's test: (this checkpoint's measure, the compared checkpoint's or None) -> met.
Check = Callable[[Measure, Optional[Measure]], bool]


@dataclass(frozen=True)
class Target:
    """A target's wording and test; ``describe`` words it for the measure at hand where the rule depends on the
    machine (the default's CPU speed)."""

    text: str
    met: Check
    describe: Optional[Callable[[Measure], str]] = None

    def wording(self, measure: Optional[Measure]) -> str:
        return self.describe(measure) if self.describe is not None and measure is not None else self.text


#: A card's targets by row key, built from ``targets.toml`` when the card is drawn (an edited file moves them).
TargetSet = Mapping[str, Sequence[Target]]


@dataclass(frozen=True)
class Card:
    """What a checkpoint's card table reads it against: another checkpoint and a set of release targets, and any
    further rule it is held to (``also``: a column each, after the first), such as the rule a default is held to
    for a checkpoint that shipped under an opt-in's rule first."""

    compare: Optional[str] = None
    compare_label: str = ""
    targets_name: str = ""
    targets: Optional[Callable[[], TargetSet]] = None
    also: Tuple[Tuple[str, Callable[[], TargetSet]], ...] = ()

    def target_sets(self) -> List[Tuple[str, TargetSet]]:
        """Each rule's column name and its targets, in column order."""
        first = [(self.targets_name, self.targets)] if self.targets is not None else []
        return [(name, build()) for name, build in first + list(self.also)]


def _at_least(threshold: float) -> Check:
    return lambda measure, compared: measure.value is not None and measure.value >= threshold


def _at_most(threshold: float) -> Check:
    return lambda measure, compared: measure.value is not None and measure.value <= threshold


def _interval_above(threshold: float, low: float) -> Check:
    return lambda measure, compared: (measure.value is not None and measure.value >= threshold
                                      and measure.low is not None and measure.low > low)


def _above_baseline(measure: Measure, compared: Optional[Measure]) -> bool:
    return bool(measure.values) and all(value > base for value, base in zip(measure.values, measure.baseline))


def _gap_within(limit: float) -> Check:
    return lambda measure, compared: measure.extra is not None and abs(measure.extra) <= limit


def _within_of_compared(points: float) -> Check:
    return lambda measure, compared: (compared is not None and measure.value is not None
                                      and compared.value is not None and measure.value >= compared.value - points)


def _each_cpu_at_least(rule: Callable[[str], float]) -> Check:
    """Every CPU's reference ratio at least what ``rule`` asks of that CPU."""
    return lambda measure, compared: (bool(measure.values) and len(measure.values) == len(measure.cpus)
                                      and all(ratio >= rule(cpu) for ratio, cpu in zip(measure.values, measure.cpus)))


def _speed_rule_wording(goals: targets.Targets, on_each: bool) -> Callable[[Measure], str]:
    """The default's speed target as it applies to the CPUs of a measure: one threshold when they share a class."""
    speed = goals.speed
    classes = {True: (speed.cpu_native_bf16_min_ratio, "native bf16"), False: (speed.cpu_other_min_ratio,
                                                                               "no native bf16")}

    def wording(measure: Measure) -> str:
        present = [classes[native] for native in dict.fromkeys(targets.has_native_bf16(cpu) for cpu in measure.cpus)]
        rule = ", ".join(f"≥ {targets.times(ratio)}x with {label}" for ratio, label in present) if len(present) != 1 \
            else f"≥ {targets.times(present[0][0])}x"
        where = "" if len(present) != 1 else f" ({present[0][1]})"
        return f"{rule} the reference{where}{' on each' if on_each else ''}"

    return wording


def _default_speed_text(goals: targets.Targets, on_each: bool) -> str:
    speed = goals.speed
    return (f"≥ {targets.times(speed.cpu_native_bf16_min_ratio)}x the reference with native bf16, "
            f"≥ {targets.times(speed.cpu_other_min_ratio)}x without{' on each' if on_each else ''}")


def release_targets() -> TargetSet:
    """The release targets of the fast tier (the 0.3.0-0.8.0 defaults) and of the MiniLM opt-ins."""
    goals = targets.load()
    release = goals.release
    n = targets.times

    def cpu_rule(cpu: str) -> float:
        return goals.cpu_min_ratio(cpu)

    return {
        "summary_rho": (Target(f"≥ {release.summary_spearman_min:.2f}, lower end > "
                               f"{release.summary_spearman_low_above:.2f}",
                               _interval_above(release.summary_spearman_min, release.summary_spearman_low_above)),),
        "human": (Target(f"≥ {n(release.human_dev_mean_min_percent)}",
                         _at_least(release.human_dev_mean_min_percent)),),
        "length_matched": (Target("above word count on each set", _above_baseline),),
        "first_whole": (Target(f"≤ {n(release.first_sentence_above_whole_max_percent)}%",
                               _at_most(release.first_sentence_above_whole_max_percent)),
                        Target(f"gap within {n(release.first_minus_whole_max_sd)} sd",
                               _gap_within(release.first_minus_whole_max_sd))),
        "wsj": (Target(f"≥ {n(release.wsj_permuted_min_percent)}", _at_least(release.wsj_permuted_min_percent)),),
        "news": (Target(f"≥ {n(release.news_permuted_min_percent)}", _at_least(release.news_permuted_min_percent)),),
        "insted": (Target(f"≥ {n(release.insted_wiki_min_percent)}", _at_least(release.insted_wiki_min_percent)),),
        "lowest_probe": (Target(f"none below {n(release.probe_min_percent)}", _at_least(release.probe_min_percent)),),
        "cpu_speed": (Target(_default_speed_text(goals, False), _each_cpu_at_least(cpu_rule),
                             _speed_rule_wording(goals, False)),),
        "cpu_speed_other": (Target(_default_speed_text(goals, True), _each_cpu_at_least(cpu_rule),
                                   _speed_rule_wording(goals, True)),),
    }


def _tier_rule_rows(rule: Union[targets.AccurateTargets, targets.DefaultTargets],
                    permuted_points: float) -> Dict[str, Sequence[Target]]:
    """The rows a tier's rule reads beside the fast tier, after SummEval's summary level (worded per rule): system
    level, people, own shuffles, first sentence against the whole, the permuted stand-ins, the probes."""
    n = targets.times
    within = (f"within {n(permuted_points)} points of the {TIER_NAMES[FAST]} tier",
              _within_of_compared(permuted_points))
    return {
        "system_tau": (Target(f"≥ {rule.system_kendall_min:.2f}", _at_least(rule.system_kendall_min)),),
        "human": (Target(f"≥ {n(rule.human_dev_mean_min_percent)}", _at_least(rule.human_dev_mean_min_percent)),),
        "own_shuffle": (Target(f"≥ {n(rule.own_shuffle_min_percent)}%", _at_least(rule.own_shuffle_min_percent)),),
        "first_whole": (Target(f"≤ {n(rule.first_sentence_above_whole_max_percent)}%",
                               _at_most(rule.first_sentence_above_whole_max_percent)),),
        "wsj": (Target(*within),),
        "news": (Target(*within),),
        "lowest_probe": (Target(f"none below {n(rule.probe_min_percent)}", _at_least(rule.probe_min_percent)),),
    }


def ship_rule_targets() -> TargetSet:
    """The ship rule of the accurate tier: the bar it must clear to ship beside the fast tier, read against it."""
    goals = targets.load()
    rule = goals.accurate
    n = targets.times
    ratio = goals.speed.accurate_min_ratio
    return {
        "summary_rho": (Target(f"≥ {rule.summary_spearman_min:.2f}, lower end > {rule.summary_spearman_low_above:.2f}",
                               _interval_above(rule.summary_spearman_min, rule.summary_spearman_low_above)),),
        **_tier_rule_rows(rule, rule.permuted_max_points_below_default),
        "cpu_speed": (Target(f"≥ {n(ratio)}x the reference", _each_cpu_at_least(lambda cpu: ratio)),),
        "cpu_speed_other": (Target(f"≥ {n(ratio)}x the reference on each", _each_cpu_at_least(lambda cpu: ratio)),),
    }


def default_rule_targets() -> TargetSet:
    """The rule a default is held to from 0.9.0 on, read against the fast tier (0.8.0's default); its
    first-sentence line on dev's long texts is read on dev, in docs/training.md, not on a card."""
    rule = targets.load().default
    return {
        "summary_rho": (Target(f"≥ {rule.summary_spearman_min:.2f}", _at_least(rule.summary_spearman_min)),),
        **_tier_rule_rows(rule, rule.permuted_max_points_below_fast),
    }


CARDS: Mapping[str, Card] = {
    FAST: Card(DEFAULT_0_7, "0.7.0 default", "release", release_targets),
    ACCURATE: Card(FAST, tier_label(FAST), "ship rule", ship_rule_targets,
                   also=(("default rule, 0.9.0", default_rule_targets),)),
    STUDENT: Card(DEFAULT_0_7, "0.7.0 default, its teacher", "release", release_targets),
    WITH_TRANSITIONS: Card(DEFAULT_0_4, "its base, the 0.4.0 default", "release", release_targets),
}


# --- the rows of a card ---------------------------------------------------------------------------------------------

def _cell(cell: Mapping[str, Any], digits: int = 3, scale: float = 1.0) -> Measure:
    interval = cell.get("interval") or [None, None]
    value = float(cell.get("value", cell.get("accuracy"))) * scale
    return Measure(with_interval(cell, digits, scale), value, None if interval[0] is None else interval[0] * scale)


def own_label(reports: Reports, checkpoint: str, report: str) -> str:
    """The name ``report`` gives the checkpoint's own row: the checkpoint's immutable name where the report has such a
    row, else its model label (reports written before the names existed call the 0.1.0 default ``default``)."""
    loaded = reports.load(checkpoint, report)
    names = {row["name"] for row in loaded.get("rows", ())} | {
        name for entry in loaded.get("test_sets", ()) for name in entry.get("results", {})}
    return checkpoint if checkpoint in names else loaded.get("model", {}).get("label", checkpoint)


def _summeval(reports: Reports, checkpoint: str) -> Optional[Mapping[str, Any]]:
    if not reports.exists(checkpoint, "summeval-correlation.json"):
        return None
    return reports.row(checkpoint, "summeval-correlation.json",
                       own_label(reports, checkpoint, "summeval-correlation.json"))


def _human(reports: Reports, checkpoint: str) -> Optional[Mapping[str, Any]]:
    if not reports.exists(checkpoint, "human-dev.json"):
        return None
    return reports.row(checkpoint, "human-dev.json", own_label(reports, checkpoint, "human-dev.json"))


def _order(reports: Reports, checkpoint: str) -> Optional[Mapping[str, Any]]:
    if not reports.exists(checkpoint, "summeval-order-truncation.json"):
        return None
    return order_truncation(reports, checkpoint)


def _summary_rho(reports: Reports, checkpoint: str) -> Optional[Measure]:
    row = _summeval(reports, checkpoint)
    return None if row is None else _cell(row["correlations"]["summary"]["spearman"])


def _system_tau(reports: Reports, checkpoint: str) -> Optional[Measure]:
    row = _summeval(reports, checkpoint)
    return None if row is None else _cell(row["correlations"]["system"]["kendall"])


def _length_leans(reports: Reports, checkpoint: str) -> Optional[Mapping[str, float]]:
    """The per-system table's Kendall τ of the system means with length, by scorer (a report from before the table
    has none)."""
    if not reports.exists(checkpoint, "summeval-correlation.json"):
        return None
    table = reports.load(checkpoint, "summeval-correlation.json").get("per_system")
    return None if table is None else table["length_kendall"]


def _system_length(reports: Reports, checkpoint: str) -> Optional[Measure]:
    leans = _length_leans(reports, checkpoint)
    if leans is None or checkpoint not in leans:
        return None
    return Measure(f"{leans[checkpoint]:+.3f}", leans[checkpoint])


def _system_length_label(reports: Reports) -> str:
    leans = _length_leans(reports, DEFAULT_TIER)
    experts = "" if leans is None else f" (the experts': {leans['experts']:+.3f})"
    return f"… Kendall τ of its system means with the systems' mean length{experts}"


def _pairs(reports: Reports, checkpoint: str) -> Optional[Measure]:
    row = _summeval(reports, checkpoint)
    if row is None:
        return None
    accuracy = 100 * row["pairwise"]["accuracy"]
    return Measure(f"{accuracy:.1f}", accuracy)


def _human_mean(reports: Reports, checkpoint: str) -> Optional[Measure]:
    row = _human(reports, checkpoint)
    return None if row is None else _cell(row["mean"]["dev-report"], digits=1, scale=100.0)


def _human_sets(reports: Reports, checkpoint: str) -> Optional[Measure]:
    row = _human(reports, checkpoint)
    return None if row is None else Measure(per_set(row["sets"], "accuracy"))


def _set_values(sets: Mapping[str, Any], key: str) -> Tuple[float, ...]:
    return tuple(100 * sets[name]["dev-report"][key] for name in HUMAN_SETS)


def _length_matched(reports: Reports, checkpoint: str) -> Optional[Measure]:
    row = _human(reports, checkpoint)
    if row is None:
        return None
    words = human_sets(reports, BASELINES, "word count")
    return Measure(per_set(row["sets"], "length_matched_accuracy"),
                   values=_set_values(row["sets"], "length_matched_accuracy"),
                   baseline=_set_values(words, "length_matched_accuracy"))


def _own_shuffle(reports: Reports, checkpoint: str) -> Optional[Measure]:
    entry = _order(reports, checkpoint)
    return None if entry is None else Measure(f"{100 * entry['own_shuffle']:.1f}", 100 * entry["own_shuffle"])


def _first_whole(reports: Reports, checkpoint: str) -> Optional[Measure]:
    entry = _order(reports, checkpoint)
    if entry is None:
        return None
    share, gap = 100 * entry["first_beats_whole"], entry["first_minus_whole_sd"]
    return Measure(f"{share:.1f}; {gap:+.2f}", share, extra=gap)


#: Where a checkpoint's paper suite is while it is still being measured (a partial report that the next machine's
#: run goes on from with ``--resume-from``): its finished sets are shown, the rest say "not measured".
IN_PROGRESS_SUITE = "in-progress/all.json"


def suite_report_name(reports: Reports, checkpoint: str) -> Optional[str]:
    """The checkpoint's paper-suite report: ``all.json`` when finished, else the one in progress, else None."""
    for name in ("all.json", IN_PROGRESS_SUITE):
        if reports.exists(checkpoint, name):
            return name
    return None


def _suite(reports: Reports, checkpoint: str) -> Optional[List[Mapping[str, Any]]]:
    name = suite_report_name(reports, checkpoint)
    return None if name is None else reports.load(checkpoint, name)["test_sets"]


def _suite_in_progress(reports: Reports, checkpoint: str) -> bool:
    return suite_report_name(reports, checkpoint) == IN_PROGRESS_SUITE


def _accuracy(result: Mapping[str, Any]) -> Measure:
    value = 100 * result["accuracy"]
    interval = result.get("accuracy_interval")
    if not interval:
        return Measure(f"{value:.1f}", value)
    return Measure(f"{value:.1f} [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]", value, 100 * interval[0])


def _test_set(name: str) -> Callable[[Reports, str], Optional[Measure]]:
    def measure(reports: Reports, checkpoint: str) -> Optional[Measure]:
        sets = _suite(reports, checkpoint)
        if sets is None:
            return None
        label = own_label(reports, checkpoint, suite_report_name(reports, checkpoint) or "all.json")
        for entry in sets:
            if entry["name"] == name:
                return _accuracy(entry["results"][label])
        if _suite_in_progress(reports, checkpoint):
            return None  # not scored yet
        raise LandingError(f"{reports.folder / checkpoint / 'all.json'}: no test set {name}")
    return measure


def _lowest_probe(reports: Reports, checkpoint: str) -> Optional[Measure]:
    sets = _suite(reports, checkpoint)
    if sets is None:
        return None
    label = own_label(reports, checkpoint, suite_report_name(reports, checkpoint) or "all.json")
    probes = [(entry["name"], entry["results"][label]) for entry in sets if entry["name"].startswith("PROBE-")]
    if _suite_in_progress(reports, checkpoint) and len(probes) < len(suite_test_sets("probes")):
        return None  # the lowest of the probes scored so far would not be the lowest probe
    if not probes:
        raise LandingError(f"{reports.folder / checkpoint / 'all.json'}: no probe")
    name, result = min(probes, key=lambda probe: probe[1]["accuracy"])
    lowest = _accuracy(result)
    label = name[len("PROBE-"):].replace("_", " ")
    return Measure(f"{lowest.text} ({label})", lowest.value, lowest.low)


def _cpu_speed(reports: Reports, checkpoint: str) -> Optional[Measure]:
    speed = speed_report(reports, checkpoint)
    return None if speed is None else _speed_measure(speed)


def _speed_measure(speed: Mapping[str, Any]) -> Optional[Measure]:
    """Texts/s at 256 tokens in the dtype ``auto`` ran, the reference ratio and the CPU, from one speed report."""
    row = headline_row(speed)
    if row is None:
        return None
    rate = row["runs"]["ours"]["docs_per_second"]
    ratio = row.get("ratios", {}).get("ours_speedup")
    text = f"{rate:.2f} in {speed['model']['dtype']}"
    if ratio is not None:
        text += f", {ratio:.2f}x"
    cpu = speed.get("cpu") or speed["device"]
    return Measure(f"{text} ({cpu})", ratio, values=() if ratio is None else (ratio,),
                   cpus=() if ratio is None else (cpu,))


def _other_cpu_runs(reports: Reports, checkpoint: str) -> List[Tuple[str, Mapping[str, Any]]]:
    """The checkpoint's speed runs in ``cpu-speed/`` (other machines than its own speed report's), by path."""
    return [(name, run) for name, run in speed_runs(reports)
            if name.startswith(f"{CPU_SPEED}/") and run["model"]["label"] == checkpoint]


def _other_cpu_speed(reports: Reports, checkpoint: str) -> Optional[Measure]:
    """Each other CPU's speed, so a card whose own speed row comes from a fast CPU does not stand for every CPU;
    a target reads the slowest."""
    measures = [measure for _, run in _other_cpu_runs(reports, checkpoint)
                for measure in [_speed_measure(run)] if measure is not None]
    if not measures:
        return None
    ratios = [measure.value for measure in measures if measure.value is not None]
    return Measure("; ".join(measure.text for measure in measures), min(ratios) if ratios else None,
                   values=tuple(value for measure in measures for value in measure.values),
                   cpus=tuple(cpu for measure in measures for cpu in measure.cpus))


def _gpu_runs(reports: Reports) -> List[Mapping[str, Any]]:
    folder = reports.folder / GPU_SPEED_FOLDER
    return [reports.load(GPU_SPEED_FOLDER, path.name) for path in sorted(folder.glob("*.json"))]


def _gpu_speed(reports: Reports, checkpoint: str) -> Optional[Measure]:
    for run in reversed(_gpu_runs(reports)):
        rows = [row for row in run["rows"] if row["checkpoint"] == checkpoint and row["tokens"] == 256]
        plain = [row for row in rows if row["batch"] == 64 and row["dtype"] == "bf16"]
        if plain:
            fastest = max(rows, key=lambda row: row["texts_per_second"])
            return Measure(f"{plain[0]['texts_per_second']:,.0f}; fastest {fastest['texts_per_second']:,.0f} "
                           f"({fastest['dtype']}, batch {fastest['batch']})", plain[0]["texts_per_second"])
    return None


def _gpu_label(reports: Reports) -> str:
    runs = _gpu_runs(reports)
    device = runs[-1]["device"] if runs else "GPU"
    return f"speed at 256 tokens on one {device}: texts/s in bf16 at batch 64; fastest"


def _length_matched_label(reports: Reports) -> str:
    words = per_set(human_sets(reports, BASELINES, "word count"), "length_matched_accuracy")
    return f"… on length-matched pairs (word count: {words})"


@dataclass(frozen=True)
class Row:
    key: str
    label: Union[str, Callable[[Reports], str]]
    measure: Callable[[Reports, str], Optional[Measure]]
    report: str
    suite: bool = False  # a row of the paper suite (all.json), folded into one row when the suite was not run


_NAMES = " / ".join(HUMAN_SET_NAMES[name] for name in HUMAN_SETS)
ROWS: Sequence[Row] = (
    Row("summary_rho", "SummEval summary-level Spearman ρ [95% CI]", _summary_rho, "summeval-correlation.json"),
    Row("system_tau", "SummEval system-level Kendall τ, 16 systems [95% CI]", _system_tau,
        "summeval-correlation.json"),
    Row("system_length", _system_length_label, _system_length, "summeval-correlation.json"),
    Row("pairs", "SummEval same-article pairs, accuracy %", _pairs, "summeval-correlation.json"),
    Row("human", "human-judged pairs, dev-report mean % [95% CI]", _human_mean, "human-dev.json"),
    Row("human_sets", f"… per set ({_NAMES})", _human_sets, "human-dev.json"),
    Row("length_matched", _length_matched_label, _length_matched, "human-dev.json"),
    Row("own_shuffle", "SummEval summaries of 3+ sentences: above a shuffle of itself %", _own_shuffle,
        "summeval-order-truncation.json"),
    Row("first_whole", "… its first sentence alone above the whole %; mean gap (sd)", _first_whole,
        "summeval-order-truncation.json"),
    Row("wsj", "permuted WSJ sample (stand-in), accuracy %", _test_set("WSJ-SAMPLE-PERMUTED"), "all.json", True),
    Row("news", "permuted news (stand-in), accuracy %", _test_set("NEWS-PERMUTED"), "all.json", True),
    Row("intrusion", "news intrusions (stand-in), accuracy %", _test_set("NEWS-INTRUSION"), "all.json", True),
    Row("insted", "INSteD-Wiki intrusions, accuracy %", _test_set("INSTED-WIKI"), "all.json", True),
    Row("storycloze", "StoryCloze endings, accuracy %", _test_set("STORYCLOZE"), "all.json", True),
    Row("lowest_probe", "the lowest linguistic probe, accuracy %", _lowest_probe, "all.json", True),
    Row("cpu_speed", "speed at 256 tokens on a CPU: texts/s, x the paper-faithful reference", _cpu_speed,
        "speed*.json"),
    Row("cpu_speed_other", "… on the other CPUs measured", _other_cpu_speed, ""),
    Row("gpu_speed", _gpu_label, _gpu_speed, ""),
)


def _target_cell(goals: Sequence[Target], measure: Optional[Measure], compared: Optional[Measure]) -> str:
    if not goals:
        return ""
    wanted = "; ".join(dict.fromkeys(target.text for target in goals))
    if measure is None:
        return f"{wanted}: not measured"
    return "; ".join(f"{target.wording(measure)}: {'met' if target.met(measure, compared) else 'missed'}"
                     for target in goals)


def _report_name(reports: Reports, checkpoint: str, row: Row) -> str:
    if row.key == "cpu_speed":
        speed = speed_report(reports, checkpoint)
        return speed["outputs"]["json"].rsplit("/", 1)[-1] if speed and speed.get("outputs") else "speed.json"
    if row.key == "cpu_speed_other":
        return ", ".join(f"../{name}" for name, _ in _other_cpu_runs(reports, checkpoint))
    if row.key == "gpu_speed":
        runs = sorted((reports.folder / GPU_SPEED_FOLDER).glob("*.json"))
        return f"../{GPU_SPEED_FOLDER}/{runs[-1].name}" if runs else ""
    if row.suite:
        return suite_report_name(reports, checkpoint) or row.report
    return row.report


def model_card_table(reports: Reports, checkpoint: str) -> str:
    """A scoring checkpoint's numbers measured once after the choice, beside the checkpoint it is read against and
    its release targets, each with the report it comes from. A report that was never run leaves its row out (or, for
    this checkpoint's paper suite, says "not measured" in one row); the SummEval, human_dev and SummEval-summaries
    reports of the checkpoint itself must be there."""
    for report in ("summeval-correlation.json", "human-dev.json", "summeval-order-truncation.json"):
        reports.load(checkpoint, report)  # a missing one is named in one line
    card = CARDS.get(checkpoint, Card())
    rules = card.target_sets()
    header = ["measured once, after the choice", "this checkpoint"]
    if card.compare:
        header.append(card.compare_label)
    header += [f"target ({name})" for name, _ in rules]
    header.append("report")
    values = 2 if card.compare else 1
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * values + "---|" * (len(header) - 1 - values)]
    suite_run = suite_report_name(reports, checkpoint) is not None
    folded: List[List[Target]] = [[] for _ in rules]
    for index, row in enumerate(ROWS):
        if row.suite and not suite_run:
            for kept, (_, rule) in zip(folded, rules):
                kept += list(rule.get(row.key, ()))
            if any(later.suite for later in ROWS[index + 1:]):
                continue
            cells = ["the paper's test sets and probes", "not measured"]
            if card.compare:
                cells.append("")
            cells += [_target_cell(kept, None, None) for kept in folded]
            cells.append("`all.json`")
            lines.append("| " + " | ".join(cells) + " |")
            continue
        measure = row.measure(reports, checkpoint)
        compared = row.measure(reports, card.compare) if card.compare else None
        if measure is None and compared is None:
            continue
        label = row.label(reports) if callable(row.label) else row.label
        cells = [label, measure.text if measure else "not measured"]
        if card.compare:
            cells.append(compared.text if compared else "")
        cells += [_target_cell(rule.get(row.key, ()), measure, compared) for _, rule in rules]
        cells.append(f"`{_report_name(reports, checkpoint, row)}`")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --- the transition model -------------------------------------------------------------------------------------------

_KINDS = (("intrusion", "intruded sentence"), ("moved", "moved sentence"), ("swap", "swapped pair"))
_METHODS = (
    ("transition-model", f"`{TRANSITION_MODEL}` alone (`transition-model`)"),
    ("transition-cosine", "its logit plus the adjacent cosine (`transition-cosine`, explain's fallback)"),
    ("adjacent-cosine", "adjacent-sentence cosine (baseline)"),
    ("random", "random (exact chance)"),
)


def _rate(value: float, interval: Optional[Sequence[Optional[float]]], signed: bool = False) -> str:
    sign = "+" if signed else ""
    text = f"{100 * value:{sign}.1f}"
    low, high = interval if interval else (None, None)
    if low is not None and high is not None:
        text += f" [{100 * low:{sign}.0f}, {100 * high:{sign}.0f}]"
    return text


def transition_model_table(reports: Reports) -> str:
    """The transition model's localisation numbers on the test split: top-1 of the lowest transition for each kind
    of break, beside `explain`'s fallback, the adjacent cosine and random, and the paired differences."""
    folder, name = LOCALISATION_RUN
    report = reports.load(folder, name)
    rows = {row["name"]: row for row in report["rows"]}
    missing = [method for method, _ in _METHODS if method not in rows]
    if missing:
        raise LandingError(f"{reports.folder / folder / name}: no row named {missing[0]!r}")
    counts = report["n_items"]
    header = ["top-1 % on the test split [95% CI]"] + [f"{label} ({counts[kind]})" for kind, label in _KINDS]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * len(_KINDS)]
    for method, label in _METHODS:
        kinds = rows[method]["kinds"]
        cells = [_rate(kinds[kind]["top1"], kinds[kind].get("top1_interval")) for kind, _ in _KINDS]
        lines.append("| " + " | ".join([label, *cells]) + " |")
    for method, _label in _METHODS:
        versus = rows[method].get("vs_cosine")
        if versus:
            cells = [_rate(versus[kind]["top1"], versus[kind].get("top1_interval"), signed=True)
                     for kind, _ in _KINDS]
            lines.append("| " + " | ".join([f"… `{method}` minus the cosine, paired", *cells]) + " |")
    return "\n".join(lines) + "\n"


def card_table(reports: Reports, checkpoint: str) -> str:
    """The table of ``card-<checkpoint>``."""
    if checkpoint == TRANSITION_MODEL:
        return transition_model_table(reports)
    return model_card_table(reports, checkpoint)


# --- the paper suite ------------------------------------------------------------------------------------------------

#: The checkpoints of MODELS.md's paper-suite table, in its column order: the cards', then the past defaults the
#: opt-ins are read against.
SUITE_COLUMNS = ((FAST, tier_label(FAST)), (ACCURATE, tier_label(ACCURATE)), (STUDENT, "five-layer student"),
                 (WITH_TRANSITIONS, "with the transition term"), (DEFAULT_0_7, "0.7.0 default"),
                 (DEFAULT_0_4, "0.4.0 default"))


def _suite_cell(entry: Mapping[str, Any], result: Mapping[str, Any], interval: bool) -> str:
    if entry["metric"] == "lmvlm_agreement":
        return f"{result['alpha']:.3f}"
    text = f"{100 * result['accuracy']:.2f}"
    bounds = result.get("accuracy_interval")
    if interval and bounds:
        text += f" [{100 * bounds[0]:.1f}, {100 * bounds[1]:.1f}]"
    return text


def _published(entry: Mapping[str, Any]) -> str:
    published = entry.get("published") or {}
    value = published.get("full_model")
    if value is None:
        return ""
    text = f"{value:.3f}" if entry["metric"] == "lmvlm_agreement" else f"{value:.2f}"
    return text + (" ‡" if published.get("stand_in") else "")


def paper_suite_table(reports: Reports) -> str:
    """The paper's test sets and probes of every checkpoint of ``SUITE_COLUMNS`` that ran them (``all.json``), beside
    the paper's full model; the first column with its 95% bootstrap interval."""
    ran = [(checkpoint, label) for checkpoint, label in SUITE_COLUMNS if suite_report_name(reports, checkpoint)]
    if not ran or _suite_in_progress(reports, ran[0][0]):
        raise LandingError(f"{reports.folder}: no card checkpoint has an all.json")
    suites = {checkpoint: {entry["name"]: entry for entry in _suite(reports, checkpoint) or ()}
              for checkpoint, _ in ran}
    first = ran[0][0]
    in_progress = [checkpoint for checkpoint, _ in ran if _suite_in_progress(reports, checkpoint)]
    header = ["test set", "pairs"] + [f"{label} [95% CI]" if checkpoint == first else
                                      f"{label} (in progress)" if checkpoint in in_progress else label
                                      for checkpoint, label in ran] + ["paper: full model"]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for name, entry in suites[first].items():
        label = name + (" ‡" if (entry.get("published") or {}).get("stand_in") else "")
        if entry["metric"] == "lmvlm_agreement":
            label += " (α, 3 annotators + model)"
        cells = [label, str(entry["n"])]
        for checkpoint, _ in ran:
            other = suites[checkpoint].get(name)
            cells.append(_suite_cell(other, other["results"][checkpoint], checkpoint == first) if other else "")
        cells.append(_published(entry))
        lines.append("| " + " | ".join(cells) + " |")
    missing = [f"`{checkpoint}` ({label})" for checkpoint, label in SUITE_COLUMNS if (checkpoint, label) not in ran]
    note = "‡ a stand-in: the paper's set is not available, so ours is scored under its own name, and the paper's " \
           "number, on its set, only indicates the level."
    if missing:
        note += f" Not run yet: {', '.join(missing)}."
    for checkpoint in in_progress:
        note += (f" In progress: `{checkpoint}`, {len(suites[checkpoint])} of {len(suites[first])} sets so far "
                 f"(its `{IN_PROGRESS_SUITE}`), the rest left blank.")
    lines += ["", textwrap.fill(note, width=118, break_long_words=False, break_on_hyphens=False)]
    return "\n".join(lines) + "\n"


# --- numbers typed into prose ---------------------------------------------------------------------------------------

_GENERATED = re.compile(r"<!-- generated:(?P<name>[a-z0-9.-]+) -->\n.*?<!-- /generated:(?P=name) -->", re.DOTALL)
_FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
_CODE = re.compile(r"`[^`]*`")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
#: A measured number: a decimal that is not part of a version (``0.8.0``), a name or a licence (``Apache-2.0``), a
#: share, a speed-up, a run's seconds.
_MEASURED = re.compile(r"(?<![\w.])(?<![A-Za-z]-)(?:\d+\.\d+(?![\w.])|\d+(?:\.\d+)?\s?%|\d+(?:\.\d+)?x\b"
                       r"|\d[\d,]*(?:\.\d+)?\ss\b)")


def typed_numbers(page: str) -> List[str]:
    """The measured-looking numbers of ``page`` outside its generated blocks, code and link targets, each with
    its line: what a reader would take for a measurement but no report wrote."""
    text = _GENERATED.sub("", page)
    text = _FENCE.sub("", text)
    text = _CODE.sub("", text)
    text = _LINK_TARGET.sub("]", text)
    return [f"{match.group(0)!r} in: {line.strip()}" for line in text.splitlines()
            for match in _MEASURED.finditer(line)]
