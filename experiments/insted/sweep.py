"""The fine-tuned model + w x the shipped sentence-level term (and + c x adjacent cosine) on every suite set.

    python -m experiments.insted.sweep

Only cached ``--limit 500`` scores are read. MODELS.md quotes it for "INSTED-WIKI passes cosine only at w = 4,
where NEWS-PERMUTED falls under 90%": dev chose w = 0.5.
"""

from __future__ import annotations

from coherence_metric.research.catalogue import suite_test_sets
from experiments.insted.cached import COSINE, HEAD, TERM_WEIGHT, cached_scores, load_test_set, metric, shipped_term

TERM_WEIGHTS = (0, 0.25, 0.5, 1, 2, 4, 8, 1000)
COSINE_WEIGHTS = (1, 2, 4, 8)


def main() -> None:
    for name in suite_test_sets("paper"):
        test_set, _, pos_index, neg_index = load_test_set(name)
        head, term, cos = cached_scores(name, HEAD), shipped_term(name), cached_scores(name, COSINE)
        row = {f"w={w}": metric(test_set, pos_index, neg_index, [h + w * t for h, t in zip(head, term)])
               for w in TERM_WEIGHTS}
        for c in COSINE_WEIGHTS:
            combined = [h + TERM_WEIGHT * t + c * x for h, t, x in zip(head, term, cos)]
            row[f"w={TERM_WEIGHT}+cos*{c}"] = metric(test_set, pos_index, neg_index, combined)
        row["cos"] = metric(test_set, pos_index, neg_index, cos)
        print(name, row, flush=True)


if __name__ == "__main__":
    main()
