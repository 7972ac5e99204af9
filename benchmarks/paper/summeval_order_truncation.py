"""Order and truncation on SummEval's own system summaries, measured once per shipped checkpoint: the
``summeval-order-truncation.json`` report that the landing page's known limits and MODELS.md's cards are written from.

A user who shuffles a summary's sentences, or keeps only its first sentence, should not be told the result is as good
or better. On the summaries of 3+ sentences (the test set; run after a choice, never to make one):

- own shuffle: how often the summary outscores one seeded shuffle of itself (ties half; random 0.5);
- first sentence alone: how often it outscores the whole summary (0.5 = neutral; 0.2.0's default: 0.972), and the mean
  of (first - whole) in standard deviations of the whole summaries' scores.

    python -m coherence_metric.benchmarks.paper.summeval_order_truncation cm-minilm-gpu-joint-2026.11 \
        --out benchmarks/reports/cm-minilm-gpu-joint-2026.11/summeval-order-truncation.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional

from coherence_metric import CoherenceScorer
from coherence_metric.research.datasets.ratings import load_summeval_ratings
from coherence_metric.research.permutations import negative_orders

from ..reporting.files import write_script_output

SEED = 41


def win_credit(first: float, second: float) -> float:
    """1 when ``first`` scores higher, 0.5 for a tie, 0 otherwise (the dev checks' credit, read on the test set)."""
    return 1.0 if first > second else 0.5 if first == second else 0.0


def summaries(min_sentences: int = 3, data_dir: Optional[Path] = None) -> List[List[str]]:
    """SummEval's summaries with at least ``min_sentences`` sentences, in file order."""
    return [list(text.sentences) for text in load_summeval_ratings(data_dir).texts
            if len(text.sentences) >= min_sentences]


def measure(model: str, texts: List[List[str]]) -> Dict[str, Any]:
    """The two checks for one checkpoint (fp32, as every published accuracy)."""
    shuffled = []
    for index, text in enumerate(texts):
        order = negative_orders(text, 1, random.Random(f"{SEED}:{index}"))[0]
        shuffled.append([text[position] for position in order])
    firsts = [text[:1] for text in texts]
    scorer = CoherenceScorer(model, dtype="fp32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = scorer.score(texts + shuffled + firsts)
    n = len(texts)
    whole, shuffle, first = scores.scores[:n], scores.scores[n:2 * n], scores.scores[2 * n:]

    spread = statistics.pstdev(whole)
    return {"model": model, "signature": str(scores.signature), "n": n,
            "own_shuffle": statistics.fmean(win_credit(w, s) for w, s in zip(whole, shuffle)),
            "first_beats_whole": statistics.fmean(win_credit(f, w) for f, w in zip(first, whole)),
            "first_minus_whole_sd": statistics.fmean(f - w for f, w in zip(first, whole)) / spread}


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    texts = summaries()
    rows = [measure(model, texts) for model in args.models]
    for row in rows:
        print(f"{row['model']}: n={row['n']} own shuffle {row['own_shuffle']:.3f}, first sentence alone above the "
              f"whole {row['first_beats_whole']:.3f} (mean {row['first_minus_whole_sd']:+.2f} sd)")
    if args.out:
        write_script_output(args.out, json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
