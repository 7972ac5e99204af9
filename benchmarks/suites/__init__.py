"""Benchmark suites: which test sets (``catalogue``), which systems (``systems``), scoring through the cache
(``scoring``) and the loop that ties them together (``runner.run_suite``)."""

from .catalogue import ALL_SUITE_NAMES, OTHER_SUITES, PAPER_TEST_SETS, SUITES, load_benchmark_test_set, suite_test_sets
from .runner import run_benchmark, run_suite
from .scoring import ScoredTestSet, evaluate, score_test_set, unique_documents
from .systems import BenchmarkSystem, SystemScores, build_systems

__all__ = [
    "ALL_SUITE_NAMES",
    "OTHER_SUITES",
    "PAPER_TEST_SETS",
    "SUITES",
    "BenchmarkSystem",
    "ScoredTestSet",
    "SystemScores",
    "build_systems",
    "evaluate",
    "load_benchmark_test_set",
    "run_benchmark",
    "run_suite",
    "score_test_set",
    "suite_test_sets",
    "unique_documents",
]
