"""Dependency-pattern extraction on hand-written sentences: each marker kind, both orders, IPS, rejections.

These run the real spaCy English parser (en_core_web_sm 3.8.0 from PyPI); they skip, naming the install
command, where it is not installed.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import pytest

from coherence_metric.training.dissent.markers import BOOKS_5, BOOKS_8, BOOKS_ALL
from coherence_metric.training.dissent.parser import INSTALL_HINT, spacy_ready

pytestmark = pytest.mark.skipif(not spacy_ready(), reason=f"spaCy English pipeline not installed: {INSTALL_HINT}")

PREVIOUS = "The storm had lasted all night."


@pytest.fixture(scope="module")
def nlp():
    from coherence_metric.training.dissent.parser import load_dependency_parser

    return load_dependency_parser()


def extract(nlp, sentence: str, markers=BOOKS_ALL, previous: Optional[str] = PREVIOUS) -> List[Tuple[str, ...]]:
    from coherence_metric.training.dissent.extraction import extract_from_parse

    return [(found.marker, found.where, found.s1, found.s2)
            for found in extract_from_parse(nlp(sentence), previous, markers)]


@pytest.mark.parametrize("sentence, expected", [
    # clause-joining coordinators (Books 5): S1 is the clause before the marker
    ("The concept is simple, but the execution will be incredibly dangerous.",
     ("but", "SS", "The concept is simple.", "The execution will be incredibly dangerous.")),
    ("Her eyes flew up to his face and suddenly she realized why he looked so different.",
     ("and", "SS", "Her eyes flew up to his face.", "Suddenly she realized why he looked so different.")),
    # subordinators after their main clause (Books 5)
    ("I will tell you about it if you give me your number.",
     ("if", "SS", "I will tell you about it.", "You give me your number.")),
    ("She was late to class because she missed the bus.",
     ("because", "SS", "She was late to class.", "She missed the bus.")),
    # S2-initial inside the sentence: "Because S2, S1" keeps the conceptual order S1, S2
    ("Because it was cold outside, I wore a heavy jacket.",
     ("because", "SS", "I wore a heavy jacket.", "It was cold outside.")),
    ("When Drade and Barney strolled in, Belter was still hard at work.",
     ("when", "SS", "Belter was still hard at work.", "Drade and Barney strolled in.")),
    # Books 8 additions
    ("Before he left, he locked all the doors carefully.",
     ("before", "SS", "He locked all the doors carefully.", "He left.")),
    ("We went for a walk, though it was raining heavily.",
     ("though", "SS", "We went for a walk.", "It was raining heavily.")),
    ("I was very tired, so I went home early.", ("so", "SS", "I was very tired.", "I went home early.")),
    # ALL additions
    ("He read a book while she cooked dinner for them.",
     ("while", "SS", "He read a book.", "She cooked dinner for them.")),
    ("Although it was raining, we went for a long walk.",
     ("although", "SS", "We went for a long walk.", "It was raining.")),
    ("I finished all my homework, then I watched a film.",
     ("then", "SS", "I finished all my homework.", "I watched a film.")),
])
def test_same_sentence_pairs(nlp, sentence, expected):
    assert extract(nlp, sentence) == [expected]


@pytest.mark.parametrize("sentence, marker, s2", [
    ("But the execution will be incredibly dangerous.", "but", "The execution will be incredibly dangerous."),
    ("So we decided to leave the party.", "so", "We decided to leave the party."),
    ("Then the cloudy darkness lifted over the hills.", "then", "The cloudy darkness lifted over the hills."),
    ("Still, the lifeboat did not slow down at all.", "still", "The lifeboat did not slow down at all."),
])
def test_a_sentence_initial_marker_links_to_the_previous_sentence(nlp, sentence, marker, s2):
    assert extract(nlp, sentence) == [(marker, "IPS", PREVIOUS, s2)]
    assert extract(nlp, sentence, previous=None) == []  # a document's first sentence has nothing to link to


@pytest.mark.parametrize("sentence", [
    "That's so cool!",  # so as a degree adverb (the paper's own example)
    "She asked if he would come to the party tonight.",  # if heading a complement, not a condition
    "I don't know when he will arrive at the station.",  # when heading a complement
    "He worked as a teacher for many years.",  # as a preposition
    "He was still hard at work on the project.",  # still inside its clause
    "He also wanted to see the old castle.",  # also inside its clause
    "The company said it would buy the shares and sell the rest of its stake.",  # and joins verb phrases
    "He left after finishing his breakfast.",  # S2 has no subject and no finite verb
])
def test_non_discourse_uses_are_rejected(nlp, sentence):
    assert extract(nlp, sentence) == []


def test_only_the_requested_markers_are_extracted(nlp):
    sentence = "He read a book while she cooked dinner for them."
    assert extract(nlp, sentence, markers=BOOKS_5) == []
    assert extract(nlp, sentence, markers=BOOKS_8) == []
    assert [found[0] for found in extract(nlp, sentence, markers=BOOKS_ALL)] == ["while"]


def test_the_nearer_and_joins_the_clauses(nlp):
    found = extract(nlp, "And he went home and she slept in the car.")
    assert ("and", "SS", "He went home.", "She slept in the car.") in found
    assert ("and", "IPS", PREVIOUS, "He went home and she slept in the car.") in found


def test_corpus_extraction_respects_the_document_split(shared_data, tmp_path):
    from coherence_metric.research.splits import split_of
    from coherence_metric.training.dissent.dataset import ExtractionSettings, extract_corpus_pairs
    from coherence_metric.training.dissent.pairs import lengths_ok

    settings = ExtractionSettings(corpora=["tales"], parser="spacy", max_sentences_per_corpus=300)
    found = list(extract_corpus_pairs(settings, shared_data))
    assert len(found) > 10
    for split, pair in found:
        assert split == split_of(pair.doc_id) and pair.method == "dependency"
        assert lengths_ok(pair.s1, pair.s2) and pair.marker in BOOKS_ALL
