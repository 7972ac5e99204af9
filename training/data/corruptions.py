"""Training's name for the corrupted negatives, which live in :mod:`coherence_metric.research.corruptions`.

They moved to ``research`` so that the benchmarks' synthetic dev checks break dev documents with the very same code
(benchmarks never import training); training's recipes and knobs read them from here as before.
"""

from __future__ import annotations

from coherence_metric.research.corruptions import (
    CORRUPTIONS,
    KIND_DESCRIPTIONS,
    POOL_DRAWS,
    Corruption,
    contradiction,
    corrupt,
    cut_off,
    dangling_reference,
    entity_swap,
    intrusion,
    near_repeat,
    negate,
    repeat_clause,
    repeat_sentence,
    shuffle,
    topic_switch,
)

__all__ = ["CORRUPTIONS", "KIND_DESCRIPTIONS", "POOL_DRAWS", "Corruption", "contradiction", "corrupt", "cut_off",
           "dangling_reference", "entity_swap", "intrusion", "near_repeat", "negate", "repeat_clause",
           "repeat_sentence", "shuffle", "topic_switch"]
