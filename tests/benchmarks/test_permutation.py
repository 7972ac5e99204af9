"""Sentence permutations: unique, never the original, seeded only by the rng passed in."""

from __future__ import annotations

import random

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research.datasets.permutation import (
    distinct_orderings,
    permute_sentences,
    sample_permutation_orders,
)

DOC = [f"Sentence number {i}." for i in range(10)]


def _keys(documents):
    return [tuple(document) for document in documents]


@pytest.mark.parametrize("length", [4, 5, 10])
def test_permutations_are_unique_and_never_the_original(length):
    document = DOC[:length]
    permuted = permute_sentences(document, 20, random.Random(7))
    assert len(permuted) == 20
    assert len(set(_keys(permuted))) == 20
    assert tuple(document) not in set(_keys(permuted))
    assert all(sorted(p) == sorted(document) for p in permuted)


def test_short_documents_give_every_other_ordering_and_no_more():
    assert len(permute_sentences(DOC[:4], 30, random.Random(0))) == 23
    assert permute_sentences(DOC[:1], 20, random.Random(0)) == []
    assert permute_sentences([], 20, random.Random(0)) == []


def test_repeated_sentences_never_give_equal_negatives():
    document = ["Same.", "Same.", "Other.", "Last."]
    assert distinct_orderings(document) == 12
    permuted = permute_sentences(document, 20, random.Random(1))
    assert len(permuted) == 11 and len(set(_keys(permuted))) == 11
    assert tuple(document) not in set(_keys(permuted))


def test_seeded_and_independent_of_global_random_state():
    state = random.getstate()
    first = sample_permutation_orders(DOC, 20, random.Random(3))
    assert random.getstate() == state
    random.seed(12345)
    assert sample_permutation_orders(DOC, 20, random.Random(3)) == first
    assert sample_permutation_orders(DOC, 20, random.Random(4)) != first


def test_bad_arguments_raise_input_error():
    with pytest.raises(InputError):
        permute_sentences("one string, not sentences", 2, random.Random(0))
    with pytest.raises(InputError):
        permute_sentences(DOC, -1, random.Random(0))
