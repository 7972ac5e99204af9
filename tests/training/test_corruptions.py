"""Generator-like corrupted negatives: what each kind makes, when it does not apply, determinism."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import List, Optional, Sequence

import pytest

from coherence_metric.training.data.corruptions import (
    CORRUPTIONS,
    KIND_DESCRIPTIONS,
    contradiction,
    corrupt,
    cut_off,
    dangling_reference,
    entity_swap,
    intrusion,
    near_repeat,
    negate,
    repeat_clause,
    repeat_sentence,
    shuffle,
    topic_switch,
)

NORMAL = ["John Smith founded the company in 1998.", "He sold it to Mary Jones for 5 million dollars in 2004.",
          "The company was based in London.", "It didn't make a profit until 2010."]
TOKENISED = ["the team won the match on saturday .", "they had lost the previous three games .",
             "the coach said , `` we won because we played together . ''", "he was not happy with the referee ."]
TEXTS = [NORMAL, TOKENISED]
POOL = [["Rain is expected across the north tomorrow.", "Temperatures will fall below zero.", "Roads may ice."],
        ["the museum reopened after a long renovation .", "visitors queued for hours ."]]
SEEDS = range(25)


def seeded(kind, sentences: Sequence[str], seed: int, pool=POOL) -> Optional[List[str]]:
    return CORRUPTIONS[kind](sentences, random.Random(seed), pool)


def inserted_at(original: Sequence[str], result: Sequence[str]) -> int:
    """The index of the one sentence ``result`` adds to ``original`` (asserting that is all it changes)."""
    assert len(result) == len(original) + 1
    at = next((index for index, (a, b) in enumerate(zip(original, result)) if a != b), len(original))
    assert list(result[:at]) + list(result[at + 1:]) == list(original)
    return at


def plain_words(sentence: str) -> List[str]:
    """Words without commas and full stops (a repeated clause may be joined by a comma, and never has the stop)."""
    return [word.rstrip(",.") for word in sentence.split() if word.rstrip(",.") not in ("", "''")]


def test_every_kind_is_registered_and_described():
    kinds = {"repeat_sentence", "repeat_clause", "near_repeat", "cut_off", "dangling_reference", "entity_swap",
             "contradiction", "topic_switch", "intrusion", "shuffle",
             "adjacent_swap", "similar_intrusion", "connective_swap", "pronoun_switch"}
    assert set(CORRUPTIONS) == set(KIND_DESCRIPTIONS) == kinds
    assert all(description.strip() and "\n" not in description for description in KIND_DESCRIPTIONS.values())


@pytest.mark.parametrize("text", TEXTS)
def test_repeat_sentence_says_one_sentence_twice_and_keeps_the_others_in_order(text):
    positions = set()
    for seed in SEEDS:
        result = repeat_sentence(text, random.Random(seed))
        at = inserted_at(text, result)
        assert result[at] in result[:at]  # a repeat of an earlier sentence: right after itself or later
        assert Counter(result)[result[at]] == 2
        positions.add(result.index(result[at]) + 1 == at)
    assert positions == {True, False}  # both right after itself and later
    assert repeat_sentence(["Yes."], random.Random(0)) == ["Yes.", "Yes."]


@pytest.mark.parametrize("text", [NORMAL, [sentence.replace(" ,", "") for sentence in TOKENISED]])
def test_repeat_clause_inserts_four_to_eight_words_of_a_sentence_into_it_or_the_next(text):
    targets = set()
    for seed in SEEDS:
        result = repeat_clause(text, random.Random(seed))
        assert len(result) == len(text)
        changed = [index for index, (a, b) in enumerate(zip(text, result)) if a != b]
        assert len(changed) == 1
        index = changed[0]
        old, new = plain_words(text[index]), plain_words(result[index])
        grown = len(new) - len(old)
        assert 4 <= grown <= 8
        sources = {"next": plain_words(text[index - 1]) if index else [], "same": old}
        runs = {where: [words[start:start + grown] for start in range(len(words))] for where, words in sources.items()}
        # the clause inserted: a block of ``new`` whose removal leaves the old sentence (ambiguous where words repeat)
        found = {where for at in range(len(old) + 1) if new[:at] + new[at + grown:] == old
                 for where in runs if new[at:at + grown] in runs[where]}
        assert found
        targets |= found
    assert targets == {"same", "next"}  # in place and into the next sentence
    assert repeat_clause(["Too short here.", "Yes."], random.Random(0)) is None


@pytest.mark.parametrize("text", TEXTS)
def test_near_repeat_puts_a_slightly_changed_copy_right_after_the_original(text):
    for seed in SEEDS:
        result = near_repeat(text, random.Random(seed))
        at = inserted_at(text, result)
        restated, source = Counter(result[at].lower().split()), Counter(result[at - 1].lower().split())
        assert at >= 1 and result[at].split() != result[at - 1].split() and result[at] not in text
        # 1-2 edits: a word dropped, replaced by another word of the text, or two words swapped
        assert sum((source - restated).values()) <= 2 and sum((restated - source).values()) <= 2
    assert near_repeat(["Yes.", "No way."], random.Random(0)) is None


@pytest.mark.parametrize("text", TEXTS)
def test_cut_off_truncates_the_last_sentence_to_a_strict_prefix_without_final_punctuation(text):
    for seed in SEEDS:
        result = cut_off(text, random.Random(seed))
        assert result[:-1] == text[:-1]
        last, source = result[-1], text[-1]
        assert source.startswith(last) and last != source and last[-1].isalnum()
        words = len(source.rstrip(" .'").split())
        assert 0.3 * words - 1 <= len(last.split()) <= math.floor(0.7 * words)


def test_cut_off_cuts_an_earlier_sentence_when_the_last_is_one_word_and_none_when_nothing_can_be_cut():
    text = ["The match ended in a draw after extra time.", "Goal!"]
    result = cut_off(text, random.Random(3))
    assert len(result) == 1 and text[0].startswith(result[0]) and result[0][-1].isalnum()
    assert cut_off(["Yes.", "No."], random.Random(0)) is None
    assert cut_off(["Two words."], random.Random(0)) == ["Two"]


def test_dangling_reference_deletes_the_sentence_before_a_pronoun_initial_one():
    text = ["Mary Jones runs a bakery in Leeds.", "She opened it in 2001.", "Business has been good."]
    assert dangling_reference(text, random.Random(0)) == text[1:]
    tokenised = ["john smith founded the company .", "he sold it in 2004 .", "he retired ."]
    assert all(dangling_reference(tokenised, random.Random(seed)) == tokenised[1:] for seed in SEEDS)
    quoted = ["The mayor spoke on Friday.", "Crowds gathered.", "`` They promised new parks . ''"]
    assert dangling_reference(quoted, random.Random(0)) == [quoted[0], quoted[2]]
    definite = ["Storms hit the coast.", "A bakery flooded.", "The bakery will reopen."]
    assert dangling_reference(definite, random.Random(0)) == [definite[0], definite[2]]


@pytest.mark.parametrize("text", [["He left."], ["The sun rose.", "Birds sang."], ["He came.", "He left."],
                                  ["The bakery flooded.", "A storm hit.", "The bakery closed."]])
def test_dangling_reference_is_none_without_a_pronoun_after_an_introducing_sentence(text):
    assert dangling_reference(text, random.Random(0)) is None


def test_entity_swap_changes_exactly_names_and_numbers():
    text = ["Alice met Bob in Paris.", "Bob paid 40 dollars for 3 books.", "Later Alice flew home to Rome."]
    entities = {"Alice", "Bob", "Paris", "Rome", "40", "3"}
    for seed in SEEDS:
        result = entity_swap(text, random.Random(seed))
        changed = []
        for old, new in zip(text, result):
            old_words, new_words = old.split(), new.split()
            assert len(old_words) == len(new_words)
            changed += [(a.rstrip("."), b.rstrip(".")) for a, b in zip(old_words, new_words) if a != b]
        assert changed and all(a in entities and b in entities for a, b in changed)
        assert all(a.isdigit() == b.isdigit() for a, b in changed)  # names with names, numbers with numbers


def test_entity_swap_swaps_years_with_years_and_other_numbers_with_numbers():
    text = ["the firm was founded in 1998 with 5 staff .", "by 2004 it had 40 staff and 3 offices ."]
    for seed in SEEDS:
        result = entity_swap(text, random.Random(seed))
        diffs = [(a, b) for old, new in zip(text, result) for a, b in zip(old.split(), new.split()) if a != b]
        assert diffs and all((a in ("1998", "2004")) == (b in ("1998", "2004")) for a, b in diffs)


def test_entity_swap_moves_whole_names_and_works_on_numbers_in_lower_cased_text():
    text = ["John Smith met Mary Jones."]
    assert {tuple(entity_swap(text, random.Random(seed))) for seed in SEEDS} == {
        ("Mary Jones met John Smith.",), ("John Smith met John Smith.",)}
    lowered = ["the club paid 40 million for the striker .", "he scored 12 goals in his first season ."]
    for seed in SEEDS:
        result = entity_swap(lowered, random.Random(seed))
        diffs = [(a, b) for old, new in zip(lowered, result) for a, b in zip(old.split(), new.split()) if a != b]
        assert diffs and all({a, b} == {"40", "12"} for a, b in diffs)
    words = entity_swap(["she bought three apples and two pears ."], random.Random(0))
    assert words is not None and words[0].split()[2:6:3] in (["two", "three"], ["three", "three"])


@pytest.mark.parametrize("text", [["the cat sat on the mat .", "it purred ."], ["Alice smiled at Alice."],
                                  ["He met her in 1990.", "It was 1990."], ["Yes."]])
def test_entity_swap_is_none_without_two_different_names_or_numbers(text):
    assert entity_swap(text, random.Random(0)) is None


@pytest.mark.parametrize(("sentence", "negated"), [
    ("The team won the match.", "The team never won the match."),
    ("He was happy.", "He was not happy."),
    ("he did n't go .", "he did go ."),
    ("we ca n't stop .", "we can stop ."),
    ("She isn't here.", "She is here."),
    ("They have finished the work.", "They have not finished the work."),
    ("She has a dog.", "She does not have a dog."),
    ("He never lies.", "He lies."),
    ("the mayor opened the new bridge .", "the mayor never opened the new bridge ."),
    ("Hello.", None),
    ("the fire spread quickly .", None),
])
def test_negate(sentence, negated):
    assert negate(sentence) == negated


@pytest.mark.parametrize("text", TEXTS)
def test_contradiction_adds_the_negation_of_an_earlier_sentence(text):
    for seed in SEEDS:
        result = contradiction(text, random.Random(seed))
        at = inserted_at(text, result)
        assert any(negate(sentence) == result[at] for sentence in result[:at])
    assert contradiction(["Hello.", "Goodbye."], random.Random(0)) is None


@pytest.mark.parametrize("text", TEXTS + [["One.", "Two.", "Three."], ["Just one sentence here."]])
def test_topic_switch_keeps_the_first_half_and_ends_with_a_run_of_a_pool_document(text):
    for seed in SEEDS:
        result = topic_switch(text, random.Random(seed), POOL)
        keep = next(at for at in range(len(text) + 1) if at == len(text) or result[at] != text[at])
        assert keep in {max(1, len(text) // 2), max(1, (len(text) + 1) // 2)} and keep <= max(1, len(text) - 1)
        tail = result[keep:]
        assert tail and any(tail == document[start:start + len(tail)] for document in POOL
                            for start in range(len(document)))


def test_topic_switch_needs_a_foreign_pool_document():
    assert topic_switch(NORMAL, random.Random(0)) is None
    assert topic_switch(NORMAL, random.Random(0), []) is None
    assert topic_switch(NORMAL, random.Random(0), [NORMAL, ["", " "]]) is None


@pytest.mark.parametrize("text", TEXTS + [["One.", "Two.", "Three."]])
def test_intrusion_replaces_one_later_sentence_with_a_pool_sentence(text):
    foreign = {sentence for document in POOL for sentence in document} - set(text)
    for seed in SEEDS:
        result = intrusion(text, random.Random(seed), POOL)
        changed = [at for at, (old, new) in enumerate(zip(text, result)) if old != new]
        assert len(result) == len(text) and len(changed) == 1 and changed[0] >= 1
        assert result[changed[0]] in foreign
    assert intrusion(["Just one sentence here."], random.Random(0), POOL) is None
    assert intrusion(text, random.Random(0)) is None


def test_shuffle_reorders_and_is_none_when_no_other_order_exists():
    for text in TEXTS:
        for seed in SEEDS:
            result = shuffle(text, random.Random(seed))
            assert sorted(result) == sorted(text) and result != text
    assert shuffle(["Only one."], random.Random(0)) is None
    assert shuffle(["a .", "a ."], random.Random(0)) is None


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_each_kind_is_deterministic_for_a_seed(kind):
    for text in TEXTS:
        for seed in range(5):
            assert seeded(kind, text, seed) == seeded(kind, text, seed)
    assert len({json.dumps(seeded(kind, NORMAL, seed)) for seed in range(10)}) > 1 or kind == "dangling_reference"


def test_results_do_not_depend_on_string_hashing():
    script = ("import json, random; from coherence_metric.training.data.corruptions import CORRUPTIONS; "
              "from tests.training.test_corruptions import TEXTS, POOL; "
              "print(json.dumps([f(t, random.Random(s), POOL) for f in CORRUPTIONS.values() for t in TEXTS "
              "for s in range(3)]))")
    root = Path(__file__).resolve().parents[2]
    outputs = [subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed}).stdout for hash_seed in ("1", "2")]
    assert outputs[0] == outputs[1] and outputs[0].strip()


def test_corrupt_draws_an_applicable_kind_uniformly():
    kinds = ["shuffle", "dangling_reference", "repeat_sentence"]
    assert {corrupt(["He came."], kinds, random.Random(seed))[0] for seed in SEEDS} == {"repeat_sentence"}
    drawn = Counter(corrupt(NORMAL, kinds, random.Random(seed))[0] for seed in range(300))
    assert set(drawn) == set(kinds) and min(drawn.values()) > 60
    for seed in SEEDS:
        kind, result = corrupt(NORMAL, list(CORRUPTIONS), random.Random(seed), POOL)
        assert kind in CORRUPTIONS and result and result != NORMAL
    assert corrupt(NORMAL, kinds, random.Random(4)) == corrupt(NORMAL, kinds, random.Random(4))


def test_corrupt_is_none_when_no_asked_kind_applies_and_refuses_unknown_kinds():
    assert corrupt(["Hello."], ["shuffle", "entity_swap", "topic_switch"], random.Random(0)) is None
    results = {corrupt(["He came."], ["shuffle", "repeat_sentence"], random.Random(seed), tries=1) is None
               for seed in SEEDS}
    assert results == {True, False}  # with one try, the inapplicable kind drawn first gives up
    with pytest.raises(ValueError, match="nonsense"):
        corrupt(NORMAL, ["shuffle", "nonsense"], random.Random(0))
    with pytest.raises(ValueError):
        corrupt(NORMAL, [], random.Random(0))


#: Example texts for the robustness sweep: normal, tokenised, lower-cased, with one- and two-word sentences.
SWEEP_TEXTS = [
    NORMAL,
    TOKENISED,
    ["Yes.", "No!", "Maybe.", "He said, “We won.”", "Ok"],
    ["`` it 's over , '' she said .", "they left .", "the end .", "-lrb- see above -rrb-", "... ."],
    ["Dr. Ann Lee, 54, joined NASA in March.", "She didn't stay.", "In 2019 she left for the U.S. Army.", "Why?",
     "Nobody knows; her 3 colleagues can't say.", "It is what it is."],
]


def variation(rng: random.Random) -> List[str]:
    """A random stretch (1-6 sentences) of an example text, maybe lower-cased, some sentences cut to 1-2 words."""
    text = rng.choice(SWEEP_TEXTS)
    start = rng.randrange(len(text))
    sentences = text[start:start + rng.randint(1, 6)]
    if rng.random() < 0.5:
        sentences = [sentence.lower() for sentence in sentences]
    return [" ".join(sentence.split()[:rng.randint(1, 2)]) if rng.random() < 0.2 else sentence
            for sentence in sentences]


def test_every_kind_survives_short_lower_cased_and_tokenised_texts():
    rng = random.Random(2024)
    applied = Counter()
    for number in range(200):
        text = variation(rng)
        for kind, function in CORRUPTIONS.items():
            result = function(list(text), random.Random(number), SWEEP_TEXTS)
            if result is not None:
                applied[kind] += 1
                assert isinstance(result, list) and result and all(isinstance(s, str) for s in result)
                assert " ".join(" ".join(result).split()) != " ".join(" ".join(text).split()), (kind, text)
    assert set(applied) == set(CORRUPTIONS)  # every kind applied to some of them


@pytest.mark.parametrize("text", [[], [""], ["", "  "], ["."], ["``", "''"]])
def test_every_kind_is_none_on_texts_without_words(text):
    for kind, function in CORRUPTIONS.items():
        assert function(text, random.Random(0), POOL) is None, kind
