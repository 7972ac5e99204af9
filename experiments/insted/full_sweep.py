"""The shipped parts re-weighted on every pair of the paper suite: can any weight meet the required target (beat No FT
and adjacent cosine on every set) at once?

    python -m experiments.insted.full_sweep [SET ...]

Two sweeps over the full-set scores in the benchmark cache (``coherence-metric benchmark --model cm-minilm-2026.11
--suite all`` for the 0.1.0 default and the baselines, ``python -m experiments.score_sets SET runs/base-852da`` for the
fine-tuned model alone): the default + c x adjacent cosine, and the fine-tuned model + w x the shipped sentence-level
term (the 0.1.0 default is w = 0.5). These are *test-set* sweeps, used only to ask whether the target is reachable
along these axes, never to choose a weight: MODELS.md quotes them in "Why INSTED-WIKI stays under cosine".
"""

from __future__ import annotations

import sys
from typing import Dict, List

from coherence_metric.research.catalogue import suite_test_sets
from experiments.insted.cached import COSINE, DEFAULT, HEAD, NO_FT, cached_scores, load_test_set, metric, shipped_term

COSINE_WEIGHTS = (0, 0.5, 1, 2, 4, 8, 16)
TERM_WEIGHTS = (0, 0.5, 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2, 4, 8, 1000)


def sweep(name: str) -> None:
    """Print both sweeps of one test set, beside its No FT and cosine baselines."""
    test_set, _, pos_index, neg_index = load_test_set(name, limit=None)

    def score(values: List[float]) -> float:
        return metric(test_set, pos_index, neg_index, values, digits=2)

    default, head, cos = (cached_scores(name, needle, limit=None) for needle in (DEFAULT, HEAD, COSINE))
    term = shipped_term(name, limit=None)
    baselines: Dict[str, float] = {"No FT": score(cached_scores(name, NO_FT, limit=None)), "cos": score(cos)}
    print(name, "default + c x cos:", {c: score([d + c * x for d, x in zip(default, cos)]) for c in COSINE_WEIGHTS},
          baselines, flush=True)
    print(name, "fine-tuned + w x term:", {w: score([h + w * t for h, t in zip(head, term)]) for w in TERM_WEIGHTS},
          flush=True)


def main(names: List[str]) -> None:
    for name in names or suite_test_sets("paper"):
        sweep(name)


if __name__ == "__main__":
    main(sys.argv[1:])
