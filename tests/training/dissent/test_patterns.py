"""The surface-pattern fallback, the pair clean-up and the paper's length filters, on hand-written text."""

from __future__ import annotations

import pytest

from coherence_metric.errors import InputError
from coherence_metric.training.dissent.markers import BOOKS_5, BOOKS_8, BOOKS_ALL, marker_kinds, marker_set
from coherence_metric.training.dissent.pairs import as_sentence, lengths_ok
from coherence_metric.training.dissent.patterns import extract_with_patterns

PREVIOUS = "The storm had lasted all night."


def extract(sentence, markers=BOOKS_ALL, previous=PREVIOUS):
    return [(found.marker, found.where, found.s1, found.s2)
            for found in extract_with_patterns(sentence, previous, markers)]


def test_the_marker_sets_are_the_papers_and_nested():
    assert marker_set("books5") == ("and", "but", "because", "if", "when")
    assert marker_set("books8") == BOOKS_5 + ("before", "though", "so")
    assert len(marker_set("all")) == 15 and set(BOOKS_8) < set(BOOKS_ALL)
    with pytest.raises(InputError, match="unknown marker set 'books6'"):
        marker_set("books6")
    with pytest.raises(InputError, match="'however' is not one of the DisSent markers"):
        marker_kinds("however")


@pytest.mark.parametrize("sentence, expected", [
    ("The concept is simple, but the execution will be dangerous.",
     ("but", "SS", "The concept is simple.", "The execution will be dangerous.")),
    ("She was late to class because she missed the bus.",
     ("because", "SS", "She was late to class.", "She missed the bus.")),
    ("Because it was cold outside, I wore a heavy jacket.",
     ("because", "SS", "I wore a heavy jacket.", "It was cold outside.")),
    ("I finished my homework; then I watched a film.",
     ("then", "SS", "I finished my homework.", "I watched a film.")),
    ("As she walked into the room, he smiled.", ("as", "SS", "He smiled.", "She walked into the room.")),
])
def test_clause_joining_and_s2_initial(sentence, expected):
    assert extract(sentence) == [expected]


@pytest.mark.parametrize("sentence, marker", [
    ("But the execution will be incredibly dangerous.", "but"),
    ("Still, the lifeboat did not slow down at all.", "still"),
    ("And the cloudy darkness lifted at last.", "and"),
])
def test_sentence_initial_coordinators_and_adverbials_take_the_previous_sentence(sentence, marker):
    found = extract(sentence)
    assert [(item[0], item[1], item[2]) for item in found] == [(marker, "IPS", PREVIOUS)]
    assert extract(sentence, previous=None) == []


@pytest.mark.parametrize("sentence", [
    "The cat was black and white.",  # "and" without a comma joins words, not clauses
    "She asked if he would come to the party.",  # complement "if"
    "He worked as a teacher for many years.",  # "as" without a comma
    "After the war the firm grew quickly.",  # sentence-initial preposition: no comma, no clause
    "He was so tired that he fell asleep.",  # degree "so"
    "He spoke softly, and then left the room.",  # S2 does not start with a subject
])
def test_the_fallback_rejects_non_clausal_uses(sentence):
    assert extract(sentence) == []


def test_only_the_requested_markers_are_found():
    sentence = "We went for a walk, though it was raining heavily."
    assert extract(sentence, markers=BOOKS_5) == []
    assert [item[0] for item in extract(sentence, markers=BOOKS_8)] == ["though"]


def test_clauses_become_sentences():
    assert as_sentence('"it was cold outside," ') == "It was cold outside."
    assert as_sentence("they left?!") == "They left."
    assert as_sentence(" , ; ") is None


def test_the_papers_length_filters():
    five, fifty = "one two three four five", " ".join(["w"] * 50)
    assert lengths_ok(five, five) and not lengths_ok("one two three four", five)  # at least 5 words
    assert not lengths_ok(fifty + " more", fifty)  # at most 50
    assert lengths_ok(five, " ".join(["w"] * 25)) and not lengths_ok(five, " ".join(["w"] * 26))  # ratio <= 5


def test_sentence_initial_so_is_an_adverbial_and_if_needs_its_main_clause():
    assert extract("So we decided to leave the party early.") == [
        ("so", "IPS", PREVIOUS, "We decided to leave the party early.")]
    assert extract("If you give me your number tonight.") == []


@pytest.mark.parametrize("sentence", [
    "Warhol had so many possessions that it took nine days to sell his estate after his death; the sale grossed more.",
    "Downey's character was written out after the end of the season due to the actor's troubles with drugs.",
])
def test_a_preposition_before_a_noun_phrase_is_not_a_clause(sentence):
    assert extract(sentence) == []
