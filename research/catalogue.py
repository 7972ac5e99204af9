"""Which test sets each suite runs, and one loader for all of them (registered sets and the news stand-ins).

``coherence_metric.research.datasets`` knows the sets read from files; the news stand-ins are built from corpora and
cached (``coherence_metric.research.standins``). ``load_benchmark_test_set`` hides the difference, so a suite is just a
list of names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from coherence_metric.errors import InputError
from coherence_metric.research.datasets import PROBE_TEST_SETS, TestSet, load_test_set, sample_subset
from coherence_metric.research.datasets.base import DEFAULT_SEED
from coherence_metric.research.standins import NEWS_INTRUSION, NEWS_PERMUTED, STANDIN_TEST_SETS, load_standin

#: The paper's Table 1 test sets as we have them; the last three are stand-ins (see
#: ``coherence_metric.benchmarks.paper.published``).
PAPER_TEST_SETS = (
    "SUMMEVAL",
    "LMVLM",
    "INSTED-WIKI",
    "STORYCLOZE",
    "WSJ-SAMPLE-PERMUTED",
    NEWS_PERMUTED,
    NEWS_INTRUSION,
)
SUITES: dict[str, tuple[str, ...]] = {
    "paper": PAPER_TEST_SETS,
    "probes": tuple(PROBE_TEST_SETS),
    "all": PAPER_TEST_SETS + tuple(PROBE_TEST_SETS),
}
#: Suites that are not lists of test sets; the CLI dispatches them to their own runners (``cohesentia-dev``: the
#: real-error dev ruler of explain's flags).
OTHER_SUITES = ("summeval-correlation", "human-dev", "speed", "discoeval", "localisation", "cohesentia-dev")
ALL_SUITE_NAMES = tuple(SUITES) + OTHER_SUITES


def suite_test_sets(suite: str) -> tuple[str, ...]:
    """Return the test set names of a suite, or raise an InputError naming the suites.

    Args:
        suite: ``paper``, ``probes`` or ``all`` (case-insensitive).
    """
    names = SUITES.get(str(suite).casefold())
    if names is None:
        raise InputError(f"unknown suite {suite!r}: choose one of {', '.join(ALL_SUITE_NAMES)}")
    return names


def load_benchmark_test_set(
    name: str,
    limit: Optional[int] = None,
    seed: int = DEFAULT_SEED,
    data_dir: Optional[Path] = None,
    cache_dir: Union[str, Path, None] = None,
    use_cache: bool = True,
) -> TestSet:
    """Load any test set a suite lists, optionally a seeded subset of ``limit`` items.

    Args:
        name: a registered test set or a stand-in (``NEWS-PERMUTED``, ``NEWS-INTRUSION``), case-insensitive.
        limit: keep this many items, sampled with ``random.Random(seed)``, in file order.
        seed: seed of permutation sampling and of the subset.
        data_dir: the shared data folder; None finds it the usual way.
        cache_dir: where built stand-ins are cached.
        use_cache: False rebuilds stand-ins and writes nothing.

    Returns:
        The TestSet.
    """
    folded = str(name).casefold()
    standins = {key.casefold(): key for key in STANDIN_TEST_SETS}
    if folded in standins:
        full = load_standin(standins[folded], data_dir=data_dir, seed=seed, cache_dir=cache_dir, use_cache=use_cache)
        return sample_subset(full, limit, seed)
    return load_test_set(name, limit=limit, seed=seed, data_dir=data_dir)
