"""A fine-tuned checkpoint alone, and plus the shipped sentence-level term, on chosen sets at ``--limit 500``.

    python -m experiments.insted.eval_head runs/insted-short-last/final INSTED-WIKI NEWS-INTRUSION NEWS-PERMUTED

The checkpoint's scores are computed (or read) through the benchmark's own cache, so a later ``breakdown`` can
name it by fingerprint.
"""

from __future__ import annotations

import sys
from typing import List

from coherence_metric import CoherenceScorer
from coherence_metric.benchmarks.suites.scoring import score_test_set
from coherence_metric.benchmarks.suites.systems import model_system
from coherence_metric.research.cache import JsonCache
from experiments.insted.cached import COSINE, DEFAULT, HEAD, LIMIT, cached_scores, load_test_set, metric, shipped_term


def main(argv: List[str]) -> None:
    scorer = CoherenceScorer(argv[0])
    system, cache = model_system(scorer), JsonCache()
    print("checkpoint", scorer.signature)
    for name in argv[1:]:
        test_set, _, pos_index, neg_index = load_test_set(name)
        score_test_set(system, test_set, cache, LIMIT, 0)  # scores (or finds) them in the cache, read back per document
        new = cached_scores(name, system.system_id)
        term = shipped_term(name)
        row = {label: metric(test_set, pos_index, neg_index, cached_scores(name, needle))
               for label, needle in (("cos", COSINE), ("852da", HEAD), ("default", DEFAULT))}
        row["new"] = metric(test_set, pos_index, neg_index, new)
        for w in (0.25, 0.5, 1):
            row[f"new+{w}term"] = metric(test_set, pos_index, neg_index, [n + w * t for n, t in zip(new, term)])
        print(name, row, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
