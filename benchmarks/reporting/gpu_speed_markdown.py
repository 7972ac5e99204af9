"""The docs' Markdown tables of a ``gpu-speed.json`` report (:mod:`..speed.gpu_speed`): texts/s per tier, length and
dtype on the GPU, and the host ceiling a machine puts on any GPU's speed.

``make tables`` writes them from the newest committed report (``landing``); the measurement plan measures what the
table shows (:data:`DTYPES` at :data:`MAIN_BATCH`).
"""

from __future__ import annotations

from typing import Any, Dict

from .report_reader import tier_label

#: The dtypes of the table's columns, in order.
DTYPES = ("bf16", "fp16", "fp32")
#: The batch size of the table's main columns.
MAIN_BATCH = 64


def render_gpu_speed_markdown(report: Dict[str, Any]) -> str:
    """The docs' Markdown table of a report: texts/s per tier, length and dtype at batch 64, the fastest batch at
    the middle length (256 tokens), and peak GPU memory at batch 64 in bf16."""
    rows = report["rows"]
    lengths = sorted({row["tokens"] for row in rows})
    middle = lengths[len(lengths) // 2]
    checkpoint = {row["tier"]: row["checkpoint"] for row in rows}
    # Labelled by checkpoint, not by the row's "tier": the committed reports call the fast tier's rows "default".
    label = {tier: tier_label(name, tier) for tier, name in checkpoint.items()}
    lines = [f"| {report['device']}, texts/s | tokens | bf16, batch {MAIN_BATCH} | fp16, batch {MAIN_BATCH} | "
             f"fp32, batch {MAIN_BATCH} | fastest at {middle} tokens (batch, dtype) | peak GPU memory, batch "
             f"{MAIN_BATCH} bf16 |",
             "|---|---:|---:|---:|---:|---|---:|"]
    for tier in dict.fromkeys(row["tier"] for row in rows):
        for length in lengths:
            at = {row["dtype"]: row for row in rows
                  if row["tier"] == tier and row["tokens"] == length and row["batch"] == MAIN_BATCH}
            fastest = ""
            if length == middle:
                best = max((row for row in rows if row["tier"] == tier and row["tokens"] == middle),
                           key=lambda row: row["texts_per_second"])
                fastest = f"{best['texts_per_second']:,.0f} ({best['batch']}, {best['dtype']})"
            cells = [f"{at[dtype]['texts_per_second']:,.0f}" if dtype in at else "" for dtype in DTYPES]
            peak = at.get("bf16", {}).get("peak_gpu_mb")
            memory = f"{peak:,.0f} MiB" if peak is not None else ""
            lines.append(f"| {label[tier]} (`{checkpoint[tier]}`) | {length} | " + " | ".join(cells)
                         + f" | {fastest} | {memory} |")
    return "\n".join(lines) + "\n"


def render_host_ceiling_markdown(report: Dict[str, Any]) -> str:
    """The docs' Markdown table of a report's host ceilings: per tier and length, texts/s of a ``score`` call with
    the one-layer stand-in, and the share of it spent tokenising."""
    where = f"{report['cpu']}, {report['cpu_threads']} torch threads, model on {report['device']}"
    lines = [f"| host ceiling ({where}) | tokens | texts/s | of which tokenising |", "|---|---:|---:|---:|"]
    for row in report["host_ceiling"]:
        lines.append(f"| {tier_label(row['checkpoint'], row['tier'])} (`{row['checkpoint']}`) | {row['tokens']} | "
                     f"{row['texts_per_second']:,.0f} | {100 * row['tokenise_share']:.0f}% |")
    return "\n".join(lines) + "\n"
