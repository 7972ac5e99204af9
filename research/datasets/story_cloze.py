"""STORYCLOZE: 1,571 five-sentence stories (winter 2018 val), the right ending as ``pos``, the wrong one as ``neg``.

Read from the released ``StoryCloze.pkl`` rather than rebuilt from the CSV, so the pairs are exactly the
paper's; the CSV in ``story_cloze/`` holds the same stories.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from .base import DEFAULT_SEED, TestSet
from .paradigm import identical_pair_notes, paradigm_dir, read_pair_pickle

LOGGER = logging.getLogger("coherence_metric.benchmarks")

NAME = "STORYCLOZE"
PAIRS_FILE = "StoryCloze.pkl"


def load_story_cloze(data_dir: Optional[Path] = None, seed: int = DEFAULT_SEED) -> TestSet:
    """Load the Story Cloze pairs in file order.

    Args:
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.
        seed: unused (nothing is sampled); accepted so every loader has the same signature.

    Returns:
        A TestSet of 1,571 items.
    """
    path = paradigm_dir(data_dir) / PAIRS_FILE
    items = read_pair_pickle(path)
    LOGGER.info("loaded %s: %d pairs", NAME, len(items))
    return TestSet(name=NAME, items=tuple(items), source=str(path), notes=identical_pair_notes(items))
