"""The Markdown report of ``benchmark cohesentia-dev``: the real-error dev ruler."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from . import targets as target_file

GROUP_ORDER = ("cohesion", "consistency", "relevance", "any")


def _auc(cell: Mapping[str, Any]) -> str:
    if not cell.get("n_texts"):
        return ""
    low, high = cell["auc_interval"]
    return f"{cell['auc']:.3f} [{low:.3f}, {high:.3f}]"


def _top1(cell: Mapping[str, Any]) -> str:
    if not cell.get("n_texts"):
        return ""
    low, high = cell["top1_over_random_interval"]
    return f"{100 * cell['top1']:.1f} ({cell['top1_over_random']:.2f}x [{low:.2f}, {high:.2f}])"


def _percent(value: Optional[float], interval: Optional[list] = None) -> str:
    if value is None:
        return ""
    text = f"{100 * value:.1f}"
    if interval:
        text += f" [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"
    return text


def _ranking_verdict(cell: Mapping[str, Any], auc_min: float, top1_min: float) -> str:
    """AUC and top-1 factor with their intervals, each against its target (a ``ranking_check`` of the report)."""
    low, high = cell["auc_interval"]
    factor_low, factor_high = cell["top1_over_random_interval"]
    return (f"AUC {cell['auc']:.3f} [{low:.3f}, {high:.3f}] ({'met' if cell['auc_met'] else 'not met'}, "
            f">= {auc_min:g}); top-1 {cell['top1_over_random']:.2f}x [{factor_low:.2f}, {factor_high:.2f}] random "
            f"({'met' if cell['top1_met'] else 'not met'}, >= {top1_min:g}x)")


def methods_table(result: Mapping[str, Any], half: str) -> list[str]:
    """One row per method: per reason group, within-story AUC and top-1 (x random), 95% intervals."""
    cells = result["methods"][half]
    first = next(iter(cells.values()))
    header = ["Method"] + [f"{group} AUC ({first[group].get('n_texts', 0)} stories)" for group in GROUP_ORDER] + \
        [f"{group} top-1 % (x random)" for group in GROUP_ORDER]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (2 * len(GROUP_ORDER))]
    random_row = ["random"] + ["0.500" for _ in GROUP_ORDER] + \
        [f"{100 * first[group]['random_top1']:.1f} (1.00x)" if first[group].get("n_texts") else ""
         for group in GROUP_ORDER]
    lines.append("| " + " | ".join(random_row) + " |")
    for name, row in cells.items():
        label = {"flag-order": "**flag-order** (explain's ranking: its flags, then by score drop)",
                 "flag-margin": "flag-margin (furthest beyond a threshold; the reports' reading up to 0.9.0)"}.get(
                     name, name)
        lines.append("| " + " | ".join([label] + [_auc(row[group]) for group in GROUP_ORDER]
                                       + [_top1(row[group]) for group in GROUP_ORDER]) + " |")
    return lines


def flags_table(result: Mapping[str, Any]) -> list[str]:
    """Per half and cap: sentences of fully coherent stories flagged, such stories with no flag, recall per group."""
    lines = ["| half, cap | fully coherent sentences flagged % | fully coherent stories with no flag % | "
             "all sentences flagged % | recall cohesion | recall consistency | recall relevance | precision any | "
             "flags by kind |", "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for half, caps in result["flags"].items():
        for cap, cell in caps.items():
            kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(cell["flags_by_kind"].items()))
            lines.append("| " + " | ".join([
                f"{half}, {cap.replace('_', ' ')}",
                _percent(cell.get("fully_coherent_sentences_flagged"),
                         cell.get("fully_coherent_sentences_flagged_interval")),
                _percent(cell.get("fully_coherent_stories_without_flag"),
                         cell.get("fully_coherent_stories_without_flag_interval")),
                _percent(cell["all_sentences_flagged"]),
                _percent(cell["cohesion"]["recall"]), _percent(cell["consistency"]["recall"]),
                _percent(cell["relevance"]["recall"]), _percent(cell["any"]["precision"]), kinds]) + " |")
    return lines


def _spreads(spreads: Mapping[str, Any]) -> str:
    return ", ".join(f"{kind} {mean:+.3f} ± {spread:.3f}" for kind, (mean, spread) in spreads.items())


def calibration_lines(calibration: Mapping[str, Any]) -> List[str]:
    """The shipped calibration the flags were read with, beside the same numbers recomputed on the choosing half."""
    shipped, recomputed = calibration["shipped"], calibration["recomputed_on_choose"]
    lines = []
    if "checkpoint" in shipped:  # reports before per-checkpoint calibrations had thresholds only
        whose = ("this checkpoint's" if shipped["calibrated"]
                 else f"uncalibrated: {shipped['checkpoint']}'s, the default's, read in this checkpoint's units")
        lines.append(f"Calibration: {whose}; cohesion = {shipped['transition_weight']:g} x transition + "
                     f"{shipped['drop_weight']:g} x score_drop, standardised by ({_spreads(shipped['spreads'])}); "
                     f"recomputed on the choosing half: {_spreads(recomputed['spreads'])}.")
        lines.append("")
    pool = "clean texts" if "rule" in recomputed else "fully coherent stories"  # reports before clean texts
    lines.append("Thresholds: " + ", ".join(f"{kind} {value:.3f}" for kind, value in shipped["thresholds"].items())
                 + f"; recomputed on the choosing half's {pool} (budgets "
                 + ", ".join(f"{kind} {100 * value:.2f}%" for kind, value in recomputed["budgets"].items()) + "): "
                 + ", ".join(f"{kind} {value:.3f}" for kind, value in recomputed["thresholds"].items()
                             if value is not None) + ".")
    if "rule" in recomputed:
        lines += ["", f"Budgets: {recomputed['rule']} ({recomputed.get('clean_texts', 0)} clean texts on the choosing "
                      f"half, {len(recomputed['trade'])} budget triples tried)."]
    return lines


def _budgets(budgets: Mapping[str, float]) -> str:
    return " / ".join(f"{100 * budgets[kind]:.2f}" for kind in ("cohesion", "relevance", "duplication"))


def trade_slice(recomputed: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The trade rows at the chosen relevance and duplication budgets, one per cohesion budget tried (the whole grid
    is in the report's JSON)."""
    chosen = recomputed["budgets"]
    return [row for row in recomputed.get("trade", [])
            if all(row["budgets"][kind] == chosen[kind] for kind in ("relevance", "duplication"))]


def clean_lines(result: Mapping[str, Any]) -> List[str]:
    """The clean texts with any flag per half and source, and the trade behind the budgets on the choosing half."""
    lines = ["| half | clean texts with any flag % | CoheSentia fully coherent | dev news | dev stories |",
             "|---|---:|---:|---:|---:|"]
    for half, cell in result["clean"].items():
        sources = cell.get("by_source", {})
        rate = _percent(cell.get("flagged"), cell.get("flagged_interval"))
        by_source = [f"{_percent(sources[name]['flagged'])} of {sources[name]['n_texts']}" if name in sources else ""
                     for name in ("cohesentia", "news", "stories")]
        lines.append(f"| {half} ({cell['n_texts']} texts) | {rate} | " + " | ".join(by_source) + " |")
    recomputed = result["calibration"]["recomputed_on_choose"]
    rows = trade_slice(recomputed)
    if rows:
        lines += ["", "The trade on the choosing half, at the chosen relevance and duplication budgets:", "",
                  "| budgets % (cohesion / relevance / duplication) | clean texts with any flag % | marked sentences "
                  "flagged % (no cap) | at --flag 1 % | AUC of the flags | AUC of the flag ranking |",
                  "|---|---:|---:|---:|---:|---:|"]
        earlier = recomputed.get("earlier_rule")
        if earlier:
            rows = [{**earlier, "label": "0.8.0's rule (of the fully coherent stories' sentences): "}] + rows
        for row in rows:
            mark = " (chosen)" if row["budgets"] == recomputed["budgets"] and "label" not in row else ""
            label = f"{row.get('label', '')}{_budgets(row['budgets'])}{mark}"
            lines.append(f"| {label} | {_percent(row['clean_flagged'])} | "
                         f"{_percent(row['recall'])} | {_percent(row['recall_cap_1'])} | "
                         f"{row['flags_auc']:.3f} | {row['order_auc']:.3f} |")
    return lines


def kind_lines(synthetic: Mapping[str, Any]) -> List[str]:
    """Per synthetic kind set, whether the flag on the broken sentence names the kind a reader agrees with; the
    drift set; and the candidate kind and drift rules compared on them."""
    lines = ["| set (a reader says) | n | flag at the break names it | named right where flagged | "
             "top flag on the break | no flag | kinds named at the break |", "|---|---:|---:|---:|---:|---:|---|"]
    for name, cell in synthetic["kinds"].items():
        lines.append(f"| {name} ({cell['expected']}) | {cell['n']} | "
                     f"{_percent(cell['labelled_right'], cell['labelled_right_interval'])} | "
                     f"{_percent(cell['right_when_flagged'], cell['right_when_flagged_interval'])} | "
                     f"{_percent(cell['top_flag_on_break'], cell['top_flag_on_break_interval'])} | "
                     f"{_percent(cell['no_flag'])} | "
                     + ", ".join(f"{kind} {count}" for kind, count in cell["kinds_at_break"].items()) + " |")
    lines.append(f"\nMean over the three kinds of the share named right where flagged: "
                 f"{_percent(synthetic['kinds_mean_right_when_flagged'])}.")
    drift = synthetic.get("drift")
    if drift:
        lines += ["", f"- drift ({drift['n']} texts leaving their topic at a known sentence): top flag where it starts "
                      f"{_percent(drift['top_flag_at_start'], drift['top_flag_at_start_interval'])}, a flag there "
                      f"{_percent(drift['flag_at_start'], drift['flag_at_start_interval'])}, a flag after it "
                      f"{_percent(drift['flag_after_start'], drift['flag_after_start_interval'])}, no flag "
                      f"{_percent(drift['no_flag'])}; kinds where it starts: "
                      + ", ".join(f"{kind} {count}" for kind, count in drift["kinds_at_start"].items())]
    rules = synthetic["rules"]
    lines += ["", "Kind rules (every flag kept; share named right where flagged, per set):", ""]
    for rule, cell in rules["kind"].items():
        mark = " (chosen)" if rule == rules["kind_chosen"] else ""
        lines.append(f"- {rule}{mark}: mean {_percent(cell['mean_right_when_flagged'])}; "
                     + ", ".join(f"{name} {_percent(value)}" for name, value in cell["right_when_flagged"].items()))
    lines += ["", "Drift rules (with the chosen kind rule):", ""]
    for rule, cell in rules["drift"].items():
        mark = " (chosen)" if rule == rules["drift_chosen"] else ""
        lines.append(f"- {rule}{mark}: drift top flag where it starts {_percent(cell['top_flag_at_start'])}, a flag "
                     f"after it {_percent(cell['flag_after_start'])}, no flag {_percent(cell['no_flag'])}; kind sets' "
                     f"top flag on the break {_percent(cell['kind_sets_top_flag_on_break'])}")
    return lines


def story_rule_lines(rules: Mapping[str, Any]) -> List[str]:
    """The candidate kind and drift rules on the choosing half's stories (``rules_on_stories``)."""
    lines = []
    for half, cells in rules.items():
        for rule, kinds in cells["kind"].items():
            lines.append(f"- {half}, kind rule {rule}: " + "; ".join(
                f"{kind}-marked flags named {kind} {_percent(cell['named_right'])} of {cell['flagged']}"
                if cell["flagged"] else f"no {kind}-marked sentence flagged" for kind, cell in kinds.items()))
        for rule, cell in cells["drift"].items():
            lines.append(f"- {half}, drift rule {rule}: marked sentences flagged {_percent(cell['any_recall'])} "
                         f"(cap 1: {_percent(cell['any_recall_cap_1'])}), flags on a marked sentence "
                         f"{_percent(cell['any_precision'])}, fully coherent stories' sentences flagged "
                         f"{_percent(cell['fully_coherent_sentences_flagged'])}")
    return lines


def render_cohesentia_markdown(result: Mapping[str, Any]) -> str:
    """The report: the methods on each half, the flags, the synthetic dev checks, the targets."""
    lines = [f"# Localisation on real errors: {result['split']} ({result['model']['label']})", "",
             f"Signature: `{result['model']['signature']}`", ""]
    lines += [f"- {key}: {value}" for key, value in result["protocol"].items()]
    for half in ("all", "choose", "check"):
        lines += ["", f"## Methods, {half} ({result['n_stories'][half]} stories)", ""]
        lines += methods_table(result, half)
    lines += ["", "## Flags (shipped thresholds)", ""]
    lines += calibration_lines(result["calibration"])
    lines += [""] + flags_table(result)
    if "clean" in result:
        lines += ["", "## Clean texts (shipped thresholds)", ""] + clean_lines(result)
    synthetic = result.get("synthetic_dev")
    if synthetic:
        duplicates = synthetic["duplicates"]
        lines += ["", f"## Synthetic dev split ({synthetic['per_kind']} texts per kind)", "",
                  f"- duplicates flagged as duplication: {_percent(duplicates['found'], duplicates['found_interval'])}"
                  f" (with the default cap of {duplicates['cap']}: {_percent(duplicates['found_with_cap'])}; "
                  + ", ".join(f"{variant} {_percent(value)}" for variant, value in duplicates["by_variant"].items())
                  + ")"]
        for kind in ("intrusion", "moved", "swap"):
            if kind in synthetic:
                cell = synthetic[kind]
                lines.append(f"- {kind}: strongest flag on the broken sentence "
                             f"{_percent(cell['top_flag_on_break'], cell['top_flag_on_break_interval'])}, "
                             f"no flag {_percent(cell['no_flag'])}, sentences after no broken transition flagged "
                             f"{_percent(cell.get('flagged_elsewhere'))}")
        if "kinds" in synthetic:
            lines += [""] + kind_lines(synthetic)
    if "flag_rules" in result:
        lines += ["", "## Flag rules on the choosing half (kind and drift)", ""]
        lines += story_rule_lines(result["flag_rules"])
    targets = result["targets"]
    goals = target_file.load().cohesentia
    lines += ["", "## Targets (dev)", ""]
    for group, cell in targets["groups"].items():
        lines.append(f"- {group} (read by the {cell['evidence']} evidence): "
                     + _ranking_verdict(cell, goals.auc_min, goals.top1_over_random_min))
        for half, check in cell.get("flags", {}).items():
            lines.append(f"  - explain's ranking (flag-order), {half} half: "
                         + _ranking_verdict(check, goals.flags_auc_min, goals.flags_top1_over_random_min))
    lines.append(f"- fully coherent sentences flagged: "
                 f"{_percent(targets['fully_coherent_flagged'], targets.get('fully_coherent_flagged_interval'))}% "
                 f"({'met' if targets['fully_coherent_met'] else 'not met'}, "
                 f"<= {100 * goals.fully_coherent_flagged_max:g}%)")
    if "clean_texts_flagged" in targets:
        lines.append(f"- clean texts of the check half with any flag: "
                     f"{_percent(targets['clean_texts_flagged'], targets.get('clean_texts_flagged_interval'))}% "
                     f"({'met' if targets['clean_texts_met'] else 'not met'}, "
                     f"<= {100 * goals.clean_texts_flagged_max:g}%)")
    if "duplicates_found" in targets:
        lines.append(f"- synthetic duplicates found: "
                     f"{_percent(targets['duplicates_found'], targets.get('duplicates_found_interval'))}% "
                     f"({'met' if targets['duplicates_met'] else 'not met'}, >= {100 * goals.duplicates_found_min:g}%)")
    for name, cell in (targets.get("kinds_named_right") or {}).items():
        share = (f"{_percent(cell['right_when_flagged'], cell.get('right_when_flagged_interval'))}%"
                 if cell["right_when_flagged"] is not None else "none (no flag at the break)")
        lines.append(f"- {name}: flags at the break named {cell['expected']}: {share} "
                     f"({'met' if cell['met'] else 'not met'}, >= {100 * goals.kinds_named_right_min:g}%)")
    timed = (result.get("cost") or {}).get("explain")
    if timed:
        lines += ["", f"## Cost ({timed['texts']} stories of 6-10 sentences, mean {timed['mean_sentences']:.1f}; "
                      f"{timed['device']}, {timed['dtype']}, {timed['threads']} threads)", "",
                  f"- explain (every kind of evidence): {timed['explain_texts_per_second']:.2f} texts/s",
                  f"- its transitions and score alone (explain before kinds of break): "
                  f"{timed['transitions_and_score_texts_per_second']:.2f} texts/s",
                  f"- score: {timed['score_texts_per_second']:.2f} texts/s"]
    seconds = (result.get("cost") or {}).get("seconds")
    if seconds:
        lines += ["", "Signals' cost on the stories (seconds, this machine): "
                  + ", ".join(f"{name} {value:.1f}" for name, value in seconds.items())]
    lines += ["", f"Seed {result['seed']}; {result.get('seconds', 0):.0f} s.", ""]
    return "\n".join(lines)
