"""The table ``train prepare`` prints at the end: documents, positives, negatives, tokens per split and corpus."""

from __future__ import annotations

from typing import Any, Dict, List

COLUMNS = (
    ("documents", "docs"),
    ("documents_used", "used"),
    ("positives", "positives"),
    ("negatives", "negatives"),
    ("tokens", "tokens"),
)


def _row(label: str, counts: Dict[str, int]) -> str:
    return f"{label:<16}" + "".join(f"{counts.get(key, 0):>12,}" for key, _ in COLUMNS)


def format_summary(manifest: Dict[str, Any]) -> str:
    """Render a manifest's counts as a plain-text table, one block per split then one per corpus.

    Args:
        manifest: the dict ``prepare_dataset`` returns (or ``manifest.json`` parsed).

    Returns:
        Lines of text; "used" counts documents that gave at least one positive.
    """
    header = f"{'':<16}" + "".join(f"{title:>12}" for _, title in COLUMNS)
    lines: List[str] = ["per split", header]
    for split in ("train", "dev", "test"):
        lines.append(_row(split, manifest["counts"][split]))
    lines += ["", "per corpus (all splits)", header]
    for corpus, per_split in manifest["counts_by_corpus"].items():
        merged: Dict[str, int] = {}
        for counts in per_split.values():
            for key, value in counts.items():
                merged[key] = merged.get(key, 0) + value
        lines.append(_row(corpus, merged))
    totals: Dict[str, int] = {}
    for counts in manifest["counts"].values():
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
    min_sentences = manifest["recipe"]["min_sentences"]
    lines += [
        "",
        f"dropped: {totals.get('documents_short', 0):,} documents under {min_sentences} sentences, "
        f"{totals.get('documents_duplicate', 0):,} duplicates; {totals.get('blocks_dropped_at_cap', 0):,} blocks "
        f"over {manifest['max_tokens']} tokens dropped, {totals.get('blocks_cut_at_cap', 0):,} cut; "
        f"{totals.get('positives_with_fewer_negatives', 0):,} positives have fewer than "
        f"{manifest['negatives']} negatives",
    ]
    return "\n".join(lines)
