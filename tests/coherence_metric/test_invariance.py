"""A text's score must not depend on batch size, batch neighbours, or input order (fp32, to 1e-5)."""

from __future__ import annotations

import random

import pytest

from coherence_metric import CoherenceScorer

PARAGRAPHS = [
    "The river rose slowly through the night, and by morning the lower fields were under water.",
    "Farmers moved their animals to the hills before the road was closed.",
    "In the town, the school opened its hall to families who had left their homes. Volunteers brought "
    "blankets, bread and hot tea. A doctor checked on the elderly and the children.",
    "Rain.",
    "By the second day the rain had stopped. Engineers inspected the bridge and found a crack in one of its "
    "pillars. The bridge will stay closed until repairs are finished, which could take several weeks. "
    "Drivers must use the longer road through the valley.",
    "Children returned to school on Monday.",
]


@pytest.fixture(params=["bert_checkpoint", "xlnet_checkpoint"])
def checkpoint(request):
    return request.getfixturevalue(request.param)


def test_scores_do_not_depend_on_batch_size_or_neighbours(checkpoint):
    alone = [CoherenceScorer(str(checkpoint), batch_size=1).score([text]).scores[0] for text in PARAGRAPHS]
    for batch_size in (1, 3, 8):
        together = CoherenceScorer(str(checkpoint), batch_size=batch_size).score(PARAGRAPHS).scores
        assert together == pytest.approx(alone, abs=1e-5), f"batch_size={batch_size}"


def test_scores_follow_input_order(checkpoint):
    scorer = CoherenceScorer(str(checkpoint), batch_size=4)
    reference = dict(zip(PARAGRAPHS, scorer.score(PARAGRAPHS).scores))
    shuffled = PARAGRAPHS[:]
    random.Random(7).shuffle(shuffled)
    for text, value in zip(shuffled, scorer.score(shuffled).scores):
        assert value == pytest.approx(reference[text], abs=1e-5)


def test_a_token_budget_that_splits_batches_changes_nothing(checkpoint):
    wide = CoherenceScorer(str(checkpoint), batch_size=32).score(PARAGRAPHS).scores
    narrow = CoherenceScorer(str(checkpoint), batch_size=32, max_tokens_per_batch=64).score(PARAGRAPHS).scores
    assert narrow == pytest.approx(wide, abs=1e-5)


def test_bf16_autocast_runs_on_cpu_close_to_fp32(bert_checkpoint):
    fp32 = CoherenceScorer(str(bert_checkpoint)).score(PARAGRAPHS)
    bf16 = CoherenceScorer(str(bert_checkpoint), dtype="bf16").score(PARAGRAPHS)
    assert "dtype:bf16" in str(bf16.signature) and "dtype:fp32" in str(fp32.signature)
    assert bf16.scores == pytest.approx(fp32.scores, abs=0.05)
