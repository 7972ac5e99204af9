"""STORYCLOZE: 1,571 five-sentence stories (winter 2018 val), the right ending as ``pos``, the wrong one as ``neg``.

Read from the released ``StoryCloze.pkl`` rather than rebuilt from the CSV, so the pairs are exactly the
paper's; the CSV in ``story_cloze/`` holds the same stories.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .base import DEFAULT_SEED, TestSet
from .paradigm import load_released_pairs

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
    return load_released_pairs(NAME, PAIRS_FILE, data_dir)
