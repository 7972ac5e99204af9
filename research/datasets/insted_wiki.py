"""INSTED-WIKI: 3,666 Wikipedia test documents of INSteD, each against a copy with one sentence replaced by an intruder.

Read from the released ``INSteD_intrusion_test_wikipedia.pkl``; the upstream ``official_wikipedia.jsonl``
is not available, so the pairs cannot be rebuilt, only read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .base import DEFAULT_SEED, TestSet
from .paradigm import load_released_pairs

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
    return load_released_pairs(NAME, PAIRS_FILE, data_dir)
