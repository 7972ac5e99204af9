"""Read the benchmark's cached ``--limit 500`` scores back per unique document, and score any list of them.

Checkpoints are found by fingerprint (``@852da70c24a0``) so that the label they were benchmarked under (``default``,
``local:base-852da``) does not matter.
"""

from __future__ import annotations

import json
from typing import Any, List, Optional, Sequence, Tuple

from coherence_metric.benchmarks.suites.scoring import ScoredTestSet, evaluate, unique_documents
from coherence_metric.research.cache import benchmark_cache_dir
from coherence_metric.research.catalogue import load_benchmark_test_set

LIMIT = 500
#: The fine-tuned model alone (the 0.1.0 default, cm-minilm-2026.11, without its sentence-level term).
HEAD = "@852da70c24a0"
#: The 0.1.0 default, cm-minilm-2026.11 (fine-tuned model + 0.5 x the sentence-level term).
DEFAULT = "@145d43c75880"
COSINE = "adjacent-cosine"
#: The untrained head on the same backbone (the No FT baseline).
NO_FT = "no-ft|"
TERM_WEIGHT = 0.5


def cached_scores(test_set: str, needle: str, limit: Optional[int] = LIMIT) -> List[float]:
    """One system's cached scores of a test set's unique documents (``limit=None``: the full set); exits with a
    message when not cached."""
    for path in sorted((benchmark_cache_dir() / "scores").glob(f"{test_set}-*.json")):
        value = json.loads(path.read_text(encoding="utf-8"))["value"]
        if needle in value["system_id"] and value["limit"] == limit:
            return [float(score) for score in value["scores"]]
    which = "full-set" if limit is None else f"--limit {limit}"
    raise SystemExit(f"no cached {which} scores of {needle} on {test_set}: see experiments/README.md")


def load_test_set(name: str, limit: Optional[int] = LIMIT) -> Tuple[Any, List[List[str]], List[int], List[int]]:
    """The seeded 500-pair subset (``limit=None``: every pair), its unique documents and each pair's positions."""
    test_set = load_benchmark_test_set(name, limit=limit, seed=0)
    documents, pos_index, neg_index = unique_documents(test_set)
    return test_set, documents, pos_index, neg_index


def metric(test_set: Any, pos_index: Sequence[int], neg_index: Sequence[int], scores: Sequence[float],
           digits: int = 1) -> float:
    """The set's primary metric (accuracy %, or alpha x 100 for LMVLM) of per-document scores."""
    scored = ScoredTestSet([scores[i] for i in pos_index], [scores[i] for i in neg_index], len(scores), 0, 0.0)
    result = evaluate(test_set, scored)
    return round(100 * result.get("alpha", result.get("accuracy")), digits)


def shipped_term(test_set: str, limit: Optional[int] = LIMIT) -> List[float]:
    """The shipped sentence-level term's own scores, recovered as (default - fine-tuned model) / weight."""
    head, full = cached_scores(test_set, HEAD, limit), cached_scores(test_set, DEFAULT, limit)
    return [(f - h) / TERM_WEIGHT for f, h in zip(full, head)]
