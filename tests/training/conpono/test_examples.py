"""CONPONO candidate construction: true targets at the paper's distances, hard and random negatives, determinism."""

from __future__ import annotations

import random
from typing import List, Tuple

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research.documents import Document
from coherence_metric.training.conpono.examples import (
    ExampleSettings,
    Paragraph,
    build_example,
    distance_row,
    distances,
    paragraphs_of,
    target_span,
)


def paragraph(doc: str, count: int) -> Paragraph:
    return Paragraph(doc, tuple(f"{doc} says {i}." for i in range(count)))


def positions(text: str) -> Tuple[str, List[int]]:
    """The document and sentence indices of a candidate built from ``paragraph`` sentences."""
    parts = [part for part in text.split(".") if part.strip()]
    docs = {part.split(" says ")[0].strip() for part in parts}
    assert len(docs) == 1
    return docs.pop(), [int(part.split(" says ")[1]) for part in parts]


POOL = [paragraph(doc, 12) for doc in ("a", "b", "c", "d")]
PAPER = ExampleSettings(anchor_sentences=4, target_sentences=3, max_distance=4, hard_negatives=3, random_negatives=6)


def test_target_spans_follow_the_papers_example() -> None:
    # "we may choose s7..s10 as the anchor and s1..s3 as the target for k = -4" (1-based sentences).
    assert target_span(10, anchor_start=6, anchor_length=4, k=-4, target_length=3) == (0, 3)
    assert target_span(10, anchor_start=6, anchor_length=4, k=-1, target_length=3) == (3, 6)
    assert target_span(12, anchor_start=2, anchor_length=4, k=1, target_length=3) == (6, 9)
    assert target_span(12, anchor_start=2, anchor_length=4, k=5, target_length=3) == (10, 12)  # cut at the edge
    assert target_span(12, anchor_start=2, anchor_length=4, k=-3, target_length=3) is None  # before sentence 0


def test_distance_rows_cover_minus_k_to_plus_k_without_zero() -> None:
    assert distances(2) == [-2, -1, 1, 2]
    assert [distance_row(k, 2) for k in distances(2)] == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        distance_row(0, 2)


@pytest.mark.parametrize("seed", range(25))
def test_candidates_hold_each_true_target_once_hard_negatives_and_randoms(seed: int) -> None:
    example = build_example(POOL[0], POOL, PAPER, random.Random(seed))
    anchor_doc, anchor = positions(example.anchor)
    assert anchor_doc == "a" and anchor == list(range(example.anchor_start, example.anchor_start + 4))
    assert len(example.candidates) == 1 + 3 + 6
    texts = [candidate.text for candidate in example.candidates]
    assert len(set(texts)) == len(texts) and example.anchor not in texts
    assert 1 <= len(example.targets) <= 4 and all(1 <= abs(k) <= 4 for k in example.targets)
    for k, index in example.targets.items():
        candidate = example.candidates[index]
        assert candidate.distance == k and texts.count(candidate.text) == 1
        doc, sentences = positions(candidate.text)
        assert doc == "a"
        if k > 0:  # starts k - 1 sentences after the anchor's last one
            assert sentences[0] == anchor[-1] + k and len(sentences) == min(3, 12 - sentences[0])
        else:  # ends |k| - 1 sentences before the anchor's first one
            assert sentences[-1] == anchor[0] + k and len(sentences) == min(3, sentences[-1] + 1)
    same = [candidate for candidate in example.candidates if candidate.doc_id == "a"]
    assert len(same) == 4 and len({candidate.distance for candidate in same}) == 4  # 1 + 3 at distinct distances
    others = [candidate for candidate in example.candidates if candidate.doc_id != "a"]
    assert len(others) == 6 and all(candidate.distance is None for candidate in others)
    for candidate in others:
        doc, sentences = positions(candidate.text)
        assert doc == candidate.doc_id and sentences == list(range(sentences[0], sentences[0] + 3))


def test_examples_are_deterministic_in_the_generator() -> None:
    first = build_example(POOL[1], POOL, PAPER, random.Random("0:17"))
    again = build_example(POOL[1], POOL, PAPER, random.Random("0:17"))
    other = build_example(POOL[1], POOL, PAPER, random.Random("0:18"))
    assert first == again
    assert (first.anchor, first.candidates) != (other.anchor, other.candidates)


def test_with_k_1_the_hard_slots_take_spans_beyond_k_that_carry_no_loss() -> None:
    settings = ExampleSettings(anchor_sentences=2, target_sentences=1, max_distance=1, hard_negatives=3,
                               random_negatives=2)
    for seed in range(10):
        example = build_example(POOL[0], POOL, settings, random.Random(seed))
        assert set(example.targets) <= {-1, 1} and example.targets
        same = [candidate for candidate in example.candidates if candidate.doc_id == "a"]
        assert len(same) == 4 and len(example.candidates) == 6
        assert {candidate.distance for candidate in same} - {-1, 1}  # farther spans as hard negatives


def test_a_short_paragraph_fills_missing_hard_negatives_with_random_ones() -> None:
    short = Paragraph("a", ("one.", "two.", "three."))  # anchor of 2 leaves one target
    settings = ExampleSettings(anchor_sentences=2, target_sentences=1, max_distance=2, hard_negatives=3,
                               random_negatives=2)
    example = build_example(short, [short, *POOL[1:]], settings, random.Random(3))
    assert len(example.candidates) == 6 and len(example.targets) == 1
    assert sum(candidate.doc_id != "a" for candidate in example.candidates) == 5


def test_random_negatives_need_other_documents() -> None:
    with pytest.raises(InputError, match="too few documents"):
        build_example(POOL[0], [POOL[0]], PAPER, random.Random(0))


def test_paragraph_windows_join_a_short_tail_and_drop_short_documents() -> None:
    documents = [Document("x:1", "x", [f"s{i}." for i in range(25)]), Document("x:2", "x", ["a.", "b.", "c."])]
    windows = paragraphs_of(documents, window=12, min_sentences=5)
    assert [len(window.sentences) for window in windows] == [12, 13]
    assert windows[1].sentences[-1] == "s24." and {window.doc_id for window in windows} == {"x:1"}
    with pytest.raises(InputError, match="paragraph_sentences"):
        paragraphs_of(documents, window=3, min_sentences=5)
