"""Loss functions of eqs. 1-3 of Jwalapuram et al. (2022), on score and vector tensors.

All take a batch of P positives, each with its own N negatives, and return the mean over positives.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def pairwise_margin_loss(positive: torch.Tensor, negatives: torch.Tensor, margin: float) -> torch.Tensor:
    """Eq. 1: max(0, margin - f(D+) + f(D-)), averaged over every (positive, negative) pair.

    Args:
        positive: scores [P].
        negatives: scores [P, N]; the paper's pairwise model uses N = 1.
        margin: tau, 0.1 in the paper.
    """
    return F.relu(margin - positive.unsqueeze(1) + negatives).mean()


def contrastive_margin_loss(positive: torch.Tensor, negatives: torch.Tensor, margin: float) -> torch.Tensor:
    """Eq. 2: -log(e^{f(D+)} / (e^{f(D+)} + sum_j e^{f(D_j-) - margin})), averaged over positives.

    The margin is subtracted from the negatives' logits, as the equation (and the reference code) says;
    note that this loosens the constraint, the opposite of an AM-softmax margin.

    Args:
        positive: scores [P].
        negatives: scores [P, N].
        margin: tau, 0.1 in the paper.
    """
    logits = torch.cat([positive.unsqueeze(1), negatives - margin], dim=1)
    return (torch.logsumexp(logits, dim=1) - positive).mean()


def momentum_loss(
    base_positive: torch.Tensor,
    momentum_positive: torch.Tensor,
    queue: torch.Tensor,
    margin: float,
    negatives_against: str = "base",
) -> torch.Tensor:
    """Eq. 3: the base encoder's positive must be closer to the momentum encoder's positive slice than
    the queued negatives are, by cosine similarity with the margin subtracted from the negatives.

    Args:
        base_positive: z+ [P, H] from the base encoder (gradients flow through it).
        momentum_positive: z_m+ [P, H] from the momentum encoder (no gradient).
        queue: q_1..q_l [L, H] momentum-encoded negatives; L may be 0 (the loss is then 0: one candidate).
        margin: tau.
        negatives_against: ``"base"`` compares the queue with z+ (as MoCo and the authors' code do, so the
            negatives push the base encoder); ``"momentum"`` compares it with z_m+ as eq. 3 is printed,
            which leaves the negative terms without gradient.
    """
    if negatives_against not in ("base", "momentum"):
        raise ValueError(f"negatives_against must be 'base' or 'momentum', got {negatives_against!r}")
    positive_similarity = F.cosine_similarity(base_positive, momentum_positive, dim=1, eps=1e-8)
    if queue.numel() == 0:
        return torch.zeros((), dtype=base_positive.dtype, device=base_positive.device)
    anchor = base_positive if negatives_against == "base" else momentum_positive
    negative_similarity = F.normalize(anchor, dim=1, eps=1e-8) @ F.normalize(queue.to(anchor.dtype), dim=1).T
    logits = torch.cat([positive_similarity.unsqueeze(1), negative_similarity - margin], dim=1)
    return (torch.logsumexp(logits, dim=1) - positive_similarity).mean()
