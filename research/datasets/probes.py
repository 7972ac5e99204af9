"""The 8 INSteD linguistic probes (Table 3 of the paper): an original document against a minimally edited copy.

100 pairs each, 95 for ``singular_determiner_flip``. Two upstream items are identical on both sides
(``conjunction_flip`` doc 37 and ``singular_determiner_flip`` doc 79: the probe edit was a no-op). They are
kept, so counts match the published sets, and named in ``notes``; pairwise accuracy reports them as ties.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from coherence_metric.errors import InputError

from .base import DEFAULT_SEED, TestSet
from .paradigm import identical_pair_notes, paradigm_dir, read_pair_pickle

LOGGER = logging.getLogger("coherence_metric.benchmarks")

PROBE_FOLDER = "linguistic_probe_testsets"
PROBE_NAMES = (
    "animacy_pronoun_downgrade",
    "animacy_pronoun_upgrade",
    "conjunction_flip",
    "gender_pronoun_flip",
    "number_exaggerate",
    "past_to_future_flip",
    "singular_determiner_flip",
    "to_negation",
)
NAME_PREFIX = "PROBE-"


def probe_test_set_name(probe: str) -> str:
    """Return the registry name of a probe, e.g. ``PROBE-conjunction_flip``."""
    return f"{NAME_PREFIX}{probe}"


def load_probe(probe: str, data_dir: Optional[Path] = None, seed: int = DEFAULT_SEED) -> TestSet:
    """Load one linguistic probe in file order.

    Args:
        probe: one of ``PROBE_NAMES``.
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.
        seed: unused (nothing is sampled); accepted so every loader has the same signature.

    Returns:
        A TestSet of 100 items (95 for ``singular_determiner_flip``).
    """
    if probe not in PROBE_NAMES:
        raise InputError(f"unknown linguistic probe {probe!r}: choose one of {', '.join(PROBE_NAMES)}")
    path = paradigm_dir(data_dir) / PROBE_FOLDER / f"lingprobe_insted_{probe}.pkl"
    items = read_pair_pickle(path)
    LOGGER.info("loaded probe %s: %d pairs", probe, len(items))
    notes = {"probe": probe, **identical_pair_notes(items)}
    return TestSet(name=probe_test_set_name(probe), items=tuple(items), source=str(path), notes=notes)
