"""The shipped default + c x adjacent-sentence cosine on every pair of the paper suite: can any weight meet the
required target (beat No FT and adjacent cosine on every set) at once?

    python -m experiments.insted.cosine_weight [SET ...]

Reads the full-set scores ``coherence-metric benchmark --model default --suite all`` left in the benchmark cache
(the default's and the two baselines'). This is a *test-set* sweep, used only to ask whether the target is
reachable along this axis, never to choose a weight: MODELS.md quotes it for "no c beats cosine on INSTED-WIKI
while staying above the untrained head on SUMMEVAL".
"""

from __future__ import annotations

import sys

from benchmarks.suites.catalogue import suite_test_sets
from experiments.insted.cached import COSINE, DEFAULT, cached_scores, load_test_set, metric

NO_FT = "no-ft|"
COSINE_WEIGHTS = (0, 0.5, 1, 2, 4, 8, 16)


def main(names: list[str]) -> None:
    for name in names or suite_test_sets("paper"):
        test_set, _, pos_index, neg_index = load_test_set(name, limit=None)
        default, cos = cached_scores(name, DEFAULT, limit=None), cached_scores(name, COSINE, limit=None)
        row = {f"c={c}": metric(test_set, pos_index, neg_index, [d + c * x for d, x in zip(default, cos)], digits=2)
               for c in COSINE_WEIGHTS}
        row["No FT"] = metric(test_set, pos_index, neg_index, cached_scores(name, NO_FT, limit=None), digits=2)
        row["cos"] = metric(test_set, pos_index, neg_index, cos, digits=2)
        print(name, row, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
