"""score_transitions: each adjacent sentence pair scored alone by the checkpoint's document model, in one pass."""

from __future__ import annotations

import pytest

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.scoring.transitions import score_transitions, transition_pairs

RIVER = [
    "The river rose slowly through the night.",
    "By morning the lower fields were under water.",
    "Farmers moved their cattle to the hills before noon.",
    "The council opened the school as a shelter.",
]
MARKET = ["Prices at the market doubled in a week.", "Traders blamed the drought in the south."]


@pytest.fixture(scope="module")
def scorer(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint), dtype="fp32")


def test_each_transition_is_the_score_of_its_two_sentences_as_a_text(scorer):
    values = score_transitions(scorer, [RIVER, MARKET])
    assert [len(row) for row in values] == [3, 1]
    expected = scorer.score([" ".join(RIVER[i:i + 2]) for i in range(3)] + [" ".join(MARKET)]).scores
    assert values[0] + values[1] == pytest.approx(expected, abs=1e-5)
    assert len(set(values[0])) == 3  # three different pairs, three different numbers


def test_a_text_of_one_sentence_has_no_transitions(scorer):
    assert score_transitions(scorer, [["Only one sentence here."], RIVER[:2]])[0] == []
    assert score_transitions(scorer, [["Alone."]]) == [[]]


def test_a_texts_values_do_not_depend_on_the_other_texts_in_the_call(scorer):
    alone = score_transitions(scorer, [RIVER])[0]
    crowded = score_transitions(scorer, [MARKET * 6, RIVER, ["x " * 40 + ".", "y."]])[1]
    assert crowded == pytest.approx(alone, abs=1e-5)


def test_repeated_pairs_are_scored_once(scorer):
    calls = []
    original = scorer._score_ids

    def counting(ids):
        calls.append(len(ids))
        return original(ids)

    scorer._score_ids = counting
    try:
        values = score_transitions(scorer, [RIVER, RIVER, MARKET])
    finally:
        del scorer._score_ids
    assert calls == [4]  # one pass over the 3 + 1 distinct pairs of all texts
    assert values[0] == values[1]


def test_a_pair_longer_than_max_length_is_cut_like_truncation_warn(bert_checkpoint):
    short = CoherenceScorer(str(bert_checkpoint), dtype="fp32", max_length=16, truncation="warn")
    long_pair = ["one two three four five six seven eight nine ten eleven twelve.", "thirteen fourteen fifteen."]
    with pytest.warns(UserWarning):
        expected = short.score(" ".join(long_pair)).scores[0]
    assert score_transitions(short, [long_pair])[0][0] == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("bad, message", [
    ("A string.", "not one string"),
    (["A string. Another."], "text 0 is a string"),
    ([["fine.", "  "]], "text 0, sentence 1"),
])
def test_bad_inputs_are_named(scorer, bad, message):
    with pytest.raises(InputError, match=message):
        score_transitions(scorer, bad)


def test_transition_pairs_join_with_one_space():
    assert transition_pairs(["A.", "B.", "C."]) == ["A. B.", "B. C."]
    assert transition_pairs(["A."]) == []
