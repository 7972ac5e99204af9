"""``on_empty`` in the Python API, the DataFrame helper, the evaluate module and the torchmetrics metric: one empty
output no longer sinks a batch unless asked to; the refusal names every empty text and the option, skip and nan
give the other texts the scores they get alone and say how many were empty."""

from __future__ import annotations

import math
import re
import warnings

import evaluate
import pandas as pd
import pytest

import coherence_metric
from coherence_metric import CoherenceScorer, EmptyTextWarning, InputError, score_dataframe
from coherence_metric.integrations.hf_evaluate import MODULE_PATH
from coherence_metric.integrations.torchmetrics_metric import CoherenceMetric

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Everyone agreed to build a wall. The town held a meeting.",
         "Rain fell for days. The roads closed and the schools shut.",
         "It said her brother was coming home. She opened the letter."]
#: TEXTS with an empty text of every kind between them: None, "", whitespace, zero-width only, NaN, an empty list.
WITH_EMPTIES = [TEXTS[0], None, TEXTS[1], "", "  \n", TEXTS[2], "\u200b\u2060", float("nan"), [], TEXTS[3]]
KEPT = [0, 2, 5, 9]
EMPTY = [1, 3, 4, 6, 7, 8]


@pytest.fixture(scope="module")
def scorer(bert_checkpoint) -> CoherenceScorer:
    return CoherenceScorer(str(bert_checkpoint))


@pytest.fixture(scope="module")
def alone(scorer):
    """The non-empty texts scored by themselves: what skip and nan must give them."""
    return scorer.score(TEXTS)


def _one_warning(caught) -> str:
    said = [warning for warning in caught if issubclass(warning.category, EmptyTextWarning)]
    assert len(said) == 1, [str(warning.message) for warning in caught]
    assert said[0].filename == __file__, "the warning points at the caller's line"
    return str(said[0].message)


# error: the default, every empty text named

def test_error_names_every_empty_text_up_to_five_and_the_option(scorer):
    with pytest.raises(InputError) as raised:
        scorer.score(WITH_EMPTIES)
    message = str(raised.value)
    assert message.startswith("6 texts are empty (text 1 is None, text 3 is empty, text 4 is empty, text 6 has no "
                              "visible characters, text 7 is a missing value (NaN/NA); and 1 more): ")
    assert 'pass on_empty="skip" to leave empty texts out, or on_empty="nan" to report them as NaN' in message
    assert "\n" not in message


def test_one_empty_text_is_named_alone(scorer):
    with pytest.raises(InputError, match=r'^text 1 is empty: pass on_empty="skip"'):
        scorer.score([TEXTS[0], "   "])


def test_the_module_function_refuses_before_any_model_is_looked_up():
    with pytest.raises(InputError, match=r"^2 texts are empty \(text 0 is None, text 2 is empty\)"):
        coherence_metric.score([None, TEXTS[0], ""], model="no-such-org/no-such-checkpoint")


@pytest.mark.parametrize("value", ["ignore", "Skip", None, 1])
def test_an_unknown_on_empty_is_one_line_naming_the_choices(scorer, value):
    with pytest.raises(InputError, match=r"^unknown on_empty .*: choose one of error, skip, nan$"):
        scorer.score(TEXTS, on_empty=value)


# skip and nan: the other texts score as they do alone

def test_skip_leaves_empty_texts_out_and_says_where_each_score_came_from(scorer, alone):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = scorer.score(WITH_EMPTIES, on_empty="skip")
    assert result.scores == pytest.approx(alone.scores, abs=1e-6)
    assert result.indices == KEPT and result.empty == EMPTY
    assert result.system_score == pytest.approx(alone.system_score, abs=1e-6)
    message = _one_warning(caught)
    assert message.startswith('6 empty texts left out (on_empty="skip"): text 1 is None, text 3 is empty')
    assert message.endswith("; and 1 more")
    data = result.to_dict()
    assert data["on_empty"] == "skip" and data["empty"] == EMPTY and data["indices"] == KEPT


def test_nan_keeps_one_score_per_input_nan_for_the_empty_ones_out_of_the_mean(scorer, alone):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = scorer.score(WITH_EMPTIES, on_empty="nan")
    assert len(result.scores) == len(WITH_EMPTIES) and result.indices == list(range(len(WITH_EMPTIES)))
    assert all(math.isnan(result.scores[position]) for position in EMPTY)
    assert [result.scores[position] for position in KEPT] == pytest.approx(alone.scores, abs=1e-6)
    assert result.system_score == pytest.approx(alone.system_score, abs=1e-6)
    assert "reported as NaN and left out of every mean" in _one_warning(caught)
    interval = result.with_system_score_interval(200, seed=3).system_score_interval
    assert interval == pytest.approx(alone.with_system_score_interval(200, seed=3).system_score_interval)
    data = result.to_dict()
    assert [data["scores"][position] for position in EMPTY] == [None] * len(EMPTY)
    assert data["on_empty"] == "nan" and data["empty"] == EMPTY and "indices" not in data


def test_the_module_function_takes_on_empty_too(bert_checkpoint, alone):
    with pytest.warns(EmptyTextWarning, match="2 empty texts left out"):
        result = coherence_metric.score([TEXTS[0], None, TEXTS[1], ""], model=str(bert_checkpoint), on_empty="skip")
    assert result.scores == pytest.approx(alone.scores[:2], abs=1e-6) and result.indices == [0, 2]


def test_texts_that_are_all_empty_are_refused_and_other_errors_name_the_input_position(scorer):
    with pytest.raises(InputError, match=r"^every text is empty \(2, the first: text 0 is None\): nothing to score"):
        scorer.score([None, " "], on_empty="nan")
    with pytest.raises(InputError, match=r"^text 2, sentence 1 is int"), pytest.warns(EmptyTextWarning):
        scorer.score([None, "", ["One.", 3]], on_empty="skip")


def test_the_cli_and_the_api_call_the_same_texts_empty(tmp_path):
    """The API's test is the one the CLI's readers apply (one function): a JSONL row the CLI reads as empty is
    empty to ``score``, and the other way round."""
    from coherence_metric.inputs.empty import split_empty_texts
    from coherence_metric.inputs.files import read_texts

    rows = ['{"text": null}', '{"text": ""}', '{"text": " \\t"}', '{"text": "\\u200b"}', '{"text": []}',
            '{"text": ["  ", ""]}', '{"text": "A text."}']
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    read = read_texts(str(path), "jsonl", on_empty="nan")
    values = [None, "", " \t", "\u200b", [], ["  ", ""], "A text."]
    with pytest.warns(EmptyTextWarning):
        split = split_empty_texts(values, "skip")
    assert [item.empty is not None for item in read] == [position in split.empty for position in range(len(rows))]


# compare: a pair needs both texts

def test_compare_skip_and_nan_leave_out_an_input_with_an_empty_text_on_either_side(scorer):
    side_a = [TEXTS[0], "", TEXTS[1], TEXTS[2]]
    side_b = [TEXTS[3], TEXTS[2], None, TEXTS[1]]
    with pytest.raises(InputError, match=r'^2 inputs have an empty text \(text 1 of A is empty, text 2 of B is '
                                         r'None\): pass on_empty="skip"'):
        scorer.compare(side_a, side_b)
    alone = scorer.compare([TEXTS[0], TEXTS[2]], [TEXTS[3], TEXTS[1]], bootstrap_resamples=50, seed=1)
    with pytest.warns(EmptyTextWarning, match=r"^2 inputs with an empty text left out \(on_empty=\"skip\"; a pair"):
        skipped = scorer.compare(side_a, side_b, bootstrap_resamples=50, seed=1, on_empty="skip")
    assert skipped.scores_a == pytest.approx(alone.scores_a, abs=1e-6) and skipped.indices == [0, 3]
    assert skipped.win_rate == alone.win_rate and skipped.p_value_randomization == alone.p_value_randomization
    with pytest.warns(EmptyTextWarning):
        kept_nan = scorer.compare(side_a, side_b, bootstrap_resamples=50, seed=1, on_empty="nan")
    assert [kept_nan.scores_b[0], kept_nan.scores_b[3]] == pytest.approx(alone.scores_b, abs=1e-6)
    assert math.isnan(kept_nan.scores_a[1]) and math.isnan(kept_nan.scores_b[2])
    assert kept_nan.pair_winners[1:3] == ["empty", "empty"] and kept_nan.n_pairs == 2
    assert kept_nan.score_a == pytest.approx(alone.score_a, abs=1e-6) and kept_nan.win_rate == alone.win_rate
    assert kept_nan.mean_difference_interval == pytest.approx(alone.mean_difference_interval)
    data = kept_nan.to_dict()
    assert data["scores_a"][1] is None and data["empty"] == [1, 2] and data["n_pairs"] == 2


# score_dataframe

def test_score_dataframe_nan_keeps_every_row_and_skip_returns_the_rows_scored(scorer, alone):
    frame = pd.DataFrame({"output": [TEXTS[0], None, TEXTS[1], "  "]}, index=[10, 11, 12, 13])
    with pytest.raises(InputError, match=r"^2 texts are empty \(text 1 is \w.*, text 3 is empty\)"):
        score_dataframe(frame, column="output", model=scorer)
    with pytest.warns(EmptyTextWarning, match="2 empty texts reported as NaN"):
        kept = score_dataframe(frame, column="output", model=scorer, on_empty="nan")
    assert list(kept.index) == [10, 11, 12, 13] and kept["coherence"].isna().tolist() == [False, True, False, True]
    assert kept["coherence"].dropna().tolist() == pytest.approx(alone.scores[:2], abs=1e-6)
    with pytest.warns(EmptyTextWarning, match="2 empty texts left out"):
        skipped = score_dataframe(frame, column="output", model=scorer, on_empty="skip")
    assert list(skipped.index) == [10, 12] and skipped["output"].tolist() == TEXTS[:2]
    assert skipped["coherence"].tolist() == pytest.approx(alone.scores[:2], abs=1e-6)
    assert skipped.attrs["coherence_signature"] == str(alone.signature) and "coherence" not in frame.columns
    with pytest.raises(InputError, match="unknown on_empty 'drop'"):
        score_dataframe(frame, column="output", model=scorer, on_empty="drop")


# the evaluate module

@pytest.fixture
def metric():
    return evaluate.load(MODULE_PATH)


def test_evaluate_refuses_empty_predictions_at_compute_and_keeps_what_was_added(metric, bert_checkpoint, alone):
    metric.add_batch(predictions=[TEXTS[0], None])
    metric.add_batch(predictions=[float("nan"), TEXTS[1]])
    metric.add(prediction="  ")
    with pytest.raises(InputError) as raised:
        metric.compute(model=str(bert_checkpoint))
    assert str(raised.value).startswith("predictions: 3 texts are empty (text 1 is None, text 2 is a missing value "
                                        '(NaN/NA), text 4 is empty): pass on_empty="skip"')
    with pytest.warns(EmptyTextWarning, match="3 empty texts left out"):
        result = metric.compute(model=str(bert_checkpoint), on_empty="skip")
    assert result["scores"] == pytest.approx(alone.scores[:2], abs=1e-6)
    assert result["indices"] == [0, 3] and result["empty"] == [1, 2, 4] and result["on_empty"] == "skip"
    assert result["system_score"] == pytest.approx(sum(alone.scores[:2]) / 2, abs=1e-6)


def test_evaluate_nan_keeps_one_score_per_prediction(metric, bert_checkpoint, alone):
    with pytest.warns(EmptyTextWarning, match="2 empty texts reported as NaN"):
        result = metric.compute(predictions=[TEXTS[0], None, TEXTS[1], ""], model=str(bert_checkpoint),
                                on_empty="nan")
    assert [result["scores"][0], result["scores"][2]] == pytest.approx(alone.scores[:2], abs=1e-6)
    assert math.isnan(result["scores"][1]) and math.isnan(result["scores"][3]) and result["empty"] == [1, 3]


def test_evaluate_keeps_sentence_lists_as_lists_after_an_empty_one(metric, bert_checkpoint, scorer):
    """An empty prediction first in a batch of sentence lists is written as an empty list, so evaluate does not
    pick the string column from it and cast the sentence lists after it into their Python repr."""
    sentences = [["The river rose slowly through the night.", "By morning the lower fields were under water."]]
    with pytest.warns(EmptyTextWarning):
        result = metric.compute(predictions=[None, *sentences], model=str(bert_checkpoint), on_empty="skip")
    assert result["scores"] == pytest.approx(scorer.score(sentences).scores, abs=1e-6)


def test_evaluate_names_an_unknown_on_empty(metric, bert_checkpoint):
    with pytest.raises(InputError, match=re.escape("unknown on_empty 'keep': choose one of error, skip, nan")):
        metric.compute(predictions=TEXTS, model=str(bert_checkpoint), on_empty="keep")


# torchmetrics

def test_torchmetrics_on_empty(bert_checkpoint, alone):
    with pytest.raises(InputError, match="unknown on_empty 'drop'"):
        CoherenceMetric(str(bert_checkpoint), on_empty="drop")
    refusing = CoherenceMetric(str(bert_checkpoint))
    with pytest.raises(InputError, match=r"^text 1 is None: pass on_empty="):
        refusing.update([TEXTS[0], None])
    skipping = CoherenceMetric(str(bert_checkpoint), on_empty="skip")
    with pytest.warns(EmptyTextWarning, match="1 empty text left out"):
        skipping.update([TEXTS[0], None, TEXTS[1]])
    with pytest.warns(EmptyTextWarning):
        skipping.update(["", " "])  # a batch of empty texts only: nothing to add, no error
    assert skipping.per_text_scores().tolist() == pytest.approx(alone.scores[:2], abs=1e-5)
    assert skipping.compute().item() == pytest.approx(sum(alone.scores[:2]) / 2, abs=1e-5)
    nan = CoherenceMetric(str(bert_checkpoint), on_empty="nan")
    with pytest.warns(EmptyTextWarning, match="reported as NaN"):
        nan.update([TEXTS[0], None, TEXTS[1]])
    scores = nan.per_text_scores().tolist()
    assert math.isnan(scores[1]) and [scores[0], scores[2]] == pytest.approx(alone.scores[:2], abs=1e-5)
    assert nan.compute().item() == pytest.approx(sum(alone.scores[:2]) / 2, abs=1e-5)
    nan.reset()
    with pytest.warns(EmptyTextWarning):
        nan.update([None])
    with pytest.raises(InputError, match="no scored texts"):
        nan.compute()
