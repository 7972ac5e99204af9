"""Benchmark suites: which test sets (``coherence_metric.research.catalogue``), which systems (``systems``), scoring
through the cache
(``scoring``) and the loop that ties them together (``runner.run_suite``)."""

from .runner import run_benchmark, run_suite
from .scoring import ScoredTestSet, evaluate, score_test_set, unique_documents
from .systems import BenchmarkSystem, SystemScores, build_systems

__all__ = [
    "BenchmarkSystem",
    "ScoredTestSet",
    "SystemScores",
    "build_systems",
    "evaluate",
    "run_benchmark",
    "run_suite",
    "score_test_set",
    "unique_documents",
]
