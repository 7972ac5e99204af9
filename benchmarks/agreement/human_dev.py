"""``benchmark human-dev``: agreement with people on generated text, the set recipes are chosen on.

Three public sets of human ratings of machine-generated stories and summaries (``human_dev/``: HANNA,
DeltaScore, FFCI). A metric is used to compare different texts written for one input, so everything here is
inside a group (a prompt, an article):

- pairwise accuracy: same-group pairs whose ratings differ by the set's gap (1 point on a 1-5 scale, 20 on
  FFCI's 0-100); the better-rated text should score higher; a tie of the metric counts half (chance is 50%);
- per-group Kendall: tau-b of score and rating over each group's texts, averaged over groups (the summary
  level of ``coherence_metric.benchmarks.agreement.correlation``);
- length-matched pairs: the pairs whose word counts differ by at most 10% of the longer text, where length
  alone cannot decide (HANNA's longer stories are rated more coherent, and word count wins there).

Groups are split once, by a hash of their key, into a **dev-select** half (for choosing recipes, steps and
weights) and a **dev-report** half (for reporting the choice); ``all`` is both. Intervals resample groups.
"""

from __future__ import annotations

import time
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.datasets.ratings import (
    ALL,
    DEV_REPORT,
    DEV_SELECT,
    HUMAN_DEV_SETS,
    LENGTH_MATCH_TOLERANCE,
    RatedSet,
    group_credits,
    in_half,
    limit_groups,
    load_human_dev_set,
)

from ..harness.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES, bootstrap_draws
from ..harness.facts import run_facts
from ..harness.settings import RunSettings
from ..harness.systems import scorer_and_systems
from ..reporting.human_dev_markdown import write_human_dev_reports
from .correlation import KENDALL, level_correlation, rating_arrays
from .rated_scoring import score_rated_sets

SUITE = "human-dev"
HALVES = (DEV_SELECT, DEV_REPORT, ALL)


def _accuracy(credits: dict[str, tuple[float, int, int]]) -> Optional[float]:
    n = sum(entry[1] for entry in credits.values())
    return sum(entry[0] for entry in credits.values()) / n if n else None


def _resampled_accuracy(credits: dict[str, tuple[float, int, int]], draws: np.ndarray) -> np.ndarray:
    """Accuracy on each resample of the groups (rows of ``draws`` index ``credits``' groups)."""
    credit = np.array([entry[0] for entry in credits.values()])
    count = np.array([entry[1] for entry in credits.values()], dtype=np.float64)
    return credit[draws].sum(axis=1) / count[draws].sum(axis=1)


def per_group_kendall(rated: RatedSet, scores: Sequence[float], half: str) -> dict[str, Any]:
    """Kendall's tau-b of score and rating within each group of the half, averaged over defined groups."""
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for index, text in enumerate(rated.texts):
        if in_half(rated, text.group, half):
            table.setdefault(text.group, {})[text.id] = (text.rating, float(scores[index]))
    if not table:
        return {"value": None, "n_units": 0, "n_skipped": 0}
    cell = level_correlation(rating_arrays(table), "summary", KENDALL)
    return {"value": cell.value, "n_units": cell.n_units, "n_skipped": cell.n_skipped}


def evaluate_half(rated: RatedSet, scores: Sequence[float], half: str, credits: dict[str, tuple[float, int, int]],
                  draws: Optional[np.ndarray]) -> dict[str, Any]:
    """Every number of one system on one half of one set (see the module docstring).

    Args:
        rated: the set.
        scores: the system's scores, aligned with the set's texts.
        half: ``dev-select``, ``dev-report`` or ``all``.
        credits: ``group_credits`` of these scores on this half.
        draws: bootstrap draws over the positions of ``credits``' groups, or None for no interval.
    """
    matched = group_credits(rated, scores, half, matched_only=True)
    interval = None
    if draws is not None and credits:
        low, high = np.percentile(_resampled_accuracy(credits, draws), [2.5, 97.5])
        interval = [float(low), float(high)]
    return {
        "accuracy": _accuracy(credits),
        "interval": interval,
        "n_pairs": sum(entry[1] for entry in credits.values()),
        "n_ties": sum(entry[2] for entry in credits.values()),
        "n_groups": len(credits),
        "kendall": per_group_kendall(rated, scores, half),
        "length_matched_accuracy": _accuracy(matched),
        "n_length_matched": sum(entry[1] for entry in matched.values()),
    }


def _draws(n_groups: int, resamples: int, seed: int) -> Optional[np.ndarray]:
    """Bootstrap draws (resamples x groups) of group positions, or None when there is nothing to resample."""
    if resamples <= 0 or n_groups == 0:
        return None
    return bootstrap_draws(n_groups, resamples, seed)


def _mean_over_sets(cells: list[dict[str, Any]], draws: list[Optional[np.ndarray]],
                    credits: list[dict[str, tuple[float, int, int]]]) -> dict[str, Any]:
    """The unweighted mean of the sets' accuracies, with an interval from the sets' own resamples."""
    values = [cell["accuracy"] for cell in cells]
    if any(value is None for value in values):
        return {"accuracy": None, "interval": None}
    interval = None
    present = [draw for draw in draws if draw is not None]
    if len(present) == len(draws):
        resampled = np.mean([_resampled_accuracy(credit, draw) for credit, draw in zip(credits, present)], axis=0)
        low, high = np.percentile(resampled, [2.5, 97.5])
        interval = [float(low), float(high)]
    return {"accuracy": float(np.mean(values)), "interval": interval}


def evaluate_system(sets: Sequence[RatedSet], scores: Mapping[str, Sequence[float]], resamples: int) -> dict[str, Any]:
    """Every number of one system: per set and half, and the mean over sets of each half."""
    results: dict[str, Any] = {rated.name: {} for rated in sets}
    mean: dict[str, Any] = {}
    for half in HALVES:
        cells, draws, credits = [], [], []
        for position, rated in enumerate(sets):
            credit = group_credits(rated, scores[rated.name], half)
            draw = _draws(len(credit), resamples, BOOTSTRAP_SEED + position)
            results[rated.name][half] = evaluate_half(rated, scores[rated.name], half, credit, draw)
            cells.append(results[rated.name][half])
            draws.append(draw)
            credits.append(credit)
        mean[half] = _mean_over_sets(cells, draws, credits)
    return {"sets": results, "mean": mean}


def _describe_set(rated: RatedSet) -> dict[str, Any]:
    halves = {}
    for half in HALVES:
        groups = [group for group in rated.groups() if in_half(rated, group, half)]
        halves[half] = {"groups": len(groups),
                        "pairs": sum(1 for pair in rated.pairs() if in_half(rated, rated.texts[pair.better].group,
                                                                              half))}
    return {"name": rated.name, "source": rated.source, "texts": len(rated), "criterion": rated.criterion,
            "min_gap": rated.min_gap, "notes": dict(rated.notes), "halves": halves}


def run_human_dev(
    settings: RunSettings,
    *,
    sets: Sequence[str] = HUMAN_DEV_SETS,
    resamples: int = DEFAULT_RESAMPLES,
) -> dict[str, Any]:
    """Score the human_dev sets with a checkpoint and the baselines; pairwise accuracy and Kendall per half.

    Args:
        settings: the run's model, limit (a seeded sample of this many groups per set; the halves keep their
            groups), seed (the group sample, the random baseline, the No FT head), scorer, baselines (with the
            trivial ones), cache and output folder (``human-dev.md`` and ``.json``).
        sets: which of ``HANNA``, ``DELTASCORE``, ``FFCI`` to run.
        resamples: bootstrap resamples of the groups (0: no intervals).

    Returns:
        The result: the sets and their halves, and one row per system with every number.
    """
    if not sets:
        raise InputError("no human_dev set to run")
    started = time.perf_counter()
    limit, seed = settings.limit, settings.seed
    rated_sets = [limit_groups(load_human_dev_set(name, settings.data_dir), limit, seed) for name in sets]
    scorer, systems = scorer_and_systems(settings)
    cache = JsonCache(settings.cache_dir, enabled=settings.use_cache)
    scored = score_rated_sets(systems, rated_sets, cache, seed, limit, settings.progress, SUITE)
    rows = []
    for system in systems:
        scores = {rated.name: scored[rated.name][system.name].scores for rated in rated_sets}
        rows.append({"name": system.name, "role": system.role, "id": system.system_id,
                     **evaluate_system(rated_sets, scores, resamples)})
    result = _result(rated_sets, scorer, settings.model, rows, limit, seed, resamples, cache, started)
    if settings.out_dir is not None:

        result["outputs"] = write_human_dev_reports(result, settings.out_dir)
    return result


def _result(rated_sets: list[RatedSet], scorer: Any, model: str, rows: list[dict[str, Any]], limit: Optional[int],
            seed: int, resamples: int, cache: JsonCache, started: float) -> dict[str, Any]:
    return {
        "suite": SUITE,
        "model": {"spec": model, "label": scorer.model_label, "signature": str(scorer.signature)},
        "sets": [_describe_set(rated) for rated in rated_sets],
        "protocol": {
            "pairs": "same group, ratings differ by at least the set's gap; a tie of the metric counts half",
            "kendall": "tau-b within each group, mean over groups where neither side is constant",
            "length_matched": f"pairs whose word counts differ by at most {LENGTH_MATCH_TOLERANCE:.0%} of the longer",
            "halves": "groups split by sha256(set, group key): even first byte dev-select, odd dev-report",
            "interval": f"95% percentile bootstrap over groups, {resamples} resamples",
        },
        "rows": rows,
        "limit": limit,
        "seed": seed,
        **run_facts(cache, started),
    }
