"""The Markdown report of a speed run: documents per second and memory per configuration, the forward-only limit
and each configuration's share of it, where the time goes, the score deviation from fp32, and the ratios
ours / paper-faithful that make the numbers portable across machines.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from coherence_metric.toolkit import STAGES

#: The profile's columns: every stage the scorer times (the transition pass of a transition term among them, so the
#: shares of a configuration add up to its wall time), then the Python between them.
PROFILE_COLUMNS = (*STAGES, "other")


def render_speed_markdown(result: Mapping[str, Any]) -> str:
    """Render a speed result (``run_speed``'s dict, or its JSON read back) as Markdown.

    Args:
        result: the speed run result.

    Returns:
        The Markdown text: settings, a throughput table, a memory table, the profile, the deviation and notes.
    """
    model = result["model"]
    configurations = result["configurations"]
    ours_keys = [key for key in configurations if key != "paper"]
    reference = result["paper_reference"]
    load = result.get("load_average") or {}
    sets = result["sets"]
    limit_keys = list(sets[0].get("forward_limit", {})) if sets else []
    cpu = f" ({result['cpu']})" if result.get("cpu") else ""
    lines = [
        f"## Speed: {model['label']}",
        "",
        f"Device {result['device']}{cpu}, {result['threads']} torch threads on {result.get('cpu_count')} CPUs "
        f"(load average before {load.get('before')}, after {load.get('after')}); max_length {model['max_length']}; "
        f"{result['seconds']:.0f} s in all. Signature: `{model['signature']}`",
        "",
        *headline(result),
        "| Texts | n | mean tokens | " + " | ".join(f"{configurations[key]} docs/s" for key in configurations)
        + "".join(f" | forward-only limit {key} docs/s" for key in limit_keys)
        + "".join(f" | share of the limit: {_short(key)}" for key in ours_keys if limit_keys)
        + "".join(f" | speed-up {_short(key)}" for key in ours_keys) + " |",
        "|---|---:|---:|" + "---:|" * (len(configurations) + len(limit_keys) + len(ours_keys) * (2 if limit_keys
                                                                                                   else 1)),
    ]
    for row in sets:
        runs = row["runs"]
        cells = [_rate(runs.get(key)) for key in configurations]
        cells += [_rate(row["forward_limit"].get(key)) for key in limit_keys]
        if limit_keys:
            cells += [_percent(row.get("shares", {}).get(key)) for key in ours_keys]
        ratios = row.get("ratios", {})
        cells += [_times(ratios.get(f"{key}_speedup")) for key in ours_keys]
        lines.append(f"| {row['name']} | {row['n_texts']} | {row['mean_tokens']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| Texts | " + " | ".join(f"{configurations[key]} MiB (weights + peak rise)" for key in configurations)
        + " | memory ours / paper |",
        "|---|" + "---:|" * (len(configurations) + 1),
    ]
    for row in sets:
        runs = row["runs"]
        cells = [_memory(runs.get(key)) for key in configurations]
        lines.append(f"| {row['name']} | " + " | ".join(cells)
                     + f" | {_times(row.get('ratios', {}).get('ours_memory'))} |")
    if any(row.get("profiles") for row in sets):
        lines += [
            "",
            "Where the time goes (share of each configuration's wall time; `other` is the Python between the stages):",
            "",
            "| Texts | configuration | " + " | ".join(PROFILE_COLUMNS) + " | wall s |",
            "|---|---|" + "---:|" * (len(PROFILE_COLUMNS) + 1),
        ]
        for row in sets:
            for key, profile in row.get("profiles", {}).items():
                wall = profile.get("wall") or 0.0
                cells = [_percent(profile.get(column, 0.0) / wall if wall else None) for column in PROFILE_COLUMNS]
                lines.append(f"| {row['name']} | {_short(key)} | " + " | ".join(cells) + f" | {wall:.2f} |")
    deviations = [(row["name"], row["deviation"]) for row in sets if row.get("deviation")]
    if deviations:
        lines += ["", f"Scores of ours ({model['dtype']}) against ours in fp32, the same texts: "
                  + "; ".join(f"{name}: max |Δ| {value['max_abs']:.4f}, mean |Δ| {value['mean_abs']:.4f}"
                              for name, value in deviations) + "."]
    sample = reference["sample_per_set"]
    lines += [
        "",
        "Notes:",
        f"- The paper-faithful reference scored the first {sample} texts of each set (its wall time for the whole "
        "set is extrapolated in the JSON); it pads every input to 602 tokens, so its cost per text does not depend "
        f"on the text. Shape: {_shape(reference['config'])}, random weights ({reference['weights_mb']} MiB), no "
        "attention mask, batch size 1, fp32, under inference mode.",
        "- Speed-up = ours docs/s ÷ paper-faithful docs/s, measured in the same process on the same texts; the ratio "
        "travels between machines better than the absolute numbers.",
        f"- Memory: {result['memory_method']}; the rise is measured above the process's size just before each "
        "configuration ran (all models stay loaded; freed heap pages are handed back to the OS first), so it is "
        "the activations and buffers of that configuration; allocator caching makes it approximate.",
        "- Times include tokenization; each configuration first scores one batch of texts untimed (warm-up; the "
        "paper-faithful reference one text).",
    ]
    if limit_keys:
        lines.append(f"- Forward-only limit: {result.get('forward_limit', 'the document model alone')}, on the "
                     "set's own token ids, tokenised and padded beforehand; share = docs/s ÷ that limit. A checkpoint "
                     "with a sentence-level term runs a second encoder over the same text, so its share is about "
                     "half at best.")
    if result.get("skipped_targets"):
        lines.append(f"- Lengths {', '.join(map(str, result['skipped_targets']))} skipped: above the model's "
                     f"max_length {model['max_length']}.")
    if result.get("limit") is not None:
        lines.append(f"- --limit {result['limit']}: {result['limit']} texts per set instead of 1,000.")
    return "\n".join(lines) + "\n"


#: The set the headline reads, when the run has it: the length the speed targets are stated at.
HEADLINE_TOKENS = 256


def headline_row(result: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    """The set of a speed report at :data:`HEADLINE_TOKENS` tokens, the length the targets are stated at; None when
    the run has no such set."""
    return next((row for row in result["sets"] if row.get("target_tokens") == HEADLINE_TOKENS), None)


def share_of_fastest_limit(row: Mapping[str, Any], key: str) -> Any:
    """A configuration's docs/s as a share of the fastest forward-only limit of its set on this machine (the limit of
    whichever dtype ran the document model faster), or None where the run has no limit or no such configuration."""
    limits = [limit["docs_per_second"] for limit in row.get("forward_limit", {}).values()]
    run = row["runs"].get(key)
    return None if not limits or run is None else run["docs_per_second"] / max(limits)


def headline(result: Mapping[str, Any]) -> list[str]:
    """The report's first line of numbers: machine-relative first (the share of the fastest forward-only limit
    here, which does not depend on how fast this machine is), then the ratio to the paper-faithful reference (which
    moves by about 20% from run to run); empty for a run without forward-only limits."""
    row = headline_row(result) or next(iter(result["sets"]), None)
    if row is None or not row.get("forward_limit"):
        return []
    share = share_of_fastest_limit(row, "ours")
    if share is None:
        return []
    limits = row["forward_limit"]
    fastest = max(limits, key=lambda key: limits[key]["docs_per_second"])
    dtype = result["model"]["dtype"]
    text = (f"**Headline** ({row['name']}): the scorer as configured ({dtype}) ran "
            f"{row['runs']['ours']['docs_per_second']:.2f} docs/s, **{100 * share:.0f}% of the fastest forward-only "
            f"limit on this machine** ({fastest}, {limits[fastest]['docs_per_second']:.2f} docs/s)")
    speedup = row.get("ratios", {}).get("ours_speedup")
    if speedup is not None:
        text += f", {speedup:.1f}× the paper-faithful reference (a ratio that moves by about 20% from run to run)"
    if fastest != dtype:
        text += f". On this machine {fastest} is the faster path"
    return [text + ".", ""]


def _short(key: str) -> str:
    return key.replace("_", " ")


def _rate(run: Any) -> str:
    return "" if run is None else f"{run['docs_per_second']:.2f}"


def _memory(run: Any) -> str:
    return "" if run is None else f"{run['peak_memory_mb']:.0f} ({run['weights_mb']:.0f} + {run['rss_rise_mb']:.0f})"


def _times(value: Any) -> str:
    return "" if value is None else f"{value:.2f}×"


def _percent(value: Any) -> str:
    return "" if value is None else f"{100 * value:.0f}%"


def _shape(config: Mapping[str, Any]) -> str:
    return ", ".join(f"{key} {value}" for key, value in config.items())
