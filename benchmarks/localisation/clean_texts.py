"""Clean dev texts, on which ``explain`` should stay silent, and the flag budgets chosen so that it does.

A flag on a text people read as coherent is the error a user sees first (a paragraph they wrote, flagged), so each
checkpoint's thresholds are set against the share of clean texts that get any flag. The clean texts of a half are
CoheSentia's stories people rated fully coherent (``cohesentia``; the suite's halves, by story id) and the dev split's
own documents, unchanged, read as the localisation recipe reads them (the first 10 sentences, ``MIN_SENTENCES`` or
more):

- ``news``: the news documents the synthetic dev sets are corrupted from (``load_localisation_sets(...,
  split="dev")``'s sample, before any corruption), so each clean text is the original of a broken one;
- ``stories``: the story corpora's dev documents (MCTest's children's stories and the fairy tales), every one, since
  CoheSentia's stories are all GPT-3's and a user's paragraph is as often a story as news.

No test document is read. The dev documents are split in two halves by position, as CoheSentia's stories are by id:
even positions ``choose`` (budgets and thresholds are set there), odd ones ``check`` (read once, for the rates
``explain`` prints).

The budgets (``choose_budgets``): per kind, a threshold is the quantile of that kind's evidence over the sentences of
the choosing half's clean texts that lets ``budget`` of them through (``story_ruler.calibrate``). Every budget triple
of ``BUDGET_GRID`` is read on the choosing half (the share of clean texts with any flag, the share of the sentences
people marked that get a flag, the within-story AUC of the flags), and the rule below, written down before the check
half was read, picks one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from coherence_metric.research.cache import JsonCache
from coherence_metric.research.localisation_sets import (
    MIN_SENTENCES,
    load_localisation_sets,
    sampled_document_ids,
)
from coherence_metric.research.standins import read_news_documents
from coherence_metric.toolkit import COHESION, DUPLICATION, RELEVANCE, Calibration, flag_sentences

from .story_ruler import (
    ANY,
    FULLY_COHERENT,
    CohesentiaStory,
    bootstrap_interval,
    calibrate,
    order_values,
    story_evidence,
    within_text_auc,
)

COHESENTIA = "cohesentia"
NEWS = "news"
STORIES = "stories"
SOURCES = (COHESENTIA, NEWS, STORIES)
#: The corpora whose dev documents are the clean stories (``coherence_metric.research.corpora``).
STORY_CORPORA = ("mctest", "tales")
SPLIT = "dev"
#: The cached signals the evidence is read from (``cohesentia.compute_signals``).
SIGNAL_KEYS = ("logits", "cosines", "similarity", "prefixes")
#: The rule that picks the budgets, written down before the check half was read: of ``BUDGET_GRID``, the triples
#: whose choosing-half clean texts get a flag in at most ``CLEAN_FLAGGED_ON_CHOOSE`` of them (room under the goal,
#: ``targets.toml``'s ``clean_texts_flagged_max`` of 10%: a user who pastes a coherent paragraph should see "no break
#: found" nine times in ten, for the check half's noise), the one whose flags find the most sentences people marked
#: (no cap); ties: the fewer clean texts flagged, then the first in the grid. When no triple is that quiet, the
#: quietest.
CLEAN_FLAGGED_ON_CHOOSE = 0.08
RULE = (f"the budgets whose choosing-half clean texts get a flag in at most {CLEAN_FLAGGED_ON_CHOOSE:.0%} of them, "
        "with the most recall of marked sentences (no cap); ties: fewer clean texts flagged, then the grid's order")
#: Per kind, the budgets tried (the share of the choosing half's clean sentences beyond the threshold).
COHESION_BUDGETS = (0.005, 0.0075, 0.01, 0.0125, 0.015, 0.02, 0.03, 0.04)
RELEVANCE_BUDGETS = (0.001, 0.0025, 0.005, 0.01, 0.02)
DUPLICATION_BUDGETS = (0.001, 0.0025, 0.005)
BUDGET_GRID: Tuple[Dict[str, float], ...] = tuple(
    {COHESION: cohesion, DUPLICATION: duplication, RELEVANCE: relevance}
    for cohesion in COHESION_BUDGETS for relevance in RELEVANCE_BUDGETS for duplication in DUPLICATION_BUDGETS)

#: 0.8.0's rule, the trade's reference: fixed budgets over the fully coherent stories' sentences alone.
EARLIER_BUDGETS: Dict[str, float] = {COHESION: 0.04, DUPLICATION: 0.005, RELEVANCE: 0.02}

Rows = Sequence[Dict[str, Optional[float]]]


@dataclass(frozen=True)
class CleanText:
    """One clean dev text: its id, source (``news`` or ``stories``), sentences, and half (``choose``/``check``)."""

    id: str
    source: str
    sentences: List[str]
    half: str


def _halved(source: str, documents: List[tuple]) -> List[CleanText]:
    return [CleanText(doc_id, source, list(sentences), "choose" if position % 2 == 0 else "check")
            for position, (doc_id, sentences) in enumerate(documents)]


def load_clean_texts(per_kind: int, seed: int, cache: JsonCache, data_dir: Optional[Path] = None) -> List[CleanText]:
    """The clean dev texts: the news documents the synthetic dev sets (``per_kind``, ``seed``) were corrupted from,
    then the story corpora's dev documents of ``MIN_SENTENCES``+ sentences, each unchanged."""
    news = dict(read_news_documents(data_dir, split=SPLIT))
    sampled = sampled_document_ids(load_localisation_sets(per_kind, seed, cache, data_dir, split=SPLIT))
    stories = [(doc_id, sentences) for doc_id, sentences in
               read_news_documents(data_dir, corpora=STORY_CORPORA, split=SPLIT) if len(sentences) >= MIN_SENTENCES]
    return _halved(NEWS, [(doc_id, news[doc_id]) for doc_id in sampled]) + _halved(STORIES, stories)


def clean_pool(stories: Sequence[CohesentiaStory], evidence: Sequence[Rows], texts: Sequence[CleanText],
               text_evidence: Sequence[Rows], half: str) -> List[Tuple[str, Rows]]:
    """The clean texts of a half (``all``: both) as (source, evidence): CoheSentia's fully coherent stories, then the
    clean dev texts."""
    def within(name: str) -> bool:
        return half == "all" or name == half

    pool: List[Tuple[str, Rows]] = [(COHESENTIA, rows) for story, rows in zip(stories, evidence)
                                    if story.holistic == FULLY_COHERENT and within(story.half)]
    return pool + [(text.source, rows) for text, rows in zip(texts, text_evidence) if within(text.half)]


def flagged(pool: Sequence[Tuple[str, Rows]], thresholds: Mapping[str, float],
            scales: Mapping[str, float]) -> np.ndarray:
    """Per clean text, 1.0 where ``explain`` flags any sentence of it (a cap never changes that), else 0.0."""
    return np.array([float(bool(flag_sentences(rows, thresholds=thresholds, scales=scales))) for _, rows in pool],
                    dtype=np.float64)


def clean_rates(pool: Sequence[Tuple[str, Rows]], thresholds: Mapping[str, float], scales: Mapping[str, float],
                seed: int) -> Dict[str, Any]:
    """The share of the clean texts with any flag (95% bootstrap interval over texts), and per source."""
    hits = flagged(pool, thresholds, scales)
    result: Dict[str, Any] = {"n_texts": len(pool)}
    if not len(hits):
        return result
    result.update({"flagged": float(hits.mean()), "flagged_interval": bootstrap_interval(hits, seed)})
    by_source = {}
    for source in SOURCES:
        mine = np.array([hit for hit, (name, _) in zip(hits, pool) if name == source])
        if len(mine):
            by_source[source] = {"n_texts": len(mine), "flagged": float(mine.mean()),
                                 "flagged_interval": bootstrap_interval(mine, seed)}
    result["by_source"] = by_source
    return result


def recall_and_auc(stories: Sequence[CohesentiaStory], evidence: Sequence[Rows], thresholds: Mapping[str, float],
                   scales: Mapping[str, float]) -> Dict[str, Optional[float]]:
    """The share of the sentences people marked (any reason) that get a flag, with no cap and at a cap of 1, and
    two mean within-story AUCs (marked against unmarked, ties half, over stories with both): of the flags themselves
    (flagged or not) and of explain's ranking of the sentences (its flags, then by score drop: ``order_values``).
    """
    marked = hit = hit_capped = 0
    aucs, order_aucs = [], []
    for story, rows in zip(stories, evidence):
        flags = flag_sentences(rows, thresholds=thresholds, scales=scales)
        order_auc = within_text_auc(order_values(rows, flags), story.marked[ANY])
        if order_auc is not None:
            order_aucs.append(order_auc)
        indices = {flag.index for flag in flags}
        marked += len(story.marked[ANY])
        hit += sum(1 for index in story.marked[ANY] if index in indices)
        hit_capped += sum(1 for flag in flags[:1] if flag.index in story.marked[ANY])
        auc = within_text_auc([float(index in indices) for index in range(len(story.sentences))], story.marked[ANY])
        if auc is not None:
            aucs.append(auc)
    return {"recall": hit / marked if marked else None, "recall_cap_1": hit_capped / marked if marked else None,
            "flags_auc": float(np.mean(aucs)) if aucs else None,
            "order_auc": float(np.mean(order_aucs)) if order_aucs else None}


def choose_budgets(stories: Sequence[CohesentiaStory], evidence: Sequence[Rows], pool: Sequence[Tuple[str, Rows]],
                   grid: Sequence[Dict[str, float]] = BUDGET_GRID) -> Dict[str, Any]:
    """The budgets ``RULE`` picks, their thresholds and scales, and the trade of every budget triple of ``grid``.

    Args:
        stories / evidence: the choosing half's CoheSentia stories and their evidence (for recall and AUC).
        pool: the choosing half's clean texts (``clean_pool``): their sentences set the thresholds, and their share
            with any flag is what the rule holds down.
        grid: the budgets tried, in order.
    """
    sentences = [rows for _, rows in pool]
    trade = []
    for budgets in grid:
        found = calibrate(sentences, budgets)
        if any(value is None for value in found["thresholds"].values()):  # no clean text (a small file)
            continue
        hits = flagged(pool, found["thresholds"], found["scales"])
        trade.append({"budgets": dict(budgets), "clean_flagged": float(hits.mean()),
                      **recall_and_auc(stories, evidence, found["thresholds"], found["scales"])})
    if not trade:
        return {**calibrate(sentences, grid[0]), "rule": RULE, "clean_texts": len(pool), "trade": []}
    quiet = [row for row in trade if row["clean_flagged"] <= CLEAN_FLAGGED_ON_CHOOSE] or \
        [row for row in trade if row["clean_flagged"] == min(entry["clean_flagged"] for entry in trade)]
    best = max(quiet, key=lambda row: (row["recall"] or 0.0, -row["clean_flagged"]))
    return {**calibrate(sentences, best["budgets"]), "rule": RULE, "clean_texts": len(pool), "trade": trade,
            "earlier_rule": earlier_rule(stories, evidence, pool)}


def earlier_rule(stories: Sequence[CohesentiaStory], evidence: Sequence[Rows],
                 pool: Sequence[Tuple[str, Rows]]) -> Optional[Dict[str, Any]]:
    """The trade of 0.8.0's rule on the same half (``EARLIER_BUDGETS`` over the fully coherent stories' sentences),
    for reference; None without a fully coherent story."""
    found = calibrate([rows for source, rows in pool if source == COHESENTIA], EARLIER_BUDGETS)
    if any(value is None for value in found["thresholds"].values()):
        return None
    return {"budgets": dict(EARLIER_BUDGETS), "thresholds": found["thresholds"],
            "clean_flagged": float(flagged(pool, found["thresholds"], found["scales"]).mean()),
            **recall_and_auc(stories, evidence, found["thresholds"], found["scales"])}


def texts_evidence(texts: Sequence[CleanText], signals: Dict[str, Any], calibration: Calibration,
                   half: Optional[str] = None) -> Tuple[List[CleanText], List[List[Dict[str, Optional[float]]]]]:
    """The clean texts of a half (None: all) and their evidence, read from their cached signals with
    ``calibration``."""
    picked = [index for index, text in enumerate(texts) if half is None or text.half == half]
    subset = {key: [signals[key][index] for index in picked] for key in SIGNAL_KEYS}
    chosen = [texts[index] for index in picked]
    return chosen, story_evidence([text.sentences for text in chosen], subset, calibration)


def clean_report(stories: Sequence[CohesentiaStory], evidence: Sequence[Rows], texts: Sequence[CleanText],
                 text_evidence: Sequence[Rows], thresholds: Mapping[str, float], scales: Mapping[str, float],
                 seed: int, halves: Sequence[str] = ("all", "choose", "check")) -> Dict[str, Any]:
    """Per half, the share of its clean texts with any flag at the shipped thresholds (``clean_rates``); the check
    half's is the rate ``explain`` prints."""
    return {half: clean_rates(clean_pool(stories, evidence, texts, text_evidence, half), thresholds, scales, seed)
            for half in halves}
