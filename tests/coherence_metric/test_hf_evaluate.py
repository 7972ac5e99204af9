"""The Hugging Face evaluate module, loaded from its packaged folder with the real evaluate library."""

from __future__ import annotations

import evaluate
import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.integrations.hf_evaluate import MODULE_PATH

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Everyone agreed to build a wall. The town held a meeting."]
SENTENCES = [["The river rose slowly through the night.", "By morning the lower fields were under water."],
             ["Everyone agreed to build a wall.", "The town held a meeting."]]


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(MODULE_PATH)


@pytest.fixture(scope="module")
def expected(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint)).score(TEXTS)


def test_compute_returns_per_text_scores_system_score_and_signature(metric, bert_checkpoint, expected):
    result = metric.compute(predictions=TEXTS, model=str(bert_checkpoint))
    assert set(result) == {"scores", "system_score", "signature"}
    assert result["scores"] == pytest.approx(expected.scores, abs=1e-6)
    assert result["system_score"] == pytest.approx(expected.system_score, abs=1e-6)
    assert result["signature"] == str(expected.signature)


def test_batches_and_sentence_lists_accumulate_like_one_call(metric, bert_checkpoint, expected):
    for sentences in SENTENCES:
        metric.add_batch(predictions=[sentences])
    result = metric.compute(model=str(bert_checkpoint))
    assert result["scores"] == pytest.approx(expected.scores, abs=1e-6)


def test_the_module_declares_predictions_only_and_cites_the_paper(metric):
    assert [set(features) for features in metric.info.features] == [{"predictions"}, {"predictions"}]
    assert "Jwalapuram" in metric.info.citation and "system_score" in metric.info.inputs_description
