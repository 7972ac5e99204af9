"""Training's name for the local negatives, which live in :mod:`coherence_metric.research.local_corruptions`.

They moved to ``research`` with the other corrupted negatives (:mod:`coherence_metric.research.corruptions`), so the
benchmarks' synthetic dev checks reuse them (benchmarks never import training); training reads them from here.
"""

from __future__ import annotations

from coherence_metric.research.local_corruptions import (
    LOCAL_CORRUPTIONS,
    LOCAL_KIND_DESCRIPTIONS,
    adjacent_swap,
    connective_swap,
    fit_length,
    pronoun_switch,
    similar_intrusion,
)

__all__ = ["LOCAL_CORRUPTIONS", "LOCAL_KIND_DESCRIPTIONS", "adjacent_swap", "connective_swap", "fit_length",
           "pronoun_switch", "similar_intrusion"]
