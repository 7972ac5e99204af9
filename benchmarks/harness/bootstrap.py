"""The bootstrap draws behind every interval of a benchmark report: groups resampled with replacement, seeded.

A report's intervals resample groups (the permutations of one article, the summaries of one article, the texts of one
prompt), never single texts, which are not independent. The draws depend only on the number of groups, the resamples
and the seed, so every system of one run, and every level of one correlation, is measured on the same resamples.
"""

from __future__ import annotations

import numpy as np

from coherence_metric.errors import InputError

#: The suites' bootstrap defaults: resamples of the groups, and their seed.
DEFAULT_RESAMPLES = 1000
BOOTSTRAP_SEED = 12345


def bootstrap_draws(n_groups: int, resamples: int, seed: int) -> np.ndarray:
    """Return a (resamples x n_groups) array of group indices drawn with replacement, seeded."""
    if resamples < 0:
        raise InputError(f"bootstrap resamples must be 0 or more, got {resamples}")
    return np.random.default_rng(seed).integers(0, n_groups, size=(resamples, n_groups))
