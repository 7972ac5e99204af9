"""The data types every test-set loader returns: a pair of documents and a named, ordered set of pairs.

A document is a list of sentences, the shape the scorer takes. Items keep the order of the source file so
scores can be aligned with annotations by index (the upstream code shuffled and broke that alignment).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping, Optional, Sequence

from coherence_metric.errors import InputError

#: Seed used by loaders that sample (permutations, ``limit`` subsets) when the caller gives none.
DEFAULT_SEED = 0

PAIRWISE_ACCURACY = "pairwise_accuracy"
LMVLM_AGREEMENT = "lmvlm_agreement"


@dataclass(frozen=True)
class PairItem:
    """Two documents to compare: ``pos`` is the one the test set expects to score higher.

    For LMVLM ``pos``/``neg`` are only text A / text B; the human preference is in the annotations.
    """

    id: str
    pos: list[str]
    neg: list[str]
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TestSet:
    """A named test set: its pairs in file order, where they came from, and what was dropped or noted.

    Attributes:
        name: the registry name, e.g. ``"SUMMEVAL"``.
        items: the pairs, in the order of the source file.
        source: the file(s) read, for reports and error messages.
        notes: counts a report must show beside the accuracy (ties excluded, identical pairs, seed, ...).
        annotations: per-annotator label rows aligned with ``items`` (LMVLM only, else empty).
        primary_metric: ``"pairwise_accuracy"`` or ``"lmvlm_agreement"``.
    """

    __test__ = False  # not a pytest test class, despite the name

    name: str
    items: tuple[PairItem, ...]
    source: str
    notes: Mapping[str, Any] = field(default_factory=dict)
    annotations: tuple[tuple[str, ...], ...] = ()
    primary_metric: str = PAIRWISE_ACCURACY

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[PairItem]:
        return iter(self.items)

    def pos_documents(self) -> list[list[str]]:
        """Return the ``pos`` documents in item order, ready for ``scorer.score``."""
        return [item.pos for item in self.items]

    def neg_documents(self) -> list[list[str]]:
        """Return the ``neg`` documents in item order, ready for ``scorer.score``."""
        return [item.neg for item in self.items]

    def subset(self, indices: Sequence[int]) -> "TestSet":
        """Return the items at ``indices`` (kept in file order), with the annotations cut the same way."""
        ordered = sorted(set(indices))
        if ordered and (ordered[0] < 0 or ordered[-1] >= len(self.items)):
            raise InputError(f"subset of {self.name}: indices must lie in 0..{len(self.items) - 1}")
        annotations = tuple(tuple(row[i] for i in ordered) for row in self.annotations)
        return replace(self, items=tuple(self.items[i] for i in ordered), annotations=annotations)


def sample_subset(test_set: TestSet, limit: Optional[int], seed: int = DEFAULT_SEED) -> TestSet:
    """Return a seeded random subset of ``limit`` items in file order, for quick runs that stay comparable.

    Args:
        test_set: the full test set.
        limit: how many items to keep; None (or a limit at least the set size) keeps everything.
        seed: seed of the ``random.Random`` that picks the items.

    Returns:
        The subset, with ``notes`` recording ``limit``, ``seed`` and the full size.
    """
    if limit is None:
        return test_set
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InputError(f"limit for {test_set.name} must be a positive integer, got {limit!r}")
    if limit >= len(test_set):
        return test_set
    chosen = random.Random(seed).sample(range(len(test_set)), limit)
    subset = test_set.subset(chosen)
    notes = {**test_set.notes, "limit": limit, "limit_seed": seed, "sampled_from": len(test_set)}
    return replace(subset, notes=notes)
