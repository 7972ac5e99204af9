"""The Markdown report of a speed run: documents per second and memory per configuration, and the ratios
ours / paper-faithful that make the numbers portable across machines.
"""

from __future__ import annotations

from typing import Any, Mapping


def render_speed_markdown(result: Mapping[str, Any]) -> str:
    """Render a speed result (``run_speed``'s dict, or its JSON read back) as Markdown.

    Args:
        result: the speed run result.

    Returns:
        The Markdown text: settings, a throughput table, a memory table and notes.
    """
    model = result["model"]
    configurations = result["configurations"]
    reference = result["paper_reference"]
    load = result.get("load_average") or {}
    lines = [
        f"## Speed: {model['label']}",
        "",
        f"Device {result['device']}, {result['threads']} torch threads on {result.get('cpu_count')} CPUs "
        f"(load average before {load.get('before')}, after {load.get('after')}); max_length {model['max_length']}; "
        f"{result['seconds']:.0f} s in all. Signature: `{model['signature']}`",
        "",
        "| Texts | n | mean tokens | " + " | ".join(f"{configurations[key]} docs/s" for key in configurations)
        + " | speed-up ours | speed-up ours unsorted |",
        "|---|---:|---:|" + "---:|" * (len(configurations) + 2),
    ]
    for row in result["sets"]:
        runs = row["runs"]
        cells = [_rate(runs.get(key)) for key in configurations]
        ratios = row.get("ratios", {})
        lines.append(f"| {row['name']} | {row['n_texts']} | {row['mean_tokens']} | " + " | ".join(cells)
                     + f" | {_times(ratios.get('ours_speedup'))} | {_times(ratios.get('ours_unsorted_speedup'))} |")
    lines += [
        "",
        "| Texts | " + " | ".join(f"{configurations[key]} MiB (weights + peak rise)" for key in configurations)
        + " | memory ours / paper |",
        "|---|" + "---:|" * (len(configurations) + 1),
    ]
    for row in result["sets"]:
        runs = row["runs"]
        cells = [_memory(runs.get(key)) for key in configurations]
        lines.append(f"| {row['name']} | " + " | ".join(cells)
                     + f" | {_times(row.get('ratios', {}).get('ours_memory'))} |")
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
        "- Times include tokenization; each configuration first scores 1-2 texts untimed (warm-up).",
    ]
    if result.get("skipped_targets"):
        lines.append(f"- Lengths {', '.join(map(str, result['skipped_targets']))} skipped: above the model's "
                     f"max_length {model['max_length']}.")
    if result.get("limit") is not None:
        lines.append(f"- --limit {result['limit']}: {result['limit']} texts per set instead of 1,000.")
    return "\n".join(lines) + "\n"


def _rate(run: Any) -> str:
    return "" if run is None else f"{run['docs_per_second']:.2f}"


def _memory(run: Any) -> str:
    return "" if run is None else f"{run['peak_memory_mb']:.0f} ({run['weights_mb']:.0f} + {run['rss_rise_mb']:.0f})"


def _times(value: Any) -> str:
    return "" if value is None else f"{value:.2f}×"


def _shape(config: Mapping[str, Any]) -> str:
    return ", ".join(f"{key} {value}" for key, value in config.items())
