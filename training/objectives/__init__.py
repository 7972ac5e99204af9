"""The coherence paper's objectives as small pieces sharing one shape: scores or vectors in, a loss out.

- ``pairwise_margin_loss``: eq. 1, margin ranking of a positive against a negative.
- ``contrastive_margin_loss``: eq. 2, a positive against N negatives with a margin.
- ``momentum_loss`` + ``NegativeQueue`` + ``momentum_update`` + ``document_slice``: eqs. 3-5, the
  momentum encoder's global negative queue and length-invariance slice.
- ``select_hard_negatives``: Algorithm 1's ranking step (keep the N highest-scoring of h candidates).
"""

from .losses import contrastive_margin_loss, momentum_loss, pairwise_margin_loss
from .mining import select_hard_negatives
from .momentum import MomentumEncoder, NegativeQueue, momentum_update
from .slicing import document_slice

__all__ = [
    "MomentumEncoder",
    "NegativeQueue",
    "contrastive_margin_loss",
    "document_slice",
    "momentum_loss",
    "momentum_update",
    "pairwise_margin_loss",
    "select_hard_negatives",
]
