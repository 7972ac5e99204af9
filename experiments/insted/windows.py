"""The fine-tuned model read k sentences at a time: can it find INSTED-WIKI's intruder locally?

    python -m experiments.insted.windows [SET] [FOLDER]

Scores every k-sentence window (stride 1; a text of k sentences or fewer is its own window) of the ``--limit 500``
subset with ``FOLDER`` (default ``runs/base-852da``, the fine-tuned model alone), and reads a text as the mean or the
minimum of its windows' scores, alone and beside the whole-text score or 2 x adjacent cosine. The model attends
across the sentences of a window jointly, unlike the pair scorer over frozen embeddings MODELS.md also reports.
"""

from __future__ import annotations

import sys
import time
from statistics import mean
from typing import List, Sequence

from coherence_metric.scorer import CoherenceScorer
from experiments.insted.cached import COSINE, HEAD, cached_scores, load_test_set, metric

WINDOW_SIZES = (2, 3)


def windows_of(documents: Sequence[Sequence[str]], size: int) -> tuple[List[List[str]], List[int]]:
    """Every ``size``-sentence window of every document, and the document each came from."""
    windows: List[List[str]] = []
    owners: List[int] = []
    for index, sentences in enumerate(documents):
        starts = range(max(1, len(sentences) - size + 1))
        windows.extend(list(sentences[start:start + size]) for start in starts)
        owners.extend(index for _ in starts)
    return windows, owners


def main(name: str = "INSTED-WIKI", folder: str = "runs/base-852da") -> None:
    test_set, documents, pos_index, neg_index = load_test_set(name)
    scorer = CoherenceScorer(folder)
    whole, cos = cached_scores(name, HEAD), cached_scores(name, COSINE)
    score = lambda values: metric(test_set, pos_index, neg_index, values)  # noqa: E731
    print(name, {"whole text": score(whole), "cos": score(cos)}, flush=True)
    for size in WINDOW_SIZES:
        windows, owners = windows_of(documents, size)
        started = time.time()
        per_document: List[List[float]] = [[] for _ in documents]
        for owner, value in zip(owners, scorer.score(windows).scores):
            per_document[owner].append(value)
        means = [mean(values) for values in per_document]
        print(f"k={size} ({len(windows)} windows, {time.time() - started:.0f} s)",
              {"mean": score(means), "min": score([min(values) for values in per_document]),
               "mean + whole": score([m + w for m, w in zip(means, whole)]),
               "mean + 2 cos": score([m + 2 * c for m, c in zip(means, cos)])}, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
