"""Is a full-set accuracy margin bigger than its resampling noise? A paired, clustered bootstrap over cached scores.

    python -m experiments.significance SET SYSTEM_A SYSTEM_B [SET SYSTEM_A SYSTEM_B ...]

``SYSTEM_*`` is a needle of a cached system id of the full set (``@145d43c75880`` for the default, ``no-ft|``,
``adjacent-cosine``, ``@fadc8a841dbe``...), as ``coherence-metric benchmark`` left them in its cache. Pairs are
resampled by cluster, the part of a pair's id before ``/``: SUMMEVAL's source article (its 10,628 pairs come from 100
articles, so pairs of one article are not independent), the permuted sets' and NEWS-INTRUSION's source document (20
permutations each; some documents give several blocks); INSTED-WIKI and STORYCLOZE have one pair per source, so they
are resampled pair by pair.
Prints A - B in accuracy points with a 95% percentile interval (``coherence_metric.statistics.bootstrap``'s resample
count and seed: 1,000 and 12345). Accuracy sets only (not LMVLM).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Dict, List, Sequence

import numpy as np

from coherence_metric.statistics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from experiments.insted.cached import cached_scores, load_test_set


def cluster_of(item_id: str) -> str:
    """The source a pair was made from: the id's part before ``/`` (the whole id when it has none)."""
    return item_id.split("/")[0]


def margin(name: str, needle_a: str, needle_b: str) -> Dict[str, float]:
    """A's accuracy minus B's on every pair of ``name`` (ties lose), with its clustered 95% interval."""
    test_set, _, pos_index, neg_index = load_test_set(name, limit=None)
    a, b = cached_scores(name, needle_a, limit=None), cached_scores(name, needle_b, limit=None)
    wins_a = np.array([a[p] > a[n] for p, n in zip(pos_index, neg_index)], dtype=float)
    wins_b = np.array([b[p] > b[n] for p, n in zip(pos_index, neg_index)], dtype=float)
    clusters: Dict[str, List[int]] = defaultdict(list)
    for index, item in enumerate(test_set.items):
        clusters[cluster_of(item.id)].append(index)
    members: Sequence[List[int]] = list(clusters.values())
    difference = wins_a - wins_b
    sums = np.array([difference[m].sum() for m in members])
    sizes = np.array([len(m) for m in members])
    rng = np.random.default_rng(DEFAULT_SEED)
    draws = rng.integers(0, len(members), size=(DEFAULT_RESAMPLES, len(members)))
    resampled = sums[draws].sum(axis=1) / sizes[draws].sum(axis=1)
    low, high = np.percentile(resampled, [2.5, 97.5])
    return {"A - B": round(100 * float(difference.mean()), 2), "low": round(100 * float(low), 2),
            "high": round(100 * float(high), 2), "clusters": len(members), "pairs": len(difference)}


def main(argv: List[str]) -> None:
    if not argv or len(argv) % 3:
        raise SystemExit("usage: python -m experiments.significance SET SYSTEM_A SYSTEM_B [...]")
    for start in range(0, len(argv), 3):
        name, needle_a, needle_b = argv[start:start + 3]
        print(name, needle_a, "vs", needle_b, margin(name, needle_a, needle_b), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
