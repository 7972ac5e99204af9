"""Choose how ``explain``'s fallback mixes the model's pair scores with adjacent-sentence cosine, on DEV documents.

The localisation suite (test split) found the model's pair scores alone below the adjacent cosine of pretrained
sentence embeddings on every kind (issue 38). This measures, on the same recipe built from the news corpora's *dev*
documents (never the test split), per text ``z(pair) + c * z(cosine)`` (each standardised within the text, so only
the ranking of a text's transitions matters) for a grid of ``c``, and prints top-1 / top-2 hit rates per kind.

    python -m experiments.localisation_blend --model default --limit 200 --out runs/localisation-blend-dev.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from coherence_metric import CoherenceScorer
from coherence_metric.benchmarks.localisation import cosine_transitions, evaluate, evaluate_random
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.localisation_sets import KINDS, load_localisation_sets
from coherence_metric.scoring.transitions import score_transitions


def standardised(values: Sequence[float]) -> List[float]:
    """The values minus their mean, over their standard deviation (all zeros when they do not vary): a text's
    transitions on a scale of their own, so that two mechanisms' rankings of them can be mixed."""
    if not values:
        return []
    mean = sum(values) / len(values)
    spread = (sum((value - mean) ** 2 for value in values) / len(values)) ** 0.5
    return [0.0] * len(values) if spread == 0 else [(value - mean) / spread for value in values]


def standardised_blend(first: Sequence[float], second: Sequence[float], weight: float) -> List[float]:
    """``standardised(first) + weight * standardised(second)``, transition by transition."""
    if len(first) != len(second):
        raise ValueError(f"cannot blend {len(first)} transitions with {len(second)}")
    return [a + weight * b for a, b in zip(standardised(first), standardised(second))]


GRID = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)


def blend_rows(pair: Sequence[Sequence[float]], cosine: Sequence[Sequence[float]],
               weight: Optional[float]) -> List[List[float]]:
    """Per text, the blend (``weight`` None: cosine alone)."""
    if weight is None:
        return [list(row) for row in cosine]
    return [standardised_blend(p, c, weight) for p, c in zip(pair, cosine)]


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    sets = load_localisation_sets(args.limit, args.seed, JsonCache(None), split="dev")
    scorer = CoherenceScorer(args.model, dtype="fp32")
    table: Dict[str, Any] = {"model": args.model, "split": "dev", "limit": args.limit, "rows": []}
    values = {}
    for kind in KINDS:
        texts = [item.sentences for item in sets[kind]]
        values[kind] = (score_transitions(scorer, texts), cosine_transitions(texts))
        table.setdefault("random", {})[kind] = evaluate_random(sets[kind])
    for weight in [*GRID, None]:
        row: Dict[str, Any] = {"weight": weight, "kinds": {}}
        for kind in KINDS:
            pair, cosine = values[kind]
            row["kinds"][kind] = evaluate(sets[kind], blend_rows(pair, cosine, weight), args.seed)
        row["mean_top1"] = float(np.mean([row["kinds"][kind]["top1"] for kind in KINDS]))
        table["rows"].append(row)
        label = "cosine alone" if weight is None else f"pair + {weight:g} x cosine"
        cells = [f"{kind} {100 * row['kinds'][kind]['top1']:.1f}/{100 * row['kinds'][kind]['top2']:.1f}"
                 for kind in KINDS]
        print(f"{label:>22}: " + "  ".join(cells) + f"  mean top-1 {100 * row['mean_top1']:.1f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
