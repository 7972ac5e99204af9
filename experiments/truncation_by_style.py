"""The dev order and truncation checks in each text style: is SummEval's truncation gap a style gap? (issue 41)

The 0.7.0 default prefers a text's first sentence alone to the whole text in 44.6% of dev texts but 66.6% of
SummEval's summaries (0.4.0: 41.7 / 60.0), and SummEval's summaries arrive lower-cased and PTB-tokenised. This scores
``dev_report``'s check texts (held-out leads of the training corpora's dev split, never a test set) in the four styles
training uses and reports ``run_dev_checks`` for each, so a recipe can be read against the style a user's texts come
in without touching SummEval.

    python -m experiments.truncation_by_style cm-minilm-joint-long-2026.11 cm-minilm-joint-boundary-2026.11 \\
        --out runs/truncation-by-style.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Dict, List, Optional

from coherence_metric import CoherenceScorer
from coherence_metric.training.pointwise.dev_checks import DevTexts, run_dev_checks
from coherence_metric.training.pointwise.dev_report import load_dev_data
from coherence_metric.training.pointwise.texts import STYLES, styled


def in_style(checks: DevTexts, style: str) -> DevTexts:
    """The same check texts, every sentence rewritten in ``style``."""
    return DevTexts([styled(text, style) for text in checks.texts],
                    [styled(text, style) for text in checks.shuffles],
                    [styled(text, style) for text in checks.lengths])


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+", help="packaged names or folders (name them: `default` moves)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    checks = load_dev_data().checks
    results: Dict[str, Dict[str, Dict[str, float]]] = {}
    for checkpoint in args.checkpoints:
        scorer = CoherenceScorer(checkpoint, dtype="fp32")

        def score(texts: List[List[str]], scorer: CoherenceScorer = scorer) -> List[float]:
            return scorer.score(texts).scores

        results[checkpoint] = {}
        for style in STYLES:
            results[checkpoint][style] = run_dev_checks(in_style(checks, style), score)
            row = results[checkpoint][style]
            print(f"{checkpoint} {style:>15}: own shuffle {row['own_shuffle']:.3f} first>whole "
                  f"{row['first_beats_whole']:.3f} gap {row['truncation_gap_sd']:+.2f} sd "
                  f"count rho {row['count_spearman']:+.2f}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"texts": len(checks.texts), "results": results}, indent=1))


if __name__ == "__main__":
    main()
