"""Negative documents: unique sentence orders of a positive, none equal to the original.

Training draws its permuted negatives and dev checks with it, and the benchmarks their own-shuffle checks (SummEval's
summaries against a shuffle of themselves), so it lives where both read it.

Uniqueness is over the *texts* the orders produce, not over index tuples: a block that repeats a
sentence ("(table)", a quoted refrain) has index orders that read exactly like the original, and
those must never be used as negatives.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Dict, Iterator, List, Sequence, Tuple

Order = Tuple[int, ...]



def distinct_arrangements(sentences: Sequence[str]) -> int:
    """Count the distinct texts that reordering ``sentences`` can produce (the original included).

    Args:
        sentences: the positive's sentences; repeated sentences make fewer arrangements than n!.

    Returns:
        n! divided by the factorial of each repeated sentence's count.
    """
    total = math.factorial(len(sentences))
    for count in Counter(sentences).values():
        total //= math.factorial(count)
    return total


def _multiset_orders(labels: List[int]) -> Iterator[List[int]]:
    """Yield every distinct arrangement of ``labels`` (a multiset), in lexicographic order."""
    counts = Counter(labels)
    keys = sorted(counts)
    current: List[int] = []

    def extend() -> Iterator[List[int]]:
        if len(current) == len(labels):
            yield list(current)
            return
        for key in keys:
            if counts[key]:
                counts[key] -= 1
                current.append(key)
                yield from extend()
                current.pop()
                counts[key] += 1

    yield from extend()


def _labels_to_order(arrangement: List[int], positions: Dict[int, List[int]]) -> Order:
    """Map an arrangement of sentence labels back to sentence indices (repeats take their indices in turn)."""
    next_index = {label: 0 for label in positions}
    order = []
    for label in arrangement:
        order.append(positions[label][next_index[label]])
        next_index[label] += 1
    return tuple(order)


def negative_orders(sentences: Sequence[str], count: int, rng: random.Random) -> List[Order]:
    """Draw up to ``count`` sentence orders whose texts differ from the original and from each other.

    When fewer than ``count`` exist (a 4-sentence block has only 23), all of them are returned, in an
    order shuffled by ``rng``; callers record the shortfall.

    Args:
        sentences: the positive's sentences, in their coherent order.
        count: how many negatives are wanted (the paper's h = 50 candidates for hard-negative mining).
        rng: the per-item random generator; the result depends only on it and the arguments.

    Returns:
        Index orders: ``[sentences[i] for i in order]`` is a negative document.
    """
    available = distinct_arrangements(sentences) - 1
    if count <= 0 or available <= 0:
        return []
    labels_by_text: Dict[str, int] = {}
    labels = [labels_by_text.setdefault(sentence, len(labels_by_text)) for sentence in sentences]
    original = tuple(labels)
    # Few distinct orders (a 4-sentence block has 23): list them all, so none is missed and no draw
    # loops long. Many: draw random orders and reject repeats, which rarely happens.
    if available <= 2 * count:
        positions: Dict[int, List[int]] = {}
        for index, label in enumerate(labels):
            positions.setdefault(label, []).append(index)
        arrangements = [a for a in _multiset_orders(labels) if tuple(a) != original]
        rng.shuffle(arrangements)
        return [_labels_to_order(a, positions) for a in arrangements[:count]]
    seen = {original}
    orders: List[Order] = []
    indices = range(len(sentences))
    draw = rng.random
    while len(orders) < count:
        # Sorting by random keys is a uniform random order and about twice as fast as rng.shuffle here.
        keys = [draw() for _ in indices]
        order = tuple(sorted(indices, key=keys.__getitem__))
        text = tuple([labels[i] for i in order])
        if text not in seen:
            seen.add(text)
            orders.append(order)
    return orders
