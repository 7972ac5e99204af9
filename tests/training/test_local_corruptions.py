"""Local negatives: each breaks one place, keeps the sentence count, never returns a silent copy."""

from __future__ import annotations

import random

import pytest

from coherence_metric.training.data.local_corruptions import (
    adjacent_swap,
    connective_swap,
    fit_length,
    pronoun_switch,
    similar_intrusion,
)

NORMAL = ["John Smith founded the company in 1998.", "However, he sold it to Mary Jones in 2004.",
          "The company was based in London.", "It made a profit in 2010."]
TOKENISED = ["the team won the match on saturday .", "they had lost the previous three games .",
             "as a result , the coach was pleased .", "he thanked the fans ."]
POOL = [["Rain is expected across London tomorrow.", "The company said profits fell.", "Roads may ice."],
        ["the museum reopened after a long renovation .", "the match was played in the rain ."]]
SEEDS = range(20)


@pytest.mark.parametrize("text", [NORMAL, TOKENISED])
def test_adjacent_swap_moves_one_sentence_by_one_position(text):
    for seed in SEEDS:
        result = adjacent_swap(text, random.Random(seed))
        assert result is not None and sorted(result) == sorted(text) and len(result) == len(text)
        moved = [index for index, (a, b) in enumerate(zip(text, result)) if a != b]
        assert len(moved) == 2 and moved[1] == moved[0] + 1


def test_adjacent_swap_needs_two_distinct_sentences():
    assert adjacent_swap(["One sentence."], random.Random(0)) is None
    assert adjacent_swap(["Same.", "Same."], random.Random(0)) is None


@pytest.mark.parametrize("text", [NORMAL, TOKENISED])
def test_similar_intrusion_replaces_one_later_sentence_by_the_most_overlapping_pool_sentence(text):
    for seed in SEEDS:
        result = similar_intrusion(text, random.Random(seed), POOL)
        assert result is not None and len(result) == len(text) and result[0] == text[0]
        changed = [index for index, (a, b) in enumerate(zip(text, result)) if a != b]
        assert len(changed) == 1 and any(result[changed[0]] in document for document in POOL)
    # "The company was based in London." (index 2) and its predecessor share "company"/"london" with one pool sentence
    picks = {tuple(similar_intrusion(NORMAL, random.Random(seed), POOL)) for seed in SEEDS}
    assert any(pick[2] in ("The company said profits fell.", "Rain is expected across London tomorrow.")
               for pick in picks if pick[2] != NORMAL[2])


def test_similar_intrusion_needs_a_pool_and_two_sentences():
    assert similar_intrusion(NORMAL, random.Random(0), None) is None
    assert similar_intrusion(NORMAL[:1], random.Random(0), POOL) is None


def test_connective_swap_replaces_an_opening_connective_by_one_of_another_relation():
    for seed in SEEDS:
        result = connective_swap(NORMAL, random.Random(seed))
        assert result is not None and len(result) == len(NORMAL)
        assert result[1] != NORMAL[1] and not result[1].startswith("However")
        assert result[1].endswith("he sold it to Mary Jones in 2004.") and result[1][0].isupper()
    tokenised = connective_swap(TOKENISED, random.Random(3))
    assert tokenised is not None and not tokenised[2].startswith("as a result") and tokenised[2].endswith(
        ", the coach was pleased .")


def test_connective_swap_adds_an_unwarranted_connective_when_none_opens_a_sentence():
    text = ["The river flooded the town.", "Residents moved to higher ground."]
    result = connective_swap(text, random.Random(1))
    assert result is not None and result[0] == text[0] and result[1].endswith("residents moved to higher ground.")
    assert connective_swap(["Only one."], random.Random(0)) is None


def test_pronoun_switch_changes_one_pronoun_after_the_first_sentence():
    for seed in SEEDS:
        result = pronoun_switch(NORMAL, random.Random(seed))
        assert result is not None and result[0] == NORMAL[0] and len(result) == len(NORMAL)
        changed = [index for index, (a, b) in enumerate(zip(NORMAL, result)) if a != b]
        assert len(changed) == 1
        before, after = NORMAL[changed[0]].split(), result[changed[0]].split()
        assert len(before) == len(after) and sum(a != b for a, b in zip(before, after)) == 1
    assert pronoun_switch(["He left.", "The door closed."], random.Random(0)) is None


def test_fit_length_cuts_longer_negatives_back_and_drops_those_whose_error_was_cut():
    original = ["A.", "B.", "C."]
    assert fit_length(original, ["A.", "A.", "B.", "C."]) == ["A.", "A.", "B."]
    assert fit_length(original, ["A.", "B.", "C.", "C."]) is None  # the repeat lived in the dropped tail
    assert fit_length(original, ["A.", "C."]) == ["A.", "C."]  # shorter ones are kept
    assert fit_length(original, None) is None
