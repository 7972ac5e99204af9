"""The Hugging Face evaluate module, loaded from its packaged folder with the real evaluate library."""

from __future__ import annotations

import re

import evaluate
import pytest

from coherence_metric import CoherenceScorer, InputError
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


def test_a_missing_value_is_refused_not_scored_as_the_word_nan(metric, bert_checkpoint):
    with pytest.raises(InputError, match=r"predictions: text 1 is a missing value \(NaN/NA\)"):
        metric.compute(predictions=[TEXTS[0], float("nan")], model=str(bert_checkpoint))
    with pytest.raises(InputError, match="text 0 is a missing value"):
        metric.compute(predictions=[float("nan")], model=str(bert_checkpoint))


@pytest.mark.parametrize("predictions", [[TEXTS[0], SENTENCES[1]], [SENTENCES[0], TEXTS[1]]])
def test_strings_and_sentence_lists_mixed_in_one_batch_are_refused(metric, bert_checkpoint, predictions):
    with pytest.raises(InputError, match="mix strings and sentence lists"):
        metric.compute(predictions=predictions, model=str(bert_checkpoint))


def test_a_batch_of_the_other_kind_than_the_batches_before_is_refused(metric, bert_checkpoint, expected):
    metric.add_batch(predictions=[TEXTS[0]])
    with pytest.raises(InputError, match="text 1 is a list of sentences but the texts before it are strings"):
        metric.add_batch(predictions=[SENTENCES[1]])
    metric.add_batch(predictions=[TEXTS[1]])  # the refused batch left nothing behind
    assert metric.compute(model=str(bert_checkpoint))["scores"] == pytest.approx(expected.scores, abs=1e-6)


@pytest.mark.parametrize("predictions, message", [
    ([], "predictions is empty: there is nothing to score"),
    ([3, 4], "predictions: text 0 is int, expected a string or a list of sentences"),
    ([TEXTS[0], 3], "predictions: text 1 is int"),
    ([TEXTS[0], None], 'predictions: text 1 is None: pass on_empty="skip"'),
    ([TEXTS[0], "   "], "predictions: text 1 is empty"),
])
def test_bad_predictions_are_one_input_error(metric, bert_checkpoint, predictions, message):
    with pytest.raises(InputError, match=re.escape(message)):
        metric.compute(predictions=predictions, model=str(bert_checkpoint))


def test_nothing_added_is_an_input_error(metric, bert_checkpoint):
    with pytest.raises(InputError, match="no predictions"):
        metric.compute(model=str(bert_checkpoint))


def test_a_refused_add_batch_does_not_leak_into_the_next_compute(metric, bert_checkpoint, expected):
    for bad in ([TEXTS[0], 3], [TEXTS[1], ["a sentence", 4]], [TEXTS[0], "\ud800"]):
        with pytest.raises(InputError):
            metric.add_batch(predictions=bad)
        with pytest.raises(InputError):
            metric.add(prediction=bad[1])
    result = metric.compute(predictions=TEXTS[:1], model=str(bert_checkpoint))
    assert result["scores"] == pytest.approx(expected.scores[:1], abs=1e-6)


def test_references_are_ignored_with_one_warning(metric, bert_checkpoint, expected):
    with pytest.warns(UserWarning, match="reference-free: references= is ignored") as caught:
        result = metric.compute(predictions=TEXTS, references=["x", "y"], model=str(bert_checkpoint))
    assert len([warning for warning in caught if "references" in str(warning.message)]) == 1
    assert result["scores"] == pytest.approx(expected.scores, abs=1e-6)


@pytest.mark.parametrize("call", ["compute", "add_batch"])
def test_a_bare_string_is_refused_not_scored_character_by_character(metric, bert_checkpoint, expected, call):
    """``predictions="Hello."`` used to give six scores, one per character; it is one line saying to pass a list,
    and nothing of it is left for the next compute."""
    with pytest.raises(InputError) as raised:
        if call == "compute":
            metric.compute(predictions="Hello.", model=str(bert_checkpoint))
        else:
            metric.add_batch(predictions="Hello.")
    message = str(raised.value)
    assert message.startswith("predictions is a string") and "predictions=['Hello.']" in message
    assert "\n" not in message
    result = metric.compute(predictions=TEXTS, model=str(bert_checkpoint))
    assert result["scores"] == pytest.approx(expected.scores, abs=1e-6)


def test_a_long_multiline_bare_string_is_named_in_one_short_line(metric):
    text = "First line of a long document.\nSecond line. " * 50
    with pytest.raises(InputError) as raised:
        metric.add_batch(predictions=text)
    message = str(raised.value)
    assert "\n" not in message and len(message) < 200 and "First line" in message
