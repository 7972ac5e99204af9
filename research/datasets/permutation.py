"""Sentence permutations for permuted-document test sets: unique, never the original, seeded by the caller's rng.

Generic over corpora (the WSJ sample now, held-out news documents later). Uniqueness is on the resulting
sentence lists, not on index orders, so a document with a repeated sentence never yields two equal
negatives, and no negative equals the original text.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Iterator, Sequence

from coherence_metric.errors import InputError

from .base import PairItem

#: Below this many distinct orderings per requested permutation, enumerate them instead of rejection sampling,
#: so short documents cannot make the sampler loop for long.
ENUMERATION_FACTOR = 20


def _canonical_ids(sentences: Sequence[str]) -> tuple[int, ...]:
    """Give equal sentences the same id (the index of their first occurrence)."""
    first: dict[str, int] = {}
    return tuple(first.setdefault(sentence, index) for index, sentence in enumerate(sentences))


def distinct_orderings(sentences: Sequence[str]) -> int:
    """Return how many different sentence lists the sentences can be arranged into (a multinomial coefficient)."""
    total = math.factorial(len(sentences))
    for count in Counter(sentences).values():
        total //= math.factorial(count)
    return total


def _multiset_permutations(ids: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Yield each distinct arrangement of ``ids`` once, in lexicographic order (next-permutation algorithm)."""
    current = sorted(ids)
    while True:
        yield tuple(current)
        pivot = len(current) - 2
        while pivot >= 0 and current[pivot] >= current[pivot + 1]:
            pivot -= 1
        if pivot < 0:
            return
        successor = len(current) - 1
        while current[successor] <= current[pivot]:
            successor -= 1
        current[pivot], current[successor] = current[successor], current[pivot]
        current[pivot + 1 :] = reversed(current[pivot + 1 :])


def _order_for(key: Sequence[int], ids: Sequence[int]) -> tuple[int, ...]:
    """Turn an arrangement of canonical ids into sentence indices, using equal sentences in their original order."""
    unused: dict[int, list[int]] = {}
    for index, sentence_id in enumerate(ids):
        unused.setdefault(sentence_id, []).append(index)
    return tuple(unused[sentence_id].pop(0) for sentence_id in key)


def _check(sentences: Sequence[str], n: int) -> None:
    if isinstance(sentences, str) or not all(isinstance(sentence, str) for sentence in sentences):
        raise InputError("permute_sentences needs a document as a list of sentence strings, not one string")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"number of permutations must be a non-negative integer, got {n!r}")


def sample_permutation_orders(sentences: Sequence[str], n: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Sample up to ``n`` sentence orders giving distinct texts that all differ from the original.

    Args:
        sentences: the document, one string per sentence.
        n: how many permutations to return.
        rng: the random generator to draw from (the caller seeds it; global state is never used).

    Returns:
        Index orders (``order[k]`` = index of the original sentence placed at position k). Fewer than ``n``
        when the document has fewer distinct orderings than ``n + 1``; an empty list for one sentence.
    """
    _check(sentences, n)
    ids = _canonical_ids(sentences)
    available = distinct_orderings(sentences) - 1
    if n == 0 or available <= 0:
        return []
    if available <= ENUMERATION_FACTOR * n:
        candidates = [key for key in _multiset_permutations(ids) if key != ids]
        return [_order_for(key, ids) for key in rng.sample(candidates, min(n, len(candidates)))]
    seen = {ids}
    orders: list[tuple[int, ...]] = []
    order = list(range(len(sentences)))
    while len(orders) < n:
        rng.shuffle(order)
        key = tuple(ids[index] for index in order)
        if key not in seen:
            seen.add(key)
            orders.append(tuple(order))
    return orders


def permute_sentences(sentences: Sequence[str], n: int, rng: random.Random) -> list[list[str]]:
    """Return up to ``n`` unique sentence permutations of a document, none equal to the original.

    Args:
        sentences: the document, one string per sentence.
        n: how many permutations to return (the paper uses 20).
        rng: the random generator to draw from, e.g. ``random.Random(seed)``.

    Returns:
        The permuted documents; fewer than ``n`` when the document has too few distinct orderings.
    """
    return [[sentences[index] for index in order] for order in sample_permutation_orders(sentences, n, rng)]


def permuted_pairs(
    name: str, sentences: Sequence[str], permutations: int, rng: random.Random, meta_key: str = "doc_id"
) -> list[PairItem]:
    """Pairs (original, permutation) for one document: the shared body of every permuted-document test set.

    Args:
        name: the document's id; item ids are ``<name>/perm-NN``.
        sentences: the original document.
        permutations: how many unique permutations to draw (fewer when the document has fewer orderings).
        rng: the caller's seeded generator, advanced in document order.
        meta_key: the meta field that names the document (``file`` for WSJ files, ``doc_id`` otherwise).
    """
    orders = sample_permutation_orders(sentences, permutations, rng)
    return [
        PairItem(
            id=f"{name}/perm-{number:02d}",
            pos=list(sentences),
            neg=[sentences[index] for index in order],
            meta={meta_key: name, "order": list(order)},
        )
        for number, order in enumerate(orders)
    ]

