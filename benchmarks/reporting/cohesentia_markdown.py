"""The Markdown report of ``benchmark cohesentia-dev``: the real-error dev ruler."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional

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
        label = f"**{name}** (explain's flags)" if name == "flag-margin" else name
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
    lines.append("Thresholds: " + ", ".join(f"{kind} {value:.3f}" for kind, value in shipped["thresholds"].items())
                 + "; recomputed on the choosing half's fully coherent stories (budgets "
                 + ", ".join(f"{kind} {100 * value:.1f}%" for kind, value in recomputed["budgets"].items()) + "): "
                 + ", ".join(f"{kind} {value:.3f}" for kind, value in recomputed["thresholds"].items()
                             if value is not None) + ".")
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
    targets = result["targets"]
    goals = target_file.load().cohesentia
    lines += ["", "## Targets (dev)", ""]
    for group, cell in targets["groups"].items():
        low, high = cell["auc_interval"]
        factor_low, factor_high = cell["top1_over_random_interval"]
        lines.append(f"- {group} (read by the {cell['evidence']} evidence): AUC {cell['auc']:.3f} [{low:.3f}, "
                     f"{high:.3f}] ({'met' if cell['auc_met'] else 'not met'}, >= {goals.auc_min:g}); top-1 "
                     f"{cell['top1_over_random']:.2f}x [{factor_low:.2f}, {factor_high:.2f}] random "
                     f"({'met' if cell['top1_met'] else 'not met'}, >= {goals.top1_over_random_min:g}x); explain's "
                     f"flag ranking: AUC "
                     f"{cell['flag_margin_auc']:.3f}, top-1 {cell['flag_margin_top1_over_random']:.2f}x")
    lines.append(f"- fully coherent sentences flagged: "
                 f"{_percent(targets['fully_coherent_flagged'], targets.get('fully_coherent_flagged_interval'))}% "
                 f"({'met' if targets['fully_coherent_met'] else 'not met'}, "
                 f"<= {100 * goals.fully_coherent_flagged_max:g}%)")
    if "duplicates_found" in targets:
        lines.append(f"- synthetic duplicates found: "
                     f"{_percent(targets['duplicates_found'], targets.get('duplicates_found_interval'))}% "
                     f"({'met' if targets['duplicates_met'] else 'not met'}, >= {100 * goals.duplicates_found_min:g}%)")
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
