"""INSTED-WIKI: 3,666 Wikipedia test documents of INSteD, each against a copy with one sentence replaced by an intruder.

Read from the released ``INSteD_intrusion_test_wikipedia.pkl``; the upstream ``official_wikipedia.jsonl``
is not available, so the pairs cannot be rebuilt, only read.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from .base import DEFAULT_SEED, TestSet
from .paradigm import identical_pair_notes, paradigm_dir, read_pair_pickle

LOGGER = logging.getLogger("coherence_metric.benchmarks")

NAME = "INSTED-WIKI"
PAIRS_FILE = "INSteD_intrusion_test_wikipedia.pkl"


def load_insted_wiki(data_dir: Optional[Path] = None, seed: int = DEFAULT_SEED) -> TestSet:
    """Load the INSteD Wikipedia intrusion pairs in file order.

    Args:
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.
        seed: unused (nothing is sampled); accepted so every loader has the same signature.

    Returns:
        A TestSet of 3,666 items.
    """
    path = paradigm_dir(data_dir) / PAIRS_FILE
    items = read_pair_pickle(path)
    LOGGER.info("loaded %s: %d pairs", NAME, len(items))
    return TestSet(name=NAME, items=tuple(items), source=str(path), notes=identical_pair_notes(items))
