"""``benchmark summeval-correlation``: the field's table, SummEval expert coherence, beside published metrics.

People choose a coherence metric from one table: its correlation with SummEval's expert coherence ratings
(Fabbri et al. 2021; mean of 3 experts, 100 CNN/DailyMail articles x 16 systems) at the summary level, as in
the UniEval and G-Eval papers. This suite scores the 1,600 summaries with the model under test and the
baselines, and reports every level of :mod:`.correlation` with bootstrap intervals over articles, plus
pairwise accuracy on same-article pairs with different ratings (ties of the metric count half). Beside them:

- the scores Steen & Markert (COLING 2022) published for 17 coherence measures on the same summaries
  (``summeval/steen_markert_predictions``, their repository at a pinned commit), recomputed by the same code,
  so their shuffle-trained RoBERTa-large (``ccl-roberta-large-ours-cnndm``) sits in the same table;
- the rows the G-Eval paper published for this protocol (summary level only; not recomputable here).
"""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any, Optional

from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.data_dir import missing_data_error, shared_data_dir
from coherence_metric.research.datasets.ratings import RatedSet, RatedText, limit_groups, load_summeval_ratings

from ..harness.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES
from ..harness.facts import run_facts
from ..harness.settings import RunSettings
from ..harness.systems import scorer_and_systems
from ..reporting.correlation_markdown import REFERENCE_ROW, write_correlation_reports
from .correlation import LEVELS, RatingTable, correlate, correlations_to_dict
from .human_dev import ALL, group_credits
from .published import GEVAL_SUMMEVAL_COHERENCE, SOURCE_GEVAL_TABLE_1
from .rated_scoring import score_rated_sets
from .system_ranks import SUMMEVAL_EXTRACTIVE, system_table

SUITE = "summeval-correlation"
PREDICTIONS_DIR = Path("summeval") / "steen_markert_predictions"
PREDICTIONS_SOURCE = ("Steen & Markert 2022 (COLING), github.com/julmaxi/summary_coherence_evaluation "
                      "predicted_scores/summeval, commit 02e0cab00fa73979757e66a8feef8adb5c8588aa")
#: Their summarizer names -> SummEval's model ids (one to one; "Pegasus (dynamic mix)" was not rated).
SUMMARIZER_IDS: dict[str, str] = {
    "LEAD-3": "M0", "neusum": "M1", "BanditSum": "M2", "RNES": "M5", "PG": "M8", "abssentrw": "M9",
    "Bottom-Up": "M10", "Improve-abs": "M11", "Unified-ext-abs": "M12", "ROUGESal": "M13",
    "Multi-task (Ent + QG)": "M14", "Closed book decoder": "M15", "T5": "M17", "GPT-2 (zero shot)": "M20",
    "BART": "M22", "Pegasus": "M23",
}
#: Their file holding a human column, not a measure (and not the mean of the experts): never a row.
HUMAN_FILE = "human.csv"
SCORED, PREDICTIONS, PUBLISHED = "scored here", "published predictions", "published number"


def rating_table(texts: tuple[RatedText, ...], scores: list[float]) -> dict[str, dict[str, tuple[float, float]]]:
    """Return ``{article: {system: (expert coherence, score)}}`` for scores aligned with ``texts``."""
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for text, value in zip(texts, scores, strict=True):
        table.setdefault(text.group, {})[text.system] = (text.rating, float(value))
    return table


def pairwise_ties_half(rated: RatedSet, scores: list[float]) -> dict[str, Any]:
    """Accuracy over the set's pairs (same group, ratings differ): better-rated scored higher; a tie counts half."""
    credits = group_credits(rated, scores, ALL).values()
    n = sum(entry[1] for entry in credits)
    return {"n": n, "n_ties": sum(entry[2] for entry in credits),
            "accuracy": sum(entry[0] for entry in credits) / n if n else None}


def load_published_predictions(data_dir: Optional[Path] = None) -> dict[str, dict[tuple[str, str], float]]:
    """Read Steen & Markert's per-summary scores: ``{measure: {(article, model id): score}}``, rated systems only.

    Args:
        data_dir: the shared data folder; None finds it the usual way.
    """
    folder = Path(data_dir if data_dir is not None else shared_data_dir()) / PREDICTIONS_DIR
    if not folder.is_dir():
        raise missing_data_error("published predictions (Steen & Markert) folder", folder)
    measures: dict[str, dict[tuple[str, str], float]] = {}
    for path in sorted(folder.glob("*.csv")):
        if path.name != HUMAN_FILE:
            measures[path.stem] = _read_predictions(path)
    if not measures:
        raise InputError(f"{folder} holds no prediction files")
    return measures


def _read_predictions(path: Path) -> dict[tuple[str, str], float]:
    scores: dict[tuple[str, str], float] = {}
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None or len(header) < 3 or header[:2] != ["doc", "summarizer"]:
                raise InputError(f"{path}: expected the columns doc,summarizer,<score>")
            for number, row in enumerate(reader, start=2):
                if len(row) >= 3 and row[1] in SUMMARIZER_IDS:
                    scores[row[0], SUMMARIZER_IDS[row[1]]] = _number(row[2], path, number)
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from error
    return scores


def _number(text: str, path: Path, line: int) -> float:
    try:
        return float(text)
    except ValueError as error:
        raise InputError(f"{path}:{line}: score {text!r} is not a number") from error


def _row(name: str, kind: str, source: str, correlations: dict[str, Any], pairwise: Optional[dict[str, Any]],
         role: str = "baseline") -> dict[str, Any]:
    return {"name": name, "kind": kind, "role": role, "source": source, "correlations": correlations,
            "pairwise": pairwise}


def published_scores(rated: RatedSet, data_dir: Optional[Path]) -> dict[str, list[float]]:
    """Each published measure's scores aligned with ``rated.texts``, named as its table row."""
    aligned = {}
    for measure, predictions in load_published_predictions(data_dir).items():
        missing = [text.id for text in rated.texts if (text.group, text.system) not in predictions]
        if missing:
            raise InputError(f"{measure}: no published score for {len(missing)} summaries (e.g. {missing[0]})")
        aligned[f"{measure} (S&M)"] = [predictions[text.group, text.system] for text in rated.texts]
    return aligned


def _predictions_rows(rated: RatedSet, published: dict[str, list[float]], resamples: int) -> list[dict[str, Any]]:
    """Correlate each published measure by the same code, on the same (possibly limited) summaries."""
    rows = []
    for name, scores in published.items():
        result = correlate(rating_table(rated.texts, scores), resamples=resamples, seed=BOOTSTRAP_SEED)
        rows.append(_row(name, PREDICTIONS, PREDICTIONS_SOURCE, correlations_to_dict(result),
                         pairwise_ties_half(rated, scores)))
    rows.sort(key=lambda row: -(row["correlations"]["summary"]["spearman"]["value"] or -2.0))
    return rows


def _published_rows() -> list[dict[str, Any]]:
    rows = []
    for name, (rho, tau) in GEVAL_SUMMEVAL_COHERENCE.items():
        cell = {"n_units": 100, "n_skipped": 0, "interval": None}
        correlations = {"summary": {"spearman": {"value": rho, **cell}, "kendall": {"value": tau, **cell}}}
        rows.append(_row(name, PUBLISHED, SOURCE_GEVAL_TABLE_1, correlations, None))
    return rows


def run_summeval_correlation(
    settings: RunSettings,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    published: bool = True,
) -> dict[str, Any]:
    """Correlate a checkpoint and the baselines with SummEval's expert coherence, beside published measures.

    Args:
        settings: the run's model, limit (a seeded sample of this many articles, all 16 summaries of each), seed
            (the article sample, the random baseline, the No FT head), scorer, baselines (with the trivial ones),
            cache and output folder (``summeval-correlation.md`` and ``.json``).
        resamples: bootstrap resamples of the articles (0: no intervals).
        published: add Steen & Markert's recomputed measures and G-Eval's published rows.

    Returns:
        The result: protocol, model, one row per scorer with every level's correlations and intervals.
    """
    started = time.perf_counter()
    limit, seed, data_dir = settings.limit, settings.seed, settings.data_dir
    rated = limit_groups(load_summeval_ratings(data_dir), limit, seed)
    scorer, systems = scorer_and_systems(settings)
    cache = JsonCache(settings.cache_dir, enabled=settings.use_cache)
    scored = score_rated_sets(systems, [rated], cache, seed, limit, settings.progress, SUITE)[rated.name]
    rows = []
    for system in systems:
        scores = scored[system.name].scores
        table: RatingTable = rating_table(rated.texts, scores)
        result = correlate(table, resamples=resamples, seed=BOOTSTRAP_SEED)
        rows.append({**_row(system.name, SCORED, system.system_id, correlations_to_dict(result),
                            pairwise_ties_half(rated, scores), role=system.role),
                     "n_truncated": scored[system.name].n_truncated, "seconds": round(scored[system.name].seconds, 2),
                     "cached": scored[system.name].cached})
    scores = {system.name: scored[system.name].scores for system in systems}
    if published:
        predictions = published_scores(rated, data_dir)
        rows.extend(_predictions_rows(rated, predictions, resamples))
        rows.extend(_published_rows())
        if REFERENCE_ROW in predictions:
            scores[REFERENCE_ROW] = predictions[REFERENCE_ROW]
    result_dict = _result(rated, scorer, settings.model, rows, limit, seed, resamples, cache, started)
    result_dict["per_system"] = system_table(rated, scores, {model_id: name for name, model_id in
                                                             SUMMARIZER_IDS.items()}, SUMMEVAL_EXTRACTIVE)
    if settings.out_dir is not None:

        result_dict["outputs"] = write_correlation_reports(result_dict, settings.out_dir)
    return result_dict


def _result(rated: RatedSet, scorer: Any, model: str, rows: list[dict[str, Any]], limit: Optional[int], seed: int,
            resamples: int, cache: JsonCache, started: float) -> dict[str, Any]:
    return {
        "suite": SUITE,
        "model": {"spec": model, "label": scorer.model_label, "signature": str(scorer.signature)},
        "data": {"source": rated.source, "texts": len(rated), "articles": len(rated.groups()),
                 "systems": len({text.system for text in rated.texts}), "pairs": len(rated.pairs()),
                 "rating": "mean of the 3 experts' coherence (1-5)"},
        "protocol": {
            "levels": list(LEVELS),
            "summary": "per article over its summaries, articles where either side is constant skipped, mean",
            "system": "each system's mean over articles, correlated over systems",
            "dataset": "all summaries pooled",
            "intra_system": "per system over its summaries of different articles, mean over systems",
            "kendall": "tau-b",
            "interval": f"95% percentile bootstrap over articles, {resamples} resamples, seed {BOOTSTRAP_SEED}",
            "pairwise": "same-article pairs with different mean ratings; a tie of the metric counts half",
        },
        "rows": rows,
        "seed": seed,
        "limit": limit,
        **run_facts(cache, started),
    }
