"""INSteD-style intrusion pairs on tiny hand-written documents: the most similar foreign sentence replaces one."""

from __future__ import annotations

import random

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research.datasets.intrusion import build_intrusion_pairs

DOCUMENTS = [
    ["Markets opened quietly on Monday.", "The central bank raised interest rates by half a point."],
    ["The team won the cup final.", "Fans celebrated in the streets.", "The coach praised the defence."],
    ["Economists expected the bank to raise interest rates this month.", "Bread prices rose again."],
    ["A storm hit the coast overnight.", "Fans of the team gathered at the stadium."],
]


def test_one_pair_per_document_with_the_most_similar_foreign_sentence(caplog):
    pairs = build_intrusion_pairs(DOCUMENTS, random.Random(0), min_sentences=2)
    # "Bread prices rose again." (document 2) shares no word with any other document: skipped, with a warning.
    assert [pair.meta["doc_id"] for pair in pairs] == ["0", "1", "3"]
    assert "1 documents skipped" in caplog.text
    first = pairs[0]
    assert first.pos == DOCUMENTS[0] and first.meta["position"] == 1
    assert first.neg == [DOCUMENTS[0][0], DOCUMENTS[2][0]]
    assert (first.meta["intruder_doc_id"], first.meta["intruder_sentence_index"]) == ("2", 0)
    for pair in pairs:
        differing = [i for i, (a, b) in enumerate(zip(pair.pos, pair.neg)) if a != b]
        assert differing == [pair.meta["position"]] and differing[0] > 0
        assert pair.meta["intruder_doc_id"] != pair.meta["doc_id"]
        assert pair.neg[differing[0]] not in pair.pos
        assert 0.0 < pair.meta["similarity"] < 0.9


def test_deterministic_for_a_seed_and_short_documents_skipped():
    first = build_intrusion_pairs(DOCUMENTS, random.Random(5), min_sentences=3, document_ids=list("abcd"))
    again = build_intrusion_pairs(DOCUMENTS, random.Random(5), min_sentences=3, document_ids=list("abcd"))
    assert first == again
    assert [pair.id.split("/")[0] for pair in first] == ["b"]


def test_copies_are_not_intruders():
    documents = [
        ["Opening line.", "The bank raised interest rates."],
        ["Elsewhere.", "The bank raised interest rates!"],  # a near copy: not an intrusion
        ["Other news.", "Interest rates worry the bank's customers greatly."],
    ]
    pair = build_intrusion_pairs(documents, random.Random(0), min_sentences=2)[0]
    assert pair.meta["intruder_doc_id"] == "2"


def test_bad_input_raises_input_error():
    with pytest.raises(InputError):
        build_intrusion_pairs([DOCUMENTS[0]], random.Random(0))
    with pytest.raises(InputError):
        build_intrusion_pairs(["not a list of sentences", DOCUMENTS[0]], random.Random(0))
    with pytest.raises(InputError):
        build_intrusion_pairs(DOCUMENTS, random.Random(0), document_ids=["x", "x", "y", "z"])
