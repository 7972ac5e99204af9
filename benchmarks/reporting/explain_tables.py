"""The measured tables of docs/explain.md: the CoheSentia dev ruler of both tiers, the localisation runs, and the dev
comparison behind explain's fallback.

They were typed into the page from the reports and could drift from them; each block is now rendered from its
committed report (``localisation_cohesentia-dev.json`` of each tier, the ``localisation*.json`` of the checkpoints
that ran it, ``training/ablation/reports/transitions/intrusion-dev.json``), so ``make tables`` rewrites them and
tests/benchmarks/reporting/test_landing.py fails while they differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .report_reader import ACCURATE, FAST, LandingError, Reports, tier_label

COHESENTIA = "localisation_cohesentia-dev.json"
#: The reason groups the page shows, in its order.
GROUPS = ("cohesion", "consistency", "relevance")
#: The ruler's rows on the page: (the report's method, what the page calls it, bold).
RULER_ROWS: Sequence[Tuple[str, str, bool]] = (
    ("adjacent-cosine", "adjacent cosine", False),
    ("transition-min", "lower of the two transitions (the held-out check's reading)", False),
    ("transition-into", "transition into the sentence (0.8.0's mechanism)", False),
    ("score_drop", "score_drop", False),
    ("cohesion", "cohesion", True),
    ("relevance", "relevance", True),
    ("duplication", "duplication", False),
    ("flag-order", "explain's ranking (its flags, then by score drop)", True),
    ("flag-margin", "furthest beyond a threshold (how reports up to 0.9.0 ranked the flags)", False),
    ("position (later first)", "sentence position, later first (not evidence)", False),
    ("length (longer first)", "sentence length, longer first (not evidence)", False),
)
#: The rows comparing the tiers: (checkpoint, method, label).
TIER_ROWS: Sequence[Tuple[str, str, str]] = (
    (FAST, "cohesion", f"{tier_label(FAST)}: `cohesion`"),
    (ACCURATE, "cohesion", f"{tier_label(ACCURATE)}: `cohesion` (its score drop)"),
    (ACCURATE, "flag-order", f"{tier_label(ACCURATE)}: explain's ranking (its flags, then by score drop)"),
    (ACCURATE, "position (later first)", "sentence position, later first (not evidence)"),
)
KINDS = ("intrusion", "moved", "swap")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], first: str = "---") -> str:
    lines = ["| " + " | ".join(header) + " |", f"|{first}|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _bold(text: str, bold: bool) -> str:
    return f"**{text}**" if bold and text else text


def _interval(bounds: Sequence[float], digits: int) -> str:
    return f" [{bounds[0]:.{digits}f}, {bounds[1]:.{digits}f}]"


def _auc(cell: Mapping[str, Any]) -> str:
    if not cell.get("n_texts"):
        return ""
    return f"{cell['auc']:.3f}" + _interval(cell["auc_interval"], 3)


def _factor(cell: Mapping[str, Any]) -> str:
    if not cell.get("n_texts"):
        return ""
    return f"{cell['top1_over_random']:.2f}x" + _interval(cell["top1_over_random_interval"], 2)


def _best(cells: Mapping[str, Mapping[str, Any]], group: str, key: str, methods: Sequence[str]) -> float:
    return max(cells[method][group][key] for method in methods if cells[method][group].get("n_texts"))


def _ruler(reports: Reports, checkpoint: str) -> Mapping[str, Any]:
    return reports.load(checkpoint, COHESENTIA)


def ruler_table(reports: Reports) -> str:
    """The fast tier's ruler on all stories: per reason group, the within-story AUC and top-1 over random of each
    method, the best evidence of each column in bold (position and length are not evidence and never bold)."""
    result = _ruler(reports, FAST)
    cells = result["methods"]["all"]
    missing = [method for method, _, _ in RULER_ROWS if method not in cells]
    if missing:
        raise LandingError(f"{reports.folder / FAST / COHESENTIA}: no method {missing[0]!r}")
    evidence = [method for method, label, _ in RULER_ROWS if "not evidence" not in label]
    header = [f"all {result['n_stories']['all']} stories", *(f"{group} AUC" for group in GROUPS),
              *(f"{group} top-1 (x random)" for group in GROUPS)]
    first = cells[RULER_ROWS[0][0]]
    rows = [["random", *("0.500" for _ in GROUPS),
             *(f"{100 * first[group]['random_top1']:.1f} (1.00x)" for group in GROUPS)]]
    for method, label, bold in RULER_ROWS:
        row = cells[method]
        auc = [_bold(_auc(row[group]), bold and method in evidence
                     and row[group]["auc"] == _best(cells, group, "auc", evidence)) for group in GROUPS]
        top1 = [_bold(_factor(row[group]), bold and method in evidence
                      and row[group]["top1_over_random"] == _best(cells, group, "top1_over_random", evidence))
                for group in GROUPS]
        rows.append([_bold(label, bold), *auc, *top1])
    return _table(header, rows)


def _percent(value: Optional[float], interval: Optional[Sequence[float]] = None, digits: int = 1) -> str:
    if value is None:
        return ""
    text = f"{100 * value:.{digits}f}%"
    if interval:
        text += f" [{100 * interval[0]:.{digits}f}, {100 * interval[1]:.{digits}f}]"
    return text


def _recall(cell: Mapping[str, Any]) -> str:
    return " / ".join(f"{100 * cell[group]['recall']:.1f}" for group in GROUPS) + "%"


def flags_table(reports: Reports) -> str:
    """The fast tier's flags with the shipped thresholds and no cap, on each half and on all stories."""
    result = _ruler(reports, FAST)
    rows = []
    for half in ("choose", "check", "all"):
        cell = result["flags"][half]["no_cap"]
        label = half if half == "all" else f"{half} ({result['n_stories'][half]} stories)"
        rows.append([label, _percent(cell["fully_coherent_sentences_flagged"],
                                     cell.get("fully_coherent_sentences_flagged_interval")),
                     _percent(cell["fully_coherent_stories_without_flag"]), _percent(cell["all_sentences_flagged"]),
                     _recall(cell), _percent(cell["any"]["precision"])])
    return _table(["", "fully coherent stories' sentences flagged", "fully coherent stories with no flag",
                   "all sentences flagged", "marked sentences flagged: cohesion / consistency / relevance",
                   "flags on a marked sentence"], rows)


def tiers_table(reports: Reports) -> str:
    """The fast and the accurate tier's evidence on the whole ruler, side by side."""
    stories = _ruler(reports, FAST)["n_stories"]["all"]
    rows = []
    for checkpoint, method, label in TIER_ROWS:
        cell = _ruler(reports, checkpoint)["methods"]["all"][method]
        rows.append([label, *(_auc(cell[group]) for group in GROUPS), *(_factor(cell[group]) for group in GROUPS)])
    return _table([f"all {stories} stories", *(f"{group} AUC" for group in GROUPS),
                   *(f"{group} top-1 (x random)" for group in GROUPS)], rows)


def flag_order_table(reports: Reports) -> str:
    """Per tier and half of the ruler, explain's ranking (``flag-order``) per reason group against the flags'
    targets (each report's ``targets.groups[group].flags``): AUC and top-1, a cell in bold where its target is met."""
    rows = []
    for checkpoint, tier in TIERS:
        groups = _ruler(reports, checkpoint)["targets"]["groups"]
        for half in ("choose", "check"):
            cells = [groups.get(group, {}).get("flags", {}).get(half) for group in GROUPS]
            rows.append([tier, half,
                         *(_bold(f"{cell['auc']:.3f}", cell["auc_met"]) if cell else "" for cell in cells),
                         *(_bold(f"{cell['top1_over_random']:.2f}x", cell["top1_met"]) if cell else ""
                           for cell in cells)])
    return _table(["explain's ranking", "half", *(f"{group} AUC" for group in GROUPS),
                   *(f"{group} top-1 (x random)" for group in GROUPS)], rows)


def tier_flags_table(reports: Reports) -> str:
    """Both tiers' flags (no cap) on all stories, and on the synthetic dev split: duplicates found, intruder flagged."""
    rows = []
    for checkpoint, tier in TIERS:
        result = _ruler(reports, checkpoint)
        cell = result["flags"]["all"]["no_cap"]
        synthetic = result.get("synthetic_dev") or {}
        duplicates = synthetic.get("duplicates") or {}
        intrusion = synthetic.get("intrusion") or {}
        rows.append([tier, _percent(cell["fully_coherent_sentences_flagged"],
                                    cell.get("fully_coherent_sentences_flagged_interval")),
                     _percent(cell["fully_coherent_stories_without_flag"]), _recall(cell),
                     _percent(cell["any"]["precision"]),
                     _percent(duplicates.get("found"), duplicates.get("found_interval"), digits=0),
                     _percent(intrusion.get("top_flag_on_break"), intrusion.get("top_flag_on_break_interval"),
                              digits=0)])
    return _table(["flags, no cap", "fully coherent stories' sentences flagged", "fully coherent stories with no flag",
                   "marked sentences flagged: cohesion / consistency / relevance", "flags on a marked sentence",
                   "synthetic duplicates found", "intruder is the strongest flag"], rows)


#: The synthetic dev sets with a known break of one kind, as the page names them (``synthetic_dev.kinds``).
KIND_SET_LABELS: Sequence[Tuple[str, str]] = (
    ("intrusion", "a similar sentence of another document in its place (the localisation recipe's intruder)"),
    ("random_intrusion", "a random sentence of another document in its place"),
    ("repeat_sentence", "a sentence said again verbatim, later"),
    ("near_repeat", "a sentence restated with a word or two changed, right after it"),
    ("dangling_reference", "the sentence a pronoun or \"the X\" refers to deleted"),
    ("connective_swap", "a connective replaced by one of another relation, or one added"),
)


def _synthetic(reports: Reports, checkpoint: str = FAST) -> Mapping[str, Any]:
    synthetic = _ruler(reports, checkpoint).get("synthetic_dev") or {}
    if "kinds" not in synthetic or "rules" not in synthetic:
        raise LandingError(f"{reports.folder / checkpoint / COHESENTIA}: no per-kind synthetic dev check "
                           "(run `coherence-metric benchmark cohesentia-dev`)")
    return synthetic


#: The tiers in the synthetic dev tables, the default first.
DEFAULT_FIRST: Sequence[Tuple[str, str]] = ((ACCURATE, tier_label(ACCURATE)), (FAST, tier_label(FAST)))


def synthetic_kinds_table(reports: Reports) -> str:
    """Each tier's flags on the synthetic dev texts with a known break of each kind: whether the flag on the broken
    sentence names the kind a reader agrees with (the share where it is flagged in bold where it meets the report's
    ``kinds_named_right`` target), and where a drift is flagged."""
    rows = []
    drift_rows = []
    for checkpoint, tier in DEFAULT_FIRST:
        synthetic = _synthetic(reports, checkpoint)
        named = _ruler(reports, checkpoint)["targets"].get("kinds_named_right") or {}
        for name, label in KIND_SET_LABELS:
            cell = synthetic["kinds"].get(name)
            if cell is None:
                continue
            met = (named.get(name) or {}).get("met", False)
            rows.append([tier, label, cell["expected"], str(cell["n"]),
                         _percent(cell["labelled_right"], cell["labelled_right_interval"], digits=0),
                         _bold(_percent(cell["right_when_flagged"], cell["right_when_flagged_interval"], digits=0),
                               met),
                         _percent(cell["top_flag_on_break"], cell["top_flag_on_break_interval"], digits=0),
                         _percent(cell["no_flag"], digits=0)])
        drift = synthetic["drift"]
        drift_rows.append([tier, f"the second half replaced by another document's sentences ({drift['n']} texts)",
                           f"**{_percent(drift['top_flag_at_start'], drift['top_flag_at_start_interval'], digits=0)}**",
                           _percent(drift["flag_at_start"], drift["flag_at_start_interval"], digits=0),
                           _percent(drift["flag_after_start"], drift["flag_after_start_interval"], digits=0),
                           _percent(drift["no_flag"], digits=0),
                           ", ".join(f"{kind} {count}" for kind, count in drift["kinds_at_start"].items())])
    kinds = _table(["tier", "synthetic dev texts: the broken sentence is", "a reader says", "texts",
                    "its flag names that kind", "named right where it is flagged", "top flag on it", "no flag"],
                   rows)
    return kinds + "\n" + _table(["tier", "drift", "top flag where it starts", "a flag where it starts",
                                  "a flag after it starts", "no flag", "kinds named where it starts"], drift_rows)


def _chosen(name: str, chosen: str) -> str:
    return f"**{name}** (explain's)" if name == chosen else name


def flag_rules_table(reports: Reports) -> str:
    """The candidate kind rules and drift rules compared on the synthetic dev split (and, for reference, on
    CoheSentia's choosing half), the one ``explain`` uses in bold."""
    result = _ruler(reports, FAST)
    rules = _synthetic(reports)["rules"]
    stories = (result.get("flag_rules") or {}).get("choose") or {}
    groups: Dict[str, List[str]] = {}
    for name, _ in KIND_SET_LABELS:
        cell = _synthetic(reports)["kinds"].get(name)
        if cell is not None:
            groups.setdefault(cell["expected"], []).append(name)
    kind_rows = []
    for rule, cell in rules["kind"].items():
        shares = cell["right_when_flagged"]
        real = (stories.get("kind") or {}).get(rule, {})
        kind_rows.append([_chosen(rule, rules["kind_chosen"]),
                          *(" / ".join(_percent(shares[name], digits=0) for name in groups[kind]) for kind in groups),
                          _percent(cell["mean_right_when_flagged"], digits=1),
                          *(f"{_percent(real[kind]['named_right'], digits=0)} of {real[kind]['flagged']}"
                            if real.get(kind, {}).get("flagged") else "none flagged" if kind in real else ""
                            for kind in ("relevance", "cohesion"))])
    kind_header = ["kind rule", *(f"{kind}: " + " / ".join(groups[kind]) for kind in groups),
                   "mean over the three kinds (chosen by)", "CoheSentia choose: relevance-marked flags named relevance",
                   "cohesion-marked flags named cohesion"]
    drift_rows = []
    for rule, cell in rules["drift"].items():
        real = (stories.get("drift") or {}).get(rule, {})
        drift_rows.append([_chosen(rule, rules["drift_chosen"]), _percent(cell["top_flag_at_start"], digits=0),
                           _percent(cell["flag_after_start"], digits=0),
                           _percent(cell["kind_sets_top_flag_on_break"], digits=0),
                           f"{_percent(real.get('any_recall'))} / {_percent(real.get('any_recall_cap_1'))}"
                           if real else "", _percent(real.get("any_precision")) if real else ""])
    drift_header = ["drift rule", "drift texts: top flag where it starts", "a flag after it starts",
                    "kind sets: top flag on the break", "CoheSentia choose: marked sentences flagged (no cap / cap 1)",
                    "flags on a marked sentence"]
    return _table(kind_header, kind_rows) + "\n" + _table(drift_header, drift_rows)


#: The tiers whose calibrations the clean-text tables read, as the page names them (the label follows the alias).
TIERS: Sequence[Tuple[str, str]] = ((FAST, tier_label(FAST)), (ACCURATE, tier_label(ACCURATE)))
#: The clean texts' sources, as the page names them (``clean.<half>.by_source``).
CLEAN_SOURCES: Sequence[Tuple[str, str]] = (("cohesentia", "CoheSentia fully coherent"), ("news", "dev news"),
                                            ("stories", "dev stories"))


def _clean(reports: Reports, checkpoint: str) -> Optional[Mapping[str, Any]]:
    """A tier's ruler report, or None where it predates the clean-text check (its calibration the earlier rule's)."""
    result = _ruler(reports, checkpoint)
    if "clean" not in result or "trade" not in result["calibration"]["recomputed_on_choose"]:
        return None
    return result


def _budget_triple(budgets: Mapping[str, float]) -> str:
    return " / ".join(f"{100 * budgets[kind]:g}" for kind in ("cohesion", "relevance", "duplication"))


def clean_table(reports: Reports) -> str:
    """Per tier, on the check half (no threshold was set there): the share of clean texts with any flag (the rate
    ``explain`` prints), per source, and the share of the sentences people marked that get a flag; the budgets."""
    rows = []
    for checkpoint, tier in TIERS:
        result = _clean(reports, checkpoint)
        if result is None:
            rows.append([f"{tier} (`{checkpoint}`)", "not measured: its report predates the clean-text check", "", "",
                         "", "", ""])
            continue
        clean = result["clean"]["check"]
        sources = clean["by_source"]
        flags = result["flags"]["check"]
        rows.append([f"{tier} (`{checkpoint}`)",
                     f"**{_percent(clean['flagged'], clean['flagged_interval'], digits=0)}** of {clean['n_texts']}",
                     *(f"{_percent(sources[name]['flagged'], digits=0)} of {sources[name]['n_texts']}"
                       if name in sources else "" for name, _ in CLEAN_SOURCES),
                     f"{_percent(flags['cap_1']['any']['recall'])} / {_percent(flags['no_cap']['any']['recall'])}",
                     _budget_triple(result["calibration"]["recomputed_on_choose"]["budgets"])])
    return _table(["check half", "clean texts with any flag", *(label for _, label in CLEAN_SOURCES),
                   "marked sentences flagged (--flag 1 / no cap)", "budgets % (cohesion / relevance / duplication)"],
                  rows)


def trade_table(reports: Reports) -> str:
    """Per tier, the trade on the choosing half at its chosen relevance and duplication budgets, one row per cohesion
    budget tried: clean texts with any flag, marked sentences flagged, and the within-story AUC of the flags and of
    explain's flag ranking (the whole grid is in each report's ``calibration.recomputed_on_choose.trade``)."""
    rows = []
    for checkpoint, tier in TIERS:
        result = _clean(reports, checkpoint)
        if result is None:
            continue
        recomputed = result["calibration"]["recomputed_on_choose"]
        chosen = recomputed["budgets"]
        earlier = recomputed.get("earlier_rule")
        if earlier:
            rows.append([tier, f"0.8.0's rule: {_budget_triple(earlier['budgets'])} of the fully coherent stories' "
                               "sentences", _percent(earlier["clean_flagged"]), _percent(earlier["recall"]),
                         _percent(earlier["recall_cap_1"]), f"{earlier['flags_auc']:.3f}",
                         f"{earlier['order_auc']:.3f}"])
        for row in recomputed["trade"]:
            if any(row["budgets"][kind] != chosen[kind] for kind in ("relevance", "duplication")):
                continue
            picked = row["budgets"] == chosen
            rows.append([tier, _bold(_budget_triple(row["budgets"]), picked),
                         _bold(_percent(row["clean_flagged"]), picked), _percent(row["recall"]),
                         _percent(row["recall_cap_1"]), f"{row['flags_auc']:.3f}", f"{row['order_auc']:.3f}"])
    return _table(["choose half", "budgets % (cohesion / relevance / duplication)", "clean texts with any flag",
                   "marked sentences flagged (no cap)", "at --flag 1", "AUC of the flags",
                   "AUC of the flag ranking"], rows)


def cost_table(reports: Reports) -> str:
    """Both tiers' ``explain`` against its transitions and score alone (``explain`` before kinds of break) and
    ``score``, texts/s on the ruler's stories, from each report's ``cost``."""
    rows = []
    for checkpoint, tier in TIERS:
        timed = (_ruler(reports, checkpoint).get("cost") or {}).get("explain")
        if not timed:
            raise LandingError(f"{reports.folder / checkpoint / COHESENTIA}: no cost of explain")
        rows.append([tier, f"{timed['texts']} (mean {timed['mean_sentences']:.1f} sentences)",
                     f"{timed['device']}, {timed['dtype']}, {timed['threads']} threads",
                     f"{timed['explain_texts_per_second']:.2f}",
                     f"{timed['transitions_and_score_texts_per_second']:.2f}",
                     f"{timed['score_texts_per_second']:.2f}"])
    return _table(["texts/s", "stories", "run on", "`explain`", "its transitions and score alone (0.8.0's `explain`)",
                   "`score`"], rows)


# --- the localisation runs -------------------------------------------------------------------------------------------

def _rate(cell: Mapping[str, Any], key: str) -> str:
    text = f"{100 * cell[key]:.1f}"
    interval = cell.get(f"{key}_interval")
    if interval and None not in interval:
        text += f" [{100 * interval[0]:.0f}, {100 * interval[1]:.0f}]"
    return text


def _signed(cell: Mapping[str, Any], key: str) -> str:
    low, high = cell[f"{key}_interval"]
    return f"{100 * cell[key]:+.1f} [{100 * low:+.0f}, {100 * high:+.0f}]"


def _label(row: Mapping[str, Any]) -> str:
    notes = (["explain's"] if row.get("auto") else []) + (["= the cosine baseline"] if row.get("baseline") else [])
    name = f"**{row['name']}**" if row.get("auto") else row["name"]
    return name + (f" ({'; '.join(notes)})" if notes else "")


def localisation_table(folder: str, name: str) -> Callable[[Reports], str]:
    """A localisation report as the page shows it: each method's top-1 per kind of break with the mean, then top-2;
    the paired differences from the cosine where the run has them; 1 / transitions where the run recorded it."""
    def render(reports: Reports) -> str:
        report = reports.load(folder, name)
        counts = report["n_items"]
        header = [f"`{report['model']['label']}`, {report.get('split') or 'test'} split",
                  *(f"{kind} top-1 ({counts[kind]})" for kind in KINDS), "mean top-1",
                  *(f"{kind} top-2" for kind in KINDS)]
        rows: List[List[str]] = []
        for row in report["rows"]:
            kinds = row["kinds"]
            mean = sum(kinds[kind]["top1"] for kind in KINDS) / len(KINDS)
            rows.append([_label(row), *(_rate(kinds[kind], "top1") for kind in KINDS), f"{100 * mean:.1f}",
                         *(_rate(kinds[kind], "top2") for kind in KINDS)])
        for row in report["rows"]:
            versus = row.get("vs_cosine")
            if versus:
                rows.append([f"{row['name']} minus cosine (paired)", *(_signed(versus[kind], "top1") for kind in KINDS),
                             "", *(_signed(versus[kind], "top2") for kind in KINDS)])
        chance: Mapping[str, Any] = next((row["kinds"] for row in report["rows"] if row["name"] == "random"), {})
        if all("one_in_transitions" in chance.get(kind, {}) for kind in KINDS):
            rows.append(["one given transition (1 / transitions)",
                         *(f"{100 * chance[kind]['one_in_transitions']:.1f}" for kind in KINDS), "", "", "", ""])
        return _table(header, rows)

    return render


#: The dev report of the training-free readings compared with the transition model alone, beside the benchmark
#: reports in the checkout (``training/ablation/reports/``), and the option every other is paired with.
INTRUSION_DEV = ("transitions", "intrusion-dev.json")
INTRUSION_DEV_BASE = "model"


def dev_reports_folder(reports: Reports) -> Path:
    """``training/ablation/reports`` of the checkout whose ``benchmarks/reports`` is ``reports``."""
    return reports.folder.resolve().parent.parent / "training" / "ablation" / "reports"


def intrusion_dev_table(reports: Reports) -> str:
    """Every training-free reading of the transitions on the dev documents: top-1 per kind and the mean, each with
    its paired difference from the transition model alone (points, 95% interval)."""
    path = dev_reports_folder(reports).joinpath(*INTRUSION_DEV)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LandingError(f"{path}: report not found (run the dev comparison that writes it)") from None

    def cell(value: float, versus: Optional[Sequence[Any]]) -> str:
        text = f"{100 * value:.1f}"
        if versus and versus[1][0] != versus[1][1]:
            delta, (low, high) = versus
            text += f" ({100 * delta:+.1f} [{100 * low:+.0f}, {100 * high:+.0f}])"
        return text

    rows = []
    for row in report["rows"]:
        paired = row.get("vs_model_top1") or {}
        label = "transition model alone" if row["name"] == INTRUSION_DEV_BASE else row["name"]
        rows.append([label, *(cell(row["top1"][kind], paired.get(kind)) for kind in KINDS),
                     cell(row["mean_top1"], row.get("vs_model_mean_top1"))])
    header = [f"dev option, {report['limit']} documents per kind", *KINDS, "mean"]
    return _table(header, rows)


#: The localisation reports the page shows, by block name.
LOCALISATION_RUNS: Dict[str, Tuple[str, str]] = {
    "localisation-test": ("cm-minilm-joint-long-2026.11", "localisation.json"),
    "localisation-0.3.0": ("cm-minilm-joint-2026.11", "localisation_limit100.json"),
    "localisation-0.2.0": ("cm-minilm-pointwise-2026.11", "localisation_limit200.json"),
    "localisation-0.1.0": ("cm-minilm-2026.11", "localisation_limit60.json"),
}

def llm_shaped_table(reports: Reports) -> str:
    """The fast tier's flags on the LLM-shaped dev texts (``llm-shaped-dev.json``): read as units, and the same
    sentences as plain prose, each with and without the inserted bullet."""
    report = reports.load(FAST, "llm-shaped-dev.json")
    broken, clean, prose = report["broken"], report["clean"], report["plain_prose"]
    header = [f"{report['texts']} dev texts", "the flag is the inserted bullet", "no flag",
              "flags (any rank) on a frame, heading or code unit", "the same texts without the insertion: flagged"]
    rows = [
        ["read as units (this release)", f"**{_percent(broken['top1'], broken['top1_interval'])}**",
         _percent(broken["no_flag"]), f"**{report['flags_on_unread_units']}**",
         _percent(clean["texts_flagged"], clean["texts_flagged_interval"])],
        ["the same sentences as plain prose", _percent(prose["top1"], prose["top1_interval"]),
         _percent(prose["no_flag"]), "", _percent(prose["clean_texts_flagged"], prose["clean_texts_flagged_interval"])],
        ["a random pick among the units that can be flagged", _percent(broken["chance_top1"]), "", "", ""],
    ]
    return _table(header, rows)


def llm_shaped_scores_table(reports: Reports) -> str:
    """The fast tier's scores of the LLM-shaped dev texts as written, with their frames left out, and as plain prose:
    the mean, and how far and how differently each reading ranks them from the prose."""
    report = reports.load(FAST, "llm-shaped-dev.json")
    scores = report["scores"]
    header = [f"{report['texts']} dev texts read", "mean score", "mean absolute difference from the prose",
              "Spearman with the prose"]
    rows = [[label, f"{cell['mean']:+.2f}", f"{cell['mean_abs_difference_from_prose']:.2f}",
             f"{cell['spearman_with_prose']:.2f}"]
            for label, cell in (("as written (what `score` reads)", scores["as_written"]),
                                ("with the frame units left out", scores["frames_left_out"]))]
    rows.append(["the same sentences as plain prose", f"{scores['plain_prose_mean']:+.2f}", "", ""])
    return _table(header, rows)


BLOCKS: Mapping[str, Callable[[Reports], str]] = {
    "cohesentia-ruler": ruler_table,
    "cohesentia-flags": flags_table,
    "cohesentia-tiers": tiers_table,
    "cohesentia-tier-flags": tier_flags_table,
    "cohesentia-flag-order": flag_order_table,
    "intrusion-dev": intrusion_dev_table,
    "explain-cost": cost_table,
    "cohesentia-clean": clean_table,
    "cohesentia-trade": trade_table,
    "synthetic-kinds": synthetic_kinds_table,
    "flag-rules": flag_rules_table,
    "llm-shaped": llm_shaped_table,
    "llm-shaped-scores": llm_shaped_scores_table,
    **{block: localisation_table(folder, name) for block, (folder, name) in LOCALISATION_RUNS.items()},
}

__all__ = ["BLOCKS", "LOCALISATION_RUNS", "clean_table", "cost_table", "flag_order_table", "flag_rules_table",
           "flags_table", "intrusion_dev_table", "llm_shaped_scores_table", "llm_shaped_table", "localisation_table",
           "ruler_table", "synthetic_kinds_table", "tier_flags_table", "tiers_table", "trade_table"]
