"""Score one test set on every pair for each checkpoint folder, into the benchmark's own cache.

    python -m experiments.score_sets NEWS-INTRUSION runs/full-fadc8a runs/base-852da

The benchmark scores its sets in a fixed order; this fills one set's cell out of order with the same system and
cache key as ``coherence-metric benchmark --model FOLDER`` (no ``--limit``, seed 0), so a later benchmark run of that
folder reads it back instead of scoring it again. MODELS.md's full-set table used it for cells the runs had not
reached.
"""

from __future__ import annotations

import sys
from typing import List

from coherence_metric import CoherenceScorer
from coherence_metric.benchmarks.suites.scoring import evaluate, score_test_set
from coherence_metric.benchmarks.suites.systems import model_system
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.catalogue import load_benchmark_test_set


def main(argv: List[str]) -> None:
    name, folders = argv[0], argv[1:]
    test_set, cache = load_benchmark_test_set(name, limit=None, seed=0), JsonCache()
    for folder in folders:
        system = model_system(CoherenceScorer(folder))
        result = evaluate(test_set, score_test_set(system, test_set, cache, None, 0))
        print(folder, name, {key: value for key, value in result.items() if not isinstance(value, (list, dict))},
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
