"""What a recipe trains on out of a prepared data folder: its train/dev items, decontaminated, per-corpus capped.

The main trainer and the sentence-level term's trainer read the same folder the same way through
``load_prepared``, so a recipe's ``data:`` section means the same items in both.
"""

from __future__ import annotations

import logging
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Tuple

from coherence_metric.errors import InputError

from .decontamination import benchmark_sentences, contaminated_documents, drop_documents
from .examples import TrainingItem
from .storage import read_split, split_path

logger = logging.getLogger(__name__)


@dataclass
class PreparedItems:
    """A prepared folder's items after decontamination and source limits, and what decontamination dropped."""

    train: List[TrainingItem]
    dev: List[TrainingItem]
    notes: Dict[str, Any] = field(default_factory=dict)


def limit_sources(train: List[TrainingItem], dev: List[TrainingItem], limits: Dict[str, int],
                  seed: int) -> Tuple[List[TrainingItem], List[TrainingItem]]:
    """Keep at most ``limits[source]`` training items of a corpus (a seeded sample, file order kept), and the
    same fraction of its dev items, so dev accuracy measures the mix that trains."""
    known = {item.source for item in train}
    unknown = sorted(set(limits) - known)
    if unknown:
        raise InputError(f"data.source_limits names {unknown[0]!r}, which has no training items "
                         f"(corpora here: {', '.join(sorted(known))})")

    def cap(items: List[TrainingItem], source: str, keep: int) -> List[int]:
        indices = [index for index, item in enumerate(items) if item.source == source]
        if keep >= len(indices):
            return indices
        return sorted(random.Random(f"{seed}:{source}").sample(indices, keep))

    dropped_train: set = set()
    dropped_dev: set = set()
    for source, limit in limits.items():
        train_indices = [index for index, item in enumerate(train) if item.source == source]
        kept_train = cap(train, source, limit)
        dropped_train |= set(train_indices) - set(kept_train)
        dev_indices = [index for index, item in enumerate(dev) if item.source == source]
        fraction = len(kept_train) / max(len(train_indices), 1)
        kept_dev = cap(dev, source, max(1, math.ceil(fraction * len(dev_indices))))
        dropped_dev |= set(dev_indices) - set(kept_dev)
    return ([item for index, item in enumerate(train) if index not in dropped_train],
            [item for index, item in enumerate(dev) if index not in dropped_dev])


def decontaminate(train: List[TrainingItem], dev: List[TrainingItem]) -> PreparedItems:
    """Drop the train/dev documents that share a sentence with a benchmark test set; the notes say how many."""
    contaminated = contaminated_documents([*train, *dev], benchmark_sentences("all"))
    train, dropped_train = drop_documents(train, contaminated)
    dev, dropped_dev = drop_documents(dev, contaminated)
    per_test_set: Dict[str, int] = {}
    for names in contaminated.values():
        for name in names:
            per_test_set[name] = per_test_set.get(name, 0) + 1
    logger.info("decontamination: %d documents share a sentence with a test set; dropped %d train, %d dev items",
                len(contaminated), dropped_train, dropped_dev)
    notes = {"decontamination": {
        "documents": len(contaminated), "train_items_dropped": dropped_train, "dev_items_dropped": dropped_dev,
        "documents_per_test_set": dict(sorted(per_test_set.items()))}}
    return PreparedItems(train, dev, notes)


def load_prepared(folder: Path, decontaminated: bool, source_limits: Dict[str, int], seed: int) -> PreparedItems:
    """The train and dev items of a prepared folder, decontaminated (when asked) and capped per corpus.

    Raises:
        InputError: a split file is missing or unreadable, a limit names an absent corpus, or a split is empty.
    """
    items = PreparedItems(list(read_split(split_path(folder, "train"))), list(read_split(split_path(folder, "dev"))))
    if decontaminated:
        items = decontaminate(items.train, items.dev)
    if source_limits:
        items.train, items.dev = limit_sources(items.train, items.dev, source_limits, seed)
    if not items.train or not items.dev:
        raise InputError(f"{folder}: the train and dev splits must both hold items")
    return items


__all__ = ["PreparedItems", "decontaminate", "limit_sources", "load_prepared"]
