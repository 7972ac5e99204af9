"""The localisation recipe's corrupted texts: held-out news documents broken at one known place, and the hit rule.

Shared by the localisation benchmark (``coherence-metric benchmark localisation``, which reads them on the
test split and reports) and the transition model's training (``family: transition_model``, which reads them on the
dev split to choose its step), so both see the same texts and count a hit the same way. Documents (the first 10
sentences of the news corpora's held-out documents, those of at least ``MIN_SENTENCES``) are corrupted three ways:

- ``intrusion``: one sentence (not the first) replaced by the most similar sentence of another held-out document
  (INSteD's rule, :class:`~coherence_metric.research.datasets.intrusion.IntruderFinder`);
- ``moved``: one sentence taken out and put back at least two places away;
- ``swap``: two adjacent sentences swapped.

The true break of a corrupted text is the set of its transitions that join two sentences which did not follow each
other in the original. A method *hits* when its lowest transition (top-1), or one of its two lowest (top-2), is in
that set.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from coherence_metric.errors import InputError

from .cache import JsonCache, digest
from .datasets.intrusion import IntruderFinder
from .standins import read_news_documents

KINDS = ("intrusion", "moved", "swap")
#: The document splits the suite can corrupt: ``test`` for reported numbers, ``dev`` for choosing a setting.
SPLITS = ("test", "dev")
MIN_SENTENCES = 6
CACHE_KIND = "localisation"
#: Bumped when the recipe of the corrupted sets changes, so cached sets are rebuilt.
RECIPE_VERSION = 1


@dataclass(frozen=True)
class LocalisationItem:
    """One corrupted text: its sentences and the transitions that break (indices into its transitions)."""

    id: str
    kind: str
    sentences: list[str]
    breaks: list[int]

    @property
    def n_transitions(self) -> int:
        """Transitions of the corrupted text."""
        return len(self.sentences) - 1


def new_adjacencies(order: Sequence[int]) -> list[int]:
    """Transitions of a corrupted text (as original sentence indices; -1 for a foreign one) that join two sentences
    which were not consecutive in the original."""
    return [position for position, (first, second) in enumerate(zip(order, order[1:]))
            if first < 0 or second < 0 or second != first + 1]


def _corrupt(kind: str, sentences: list[str], doc_index: int, finder: IntruderFinder,
             rng: random.Random) -> Optional[tuple[list[str], list[int]]]:
    """The corrupted sentences and their order as original indices, or None when no intruder was found."""
    count = len(sentences)
    order = list(range(count))
    if kind == "intrusion":
        position = rng.randrange(1, count)
        intruder = finder.find(doc_index, position)
        if intruder is None:
            return None
        order[position] = -1
        return [intruder.sentence if index < 0 else sentences[index] for index in order], order
    if kind == "moved":
        source = rng.randrange(count)
        targets = [target for target in range(count) if abs(target - source) >= 2]
        target = rng.choice(targets)
        order.pop(source)
        order.insert(target, source)
    else:
        first = rng.randrange(count - 1)
        order[first], order[first + 1] = order[first + 1], order[first]
    return [sentences[index] for index in order], order


def build_localisation_sets(documents: Sequence[tuple[str, list[str]]], per_kind: int,
                            seed: int) -> dict[str, list[LocalisationItem]]:
    """Corrupt a seeded sample of ``per_kind`` documents of ``MIN_SENTENCES``+ sentences each of the three ways.

    Args:
        documents: (id, sentences) held-out documents; all of them supply intruders.
        per_kind: documents sampled (the same ones for every kind; fewer when fewer are long enough).
        seed: seeds the sample and every corruption.

    Returns:
        Items per kind, in sample order (an intrusion without a candidate is left out).
    """
    long_enough = [index for index, (_, sentences) in enumerate(documents) if len(sentences) >= MIN_SENTENCES]
    if not long_enough:
        raise InputError(f"no held-out document has {MIN_SENTENCES} or more sentences")
    rng = random.Random(seed)
    sample = sorted(rng.sample(long_enough, min(per_kind, len(long_enough))))
    finder = IntruderFinder([sentences for _, sentences in documents])
    sets: dict[str, list[LocalisationItem]] = {}
    for kind in KINDS:
        kind_rng = random.Random(f"{seed}:{kind}")
        items = []
        for index in sample:
            doc_id, sentences = documents[index]
            corrupted = _corrupt(kind, list(sentences), index, finder, kind_rng)
            if corrupted is not None:
                text, order = corrupted
                items.append(LocalisationItem(f"{doc_id}/{kind}", kind, text, new_adjacencies(order)))
        sets[kind] = items
    return sets


def load_localisation_sets(per_kind: int, seed: int, cache: JsonCache, data_dir: Optional[Path] = None,
                           split: str = "test") -> dict[str, list[LocalisationItem]]:
    """The corrupted sets, from the cache when built before from the same documents and recipe (``split="dev"``:
    the same recipe on the corpora's dev documents, for choosing a mechanism's setting)."""
    documents = read_news_documents(data_dir, split=split)
    key = digest({"ids": digest([doc_id for doc_id, _ in documents], 32),
                  "text": digest([sentences for _, sentences in documents], 32), "per_kind": per_kind,
                  "seed": seed, "min": MIN_SENTENCES, "recipe": RECIPE_VERSION})
    cached = cache.read(CACHE_KIND, "sets", key)
    if cached is not None:
        return {kind: [LocalisationItem(**row) for row in rows] for kind, rows in cached.items()}
    sets = build_localisation_sets(documents, per_kind, seed)
    cache.write(CACHE_KIND, "sets", key, {kind: [item.__dict__ for item in items] for kind, items in sets.items()})
    return sets


def sampled_document_ids(sets: dict[str, list[LocalisationItem]]) -> list[str]:
    """The ids of the documents the sets were corrupted from, each once, in sample order (which documents a
    report measured: dev and test never share one)."""
    return list(dict.fromkeys(item.id.rsplit("/", 1)[0] for items in sets.values() for item in items))


def lowest(values: Sequence[float], count: int) -> list[int]:
    """Indices of the ``count`` lowest values, lowest first (earlier index on ties)."""
    return sorted(range(len(values)), key=lambda index: (values[index], index))[:count]


def hits(values: Sequence[float], breaks: Sequence[int]) -> tuple[bool, bool]:
    """Whether the lowest transition, and whether one of the two lowest, is a true break."""
    ranked = lowest(values, 2)
    return ranked[0] in breaks, any(index in breaks for index in ranked)


__all__ = ["CACHE_KIND", "KINDS", "LocalisationItem", "MIN_SENTENCES", "RECIPE_VERSION", "SPLITS",
           "build_localisation_sets", "hits", "load_localisation_sets", "lowest", "new_adjacencies",
           "sampled_document_ids"]
