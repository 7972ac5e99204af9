"""Clean dev texts and the budgets that keep ``explain`` silent on them: which texts, how a rule picks budgets."""

from __future__ import annotations

import pytest

from coherence_metric.analysis.sentence_breaks import COHESION, DUPLICATION, RELEVANCE, SCORE_DROP, TRANSITION
from coherence_metric.benchmarks.localisation.clean_texts import (
    CLEAN_FLAGGED_ON_CHOOSE,
    NEWS,
    STORIES,
    choose_budgets,
    clean_pool,
    clean_rates,
    load_clean_texts,
)
from coherence_metric.benchmarks.localisation.story_ruler import CohesentiaStory
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.localisation_sets import load_localisation_sets, sampled_document_ids
from coherence_metric.research.splits import split_of


def _row(cohesion=None, drop=None):
    return {COHESION: cohesion, DUPLICATION: None, RELEVANCE: None, SCORE_DROP: drop, TRANSITION: None}


def _text(cohesion):
    """A two-sentence clean text whose second sentence has this cohesion evidence and lowers the score."""
    return [_row(), _row(float(cohesion), 0.1)]


def _story(number, holistic, marked):
    groups = {"cohesion": marked, "consistency": [], "relevance": [], "any": marked}
    return CohesentiaStory(number, "", ["a", "b", "c"], groups, holistic)


def test_the_rule_takes_the_most_recall_among_budgets_that_leave_clean_texts_quiet_enough():
    pool = [("news", _text(value)) for value in range(100)]  # one flag per text above the threshold
    story = _story(0, 2, [2])
    evidence = [[_row(), _row(0.0, 0.1), _row(93.0, 0.1)]]  # the marked sentence is found from a 7% budget on
    grid = [{COHESION: 0.05}, {COHESION: 0.07}, {COHESION: 0.10}]
    chosen = choose_budgets([story], evidence, pool, grid)
    assert CLEAN_FLAGGED_ON_CHOOSE == 0.08
    assert [row["clean_flagged"] for row in chosen["trade"]] == pytest.approx([0.05, 0.07, 0.10])
    assert [row["recall"] for row in chosen["trade"]] == [0.0, 1.0, 1.0]
    assert chosen["budgets"] == {COHESION: 0.07}  # 10% finds as much but flags too many clean texts
    assert chosen["thresholds"][COHESION] == pytest.approx(92.07)
    assert chosen["trade"][1]["flags_auc"] == 1.0


def test_when_no_budget_is_quiet_enough_the_quietest_is_taken():
    pool = [("news", _text(value)) for value in range(10)]
    chosen = choose_budgets([_story(0, 2, [2])], [[_row(), _row(0.0, 0.1), _row(9.5, 0.1)]], pool,
                            [{COHESION: 0.3}, {COHESION: 0.2}])
    assert chosen["budgets"] == {COHESION: 0.2}


def test_the_clean_pool_of_a_half_is_its_fully_coherent_stories_then_its_dev_texts():
    from coherence_metric.benchmarks.localisation.clean_texts import CleanText

    stories = [_story(0, 5, []), _story(1, 5, []), _story(2, 3, [1])]
    texts = [CleanText("news:1", NEWS, ["x", "y"], "choose"), CleanText("news:2", NEWS, ["x", "y"], "check")]
    rows = [_text(1.0)] * 3
    pool = clean_pool(stories, rows, texts, [_text(1.0)] * 2, "choose")
    assert [source for source, _ in pool] == ["cohesentia", NEWS]
    assert len(clean_pool(stories, rows, texts, [_text(1.0)] * 2, "all")) == 4
    rates = clean_rates([("cohesentia", _text(2.0)), (NEWS, _text(0.0))], {COHESION: 1.0}, {COHESION: 1.0}, seed=0)
    assert rates["flagged"] == 0.5 and rates["by_source"][NEWS]["flagged"] == 0.0


def test_the_clean_dev_texts_are_the_synthetic_sets_originals_and_the_dev_stories(shared_data, tmp_path):
    cache = JsonCache(tmp_path / "cache")
    texts = load_clean_texts(20, 0, cache, shared_data)
    news = [text for text in texts if text.source == NEWS]
    stories = [text for text in texts if text.source == STORIES]
    sampled = sampled_document_ids(load_localisation_sets(20, 0, cache, shared_data, split="dev"))
    assert [text.id for text in news] == sampled and stories
    assert {text.id.split(":", 1)[0] for text in stories} <= {"mctest", "tales"}
    for source in (news, stories):  # halved by position: even choose, odd check
        assert [text.half for text in source[:4]] == ["choose", "check", "choose", "check"][:len(source[:4])]
    assert all(split_of(text.id) == "dev" for text in texts)  # never a test document
    assert all(6 <= len(text.sentences) <= 10 for text in texts)
