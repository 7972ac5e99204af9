"""The registry of test sets by name, so suites, the CLI and reports load any set the same way."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable, Optional

from coherence_metric.errors import InputError

from .base import DEFAULT_SEED, TestSet, sample_subset
from .insted_wiki import NAME as INSTED_WIKI
from .insted_wiki import load_insted_wiki
from .lmvlm import NAME as LMVLM
from .lmvlm import load_lmvlm
from .probes import PROBE_NAMES, load_probe, probe_test_set_name
from .story_cloze import NAME as STORYCLOZE
from .story_cloze import load_story_cloze
from .summeval import NAME as SUMMEVAL
from .summeval import load_summeval
from .wsj_sample import NAME as WSJ_SAMPLE_PERMUTED
from .wsj_sample import load_wsj_sample_permuted

#: A loader takes ``(data_dir=None, seed=DEFAULT_SEED)`` and returns the full TestSet in file order.
Loader = Callable[..., TestSet]

TEST_SETS: dict[str, Loader] = {
    WSJ_SAMPLE_PERMUTED: load_wsj_sample_permuted,
    SUMMEVAL: load_summeval,
    LMVLM: load_lmvlm,
    INSTED_WIKI: load_insted_wiki,
    STORYCLOZE: load_story_cloze,
    **{probe_test_set_name(probe): functools.partial(load_probe, probe) for probe in PROBE_NAMES},
}

PROBE_TEST_SETS = tuple(probe_test_set_name(probe) for probe in PROBE_NAMES)


def resolve_test_set_name(name: str) -> str:
    """Return the registry spelling of ``name`` (matched case-insensitively), or raise an InputError listing them."""
    by_folded = {key.casefold(): key for key in TEST_SETS}
    try:
        return by_folded[str(name).casefold()]
    except KeyError:
        raise InputError(f"unknown test set {name!r}: choose one of {', '.join(TEST_SETS)}") from None


def load_test_set(
    name: str, limit: Optional[int] = None, seed: int = DEFAULT_SEED, data_dir: Optional[Path] = None
) -> TestSet:
    """Load a registered test set, optionally a seeded subset of it.

    Args:
        name: a key of ``TEST_SETS`` (case-insensitive), e.g. ``"SUMMEVAL"`` or ``"PROBE-to_negation"``.
        limit: keep only this many items, sampled with ``random.Random(seed)`` and sorted back into file order.
        seed: seed for sets that are built by sampling (permutations) and for the ``limit`` subset.
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.

    Returns:
        The TestSet, items in file order.
    """
    loader = TEST_SETS[resolve_test_set_name(name)]
    return sample_subset(loader(data_dir=data_dir, seed=seed), limit, seed)
