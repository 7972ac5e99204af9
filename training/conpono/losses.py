"""CONPONO's scores and loss (seed 001, eqs. 2-3), as plain tensor functions.

- Log-bilinear score (eq. 2): log f_k(s_j, s_i) = t_j^T W_k c_i, one square matrix W_k per distance k
  (combined and isolated encodings); the uni-encoder replaces W_k c_i by a class vector w_k.
- Sampled softmax (eq. 3): for each distance k that has a true target in the example,
  L_k = -log( exp(score of the true target) / sum over all candidates of exp(score) ).
  An example's loss is the sum of its L_k (the paper's "4 losses" per example; the reference code sums
  them too), averaged over the examples of the batch.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import torch
from torch.nn import functional as F


def bilinear_logits(targets: torch.Tensor, anchors: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Scores t_j^T W_k c for every distance and candidate.

    Args:
        targets: [B, N, H] candidate vectors t.
        anchors: [B, H] anchor vectors c.
        weights: [D, H, H] one W_k per distance row (D = 2K).

    Returns:
        [B, D, N] logits.
    """
    projected = torch.einsum("dhg,bg->bdh", weights, anchors)  # W_k c for each example and distance
    return torch.einsum("bnh,bdh->bdn", targets, projected)


def class_vector_logits(pairs: torch.Tensor, vectors: torch.Tensor) -> torch.Tensor:
    """Uni-encoder scores t_j^T w_k.

    Args:
        pairs: [B, N, H] vectors of the (anchor, candidate) pairs.
        vectors: [D, H] one w_k per distance row.

    Returns:
        [B, D, N] logits.
    """
    return torch.einsum("bnh,dh->bdn", pairs, vectors)


def sampled_softmax_loss(logits: torch.Tensor, labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Eq. 3 summed over each example's labelled distances, averaged over examples.

    Args:
        logits: [B, D, N].
        labels: [B, D] index of the true candidate, -1 where the distance has no loss in that example.

    Returns:
        The scalar loss and the [B, D] per-distance losses (0 where unlabelled).
    """
    labelled = labels >= 0
    per = F.cross_entropy(logits.flatten(0, 1), labels.clamp(min=0).flatten(), reduction="none")
    per = per.view(labels.shape) * labelled
    return per.sum(dim=1).mean(), per


def distance_hits(logits: torch.Tensor, labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Per distance row: how many labelled examples ranked their true target first, and how many there were.

    Ties count as misses unless the true target is the first of the tied (argmax picks the first index),
    which is immaterial for float scores of distinct texts.

    Returns:
        Two [D] tensors: hits and counts.
    """
    labelled = labels >= 0
    correct = (logits.argmax(dim=-1) == labels) & labelled
    return correct.sum(dim=0), labelled.sum(dim=0)


def accuracy_by_distance(hits: torch.Tensor, counts: torch.Tensor, distance_list: List[int]) -> Dict[str, float]:
    """``accuracy_k-2``-style numbers for every distance seen, and their unweighted mean as ``accuracy``."""
    numbers: Dict[str, float] = {}
    for row, k in enumerate(distance_list):
        if int(counts[row]) > 0:
            numbers[f"accuracy_k{k:+d}"] = float(hits[row]) / float(counts[row])
    per_k = list(numbers.values())
    numbers["accuracy"] = sum(per_k) / len(per_k) if per_k else 0.0
    return numbers


__all__ = ["accuracy_by_distance", "bilinear_logits", "class_vector_logits", "distance_hits",
           "sampled_softmax_loss"]
