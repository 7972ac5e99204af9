"""Run a suite: every test set, scored by the model under test and its baselines, into one JSON-ready result.

This is what ``coherence-metric benchmark paper|probes|all`` wraps. Test sets are loaded one at a time
and each system's scores are cached as soon as they exist, so an interrupted hour-long run resumes where it
stopped. With ``out_dir`` the reports are rewritten after every test set (marked partial until the end), and
such a report, carried to another machine, lets a run there take the sets it finished (``resume_from``).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from coherence_metric.research.cache import JsonCache
from coherence_metric.research.catalogue import load_benchmark_test_set, suite_test_sets
from coherence_metric.research.datasets import TestSet, sample_subset

from ..harness.facts import run_facts
from ..harness.progress import progress_bar
from ..harness.settings import RunSettings
from ..harness.systems import BenchmarkSystem, scorer_and_systems, system_names
from ..reporting import write_suite_reports
from .carried_parts import CarriedPartsCache, drop_finished_parts
from .published import published_for
from .resume import ResumedRows, read_resumable
from .scoring import ScoredTestSet, evaluate, score_test_set

LOGGER = logging.getLogger("coherence_metric.benchmarks")

TestSetSource = Union[str, TestSet]


def run_suite(
    suite: str,
    settings: RunSettings,
    *,
    test_sets: Optional[Sequence[TestSetSource]] = None,
) -> dict[str, Any]:
    """Benchmark a checkpoint (and, by default, the baselines) on a suite of test sets.

    Args:
        suite: ``paper``, ``probes`` or ``all``; used for the report title when ``test_sets`` is given.
        settings: the run's model, limit (pairs per test set), seed, scorer, baselines, cache and output folder
            (``<suite>.md``, ``<suite>.json`` and ``<suite>.png``).
        test_sets: run these (names or TestSet objects) instead of the suite's list.

    Returns:
        The result: model, systems, per-test-set metrics of every system beside the published numbers, cache
        statistics, versions and timings; with ``out_dir`` also ``outputs`` (the files written).

    Raises:
        CoherenceMetricError: a bad suite, model, option or missing data (one-line messages).
    """
    sources: Sequence[TestSetSource] = test_sets if test_sets is not None else suite_test_sets(suite)
    scorer, systems = scorer_and_systems(settings)
    header = {
        "suite": suite,
        "model": {"spec": settings.model, "label": scorer.model_label, "signature": str(scorer.signature)},
    }
    limit, seed = settings.limit, settings.seed

    def load(source: TestSetSource) -> TestSet:
        if isinstance(source, TestSet):
            return sample_subset(source, limit, seed)
        return load_benchmark_test_set(source, limit=limit, seed=seed, data_dir=settings.data_dir,
                                       cache_dir=settings.cache_dir, use_cache=settings.use_cache)

    resumed = None
    if settings.resume_from:
        resumed = read_resumable([Path(path) for path in settings.resume_from], header["model"],
                                 [system.describe() for system in systems], limit, seed)
    return run_benchmark(systems, sources, load, header=header, limit=limit, seed=seed,
                         cache=CarriedPartsCache(settings.cache_dir, enabled=settings.use_cache,
                                                 out_dir=settings.out_dir,
                                                 resumed_reports=[Path(path) for path in settings.resume_from]),
                         out_dir=settings.out_dir,
                         progress=settings.progress, resumed=resumed)


def run_benchmark(
    systems: Sequence[BenchmarkSystem],
    sources: Sequence[TestSetSource],
    load: Callable[[TestSetSource], TestSet],
    *,
    header: dict[str, Any],
    limit: Optional[int],
    seed: int,
    cache: JsonCache,
    out_dir: Union[str, Path, None] = None,
    progress: bool = False,
    resumed: Optional[ResumedRows] = None,
) -> dict[str, Any]:
    """Score every test set with every system and collect the metrics (the loop under ``run_suite``).

    Args:
        systems: the systems, the model under test first.
        sources: test set names or objects, in report row order.
        load: turns a source into a (limited) TestSet.
        header: ``suite`` and ``model`` entries of the result.
        limit: the limit the sets were cut with (recorded and part of the score cache key).
        seed: the run's seed.
        cache: the score cache.
        out_dir: where reports are (re)written after every test set.
        progress: an overall progress bar on stderr.
        resumed: earlier runs' finished rows (``--resume-from``): those sets are taken, not scored; the result
            lists them under ``resumed`` with the report each came from and the earlier runs' scoring time.

    Returns:
        The result dict (see ``run_suite``).
    """
    started = time.perf_counter()
    system_names(systems)
    result: dict[str, Any] = {
        **header,
        "seed": seed,
        "limit": limit,
        "systems": [system.describe() for system in systems],
        "test_sets": [],
        "partial": True,
    }
    bar = progress_bar(len(sources) * len(systems), progress)
    if resumed is not None:
        result["resumed"] = {"from": [], "test_sets": [], "sources": {}, "seconds": 0.0}
    rows: dict[int, dict[str, Any]] = {}  # by the source's position: the report keeps the suite's order

    def store(index: int, row: dict[str, Any]) -> None:
        rows[index] = row
        result["test_sets"] = [rows[position] for position in sorted(rows)]

    for index, source in _taken_first(sources, resumed):
        test_set = load(source)
        row = _test_set_row(test_set)
        taken = resumed.take(row) if resumed is not None else None
        if taken is not None:
            store(index, taken)
            result["resumed"]["test_sets"].append(test_set.name)
            result["resumed"]["sources"][test_set.name] = resumed.sources[test_set.name]
            # The reports that gave a set, in the order of the sets: one that gave nothing here is not named.
            result["resumed"]["from"] = list(dict.fromkeys(result["resumed"]["sources"].values()))
            result["resumed"]["seconds"] = resumed.seconds(result["resumed"]["test_sets"])
            LOGGER.info("%s: taken from %s (not scored again)", test_set.name, resumed.sources[test_set.name])
            if bar is not None:
                bar.update(len(systems))
            _finish(result, cache, started, partial=True)
            if out_dir is not None:  # the partial report holds every set known before the first is scored
                write_suite_reports(result, out_dir, chart=False)
            continue
        scored: dict[str, ScoredTestSet] = {}
        for system in systems:
            if bar is not None:
                bar.set_postfix_str(f"{test_set.name} / {system.name}")
            scored[system.name] = _score(system, test_set, cache, limit, seed, scored)
            row["results"][system.name] = evaluate(test_set, scored[system.name])
            _log_cell(test_set, system, row["results"][system.name])
            if bar is not None:
                bar.update(1)
        store(index, row)
        _finish(result, cache, started, partial=True)
        if out_dir is not None:
            drop_finished_parts(Path(out_dir), test_set.name)
            write_suite_reports(result, out_dir, chart=False)
    if bar is not None:
        bar.close()
    _finish(result, cache, started, partial=False)
    if out_dir is not None:
        result["outputs"] = write_suite_reports(result, out_dir, chart=True)
    return result


def _taken_first(sources: Sequence[TestSetSource], resumed: Optional[ResumedRows]
                 ) -> list[tuple[int, TestSetSource]]:
    """The sources with their positions, those an earlier run finished first: a run killed while scoring then
    leaves a partial report with every set known, not only those before it in the suite's order."""
    finished = {name.casefold() for name in resumed.rows} if resumed is not None else set()

    def name(source: TestSetSource) -> str:
        return (source if isinstance(source, str) else source.name).casefold()

    return sorted(enumerate(sources), key=lambda pair: (name(pair[1]) not in finished, pair[0]))


def _score(system: BenchmarkSystem, test_set: TestSet, cache: JsonCache, limit: Optional[int], seed: int,
           done: dict[str, ScoredTestSet]) -> ScoredTestSet:
    """Score through the cache; a system with the same parameters as one already scored reuses its scores."""

    def identical() -> Optional[tuple[str, ScoredTestSet]]:
        # Asked only on a cache miss: comparing parameters means building the system (seconds).
        name = system.same_as() if system.same_as is not None else None
        return (name, done[name]) if name is not None and name in done else None

    return score_test_set(system, test_set, cache, limit, seed, reuse=identical)


def _test_set_row(test_set: TestSet) -> dict[str, Any]:
    reference = published_for(test_set.name)
    return {
        "name": test_set.name,
        "n": len(test_set),
        "metric": test_set.primary_metric,
        "source": test_set.source,
        "notes": dict(test_set.notes),
        "published": None if reference is None else {
            "paper_test_set": reference.paper_test_set,
            "full_model": reference.full_model,
            "no_ft": reference.no_ft,
            "unc": reference.unc,
            "stand_in": reference.stand_in,
            "source": reference.source,
        },
        "results": {},
    }


def _log_cell(test_set: TestSet, system: BenchmarkSystem, cell: dict[str, Any]) -> None:
    if "alpha" in cell:
        value = "alpha undefined" if cell["alpha"] is None else f"alpha {cell['alpha']:.3f}"
    else:
        value = f"{100 * cell['accuracy']:.2f}% ({cell['n_ties']} ties)"
    how = "cached" if cell["cached"] else (f"reused from {cell['reused_from']}" if cell["reused_from"] else
                                            f"{cell['seconds']:.1f} s")
    LOGGER.info("%s | %s: %s [%s]", test_set.name, system.name, value, how)


def _finish(result: dict[str, Any], cache: JsonCache, started: float, partial: bool) -> None:
    result["partial"] = partial
    if isinstance(cache, CarriedPartsCache) and cache.carried:
        result["resumed"]["parts"] = dict(cache.carried)
    result.update(run_facts(cache, started))
