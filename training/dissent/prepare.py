"""Run the extraction by itself and print per-marker counts (the paper's Table 2 shape).

    python -m coherence_metric.training.dissent.prepare --parser spacy --max-sentences 20000 \
        --cache-dir runs/dissent-data

Recipes call :func:`coherence_metric.training.dissent.dataset.build_pair_cache` themselves; this entry point is for
looking at the data first (counts, SS/IPS shares, the 50-pair ``sample.tsv`` to hand-check).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any, Dict, List, Optional

from coherence_metric.errors import CoherenceMetricError

from .dataset import DEFAULT_CORPORA, ExtractionSettings, build_pair_cache, read_counts
from .markers import BOOKS_5, BOOKS_8, BOOKS_ALL


def counts_table(counts: Dict[str, Any]) -> str:
    """Markdown: pairs per marker (all splits), percent, SS/IPS, and the totals of the three marker sets."""
    per_marker: Dict[str, int] = counts["per_marker"]
    total = max(int(counts["total"]), 1)
    lines = ["| marker | pairs | % | same sentence | previous sentence |", "|---|---:|---:|---:|---:|"]
    for marker in sorted(per_marker, key=lambda name: -per_marker[name]):
        places = counts["ss_ips"].get(marker, {})
        lines.append(f"| {marker} | {per_marker[marker]:,} | {100 * per_marker[marker] / total:.2f} | "
                     f"{places.get('SS', 0):,} | {places.get('IPS', 0):,} |")
    lines.append(f"| total | {int(counts['total']):,} | 100.0 | | |")
    for name, markers in (("Books 5", BOOKS_5), ("Books 8", BOOKS_8), ("ALL", BOOKS_ALL)):
        splits = {split: sum(counts["per_split"][split].get(marker, 0) for marker in markers)
                  for split in ("train", "dev", "test")}
        lines.append(f"\n{name}: " + ", ".join(f"{split} {number:,}" for split, number in splits.items()))
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    """Parse arguments, extract (or reuse the cache) and print the table; one-line errors (exit status 2)."""
    parser = argparse.ArgumentParser(description="Extract DisSent (S1, marker, S2) pairs from the corpora.")
    parser.add_argument("--corpora", default=",".join(DEFAULT_CORPORA), help="comma-separated corpus names")
    parser.add_argument("--parser", default="spacy", choices=("spacy", "patterns"))
    parser.add_argument("--max-sentences", type=int, default=None, help="per corpus, whole documents")
    parser.add_argument("--cache-dir", default="runs/dissent-data")
    parser.add_argument("--processes", type=int, default=1)
    arguments = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    settings = ExtractionSettings(corpora=arguments.corpora.split(","), parser=arguments.parser,
                                  max_sentences_per_corpus=arguments.max_sentences)
    try:
        folder = build_pair_cache(settings, Path(arguments.cache_dir), processes=arguments.processes)
        counts = read_counts(folder)
    except CoherenceMetricError as error:
        parser.exit(2, f"error: {error}\n")
    print(f"{folder} ({counts['seconds']} s)")
    print(counts_table(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
