"""The first principal component of a batch of sentence vectors, and its removal (seed 004, section 2.4).

Arora et al.'s post-processing ("WR") removes the top principal component of a set of vectors: the direction
shared by all sentences (frequent words, length) that swamps cosine similarities. As in their code, the
component is that of the *uncentred* vectors (the top right singular vector of Z), and removal is the
projection ``z - (z . u) u``.

During discriminative training the paper estimates the component of each batch with 5 steps of power
iteration (appendix, Algorithm 1) and removes it before the cosines, so training sees what testing sees. The
Gram matrix it iterates is the smaller of ``Z^T Z`` (dim x dim) and ``Z Z^T`` (N x N, the appendix's footnote
for N < 2d); both give the same direction. We start the iteration from the batch's mean vector, not a random
unit vector: for uncentred vectors the mean is already close to the top component, so 5 steps suffice, and
the estimate is deterministic. The component is treated as a constant in back-propagation (``detach``): the
paper does not say, and differentiating through 5 matrix products per view per step buys nothing we can name.
"""

from __future__ import annotations

import torch


def top_component(vectors: torch.Tensor, iterations: int = 5) -> torch.Tensor:
    """Power-iteration estimate of the top principal direction (unit length, [dim]) of the rows of ``vectors``.

    Args:
        vectors: Z as [N, dim].
        iterations: T in Algorithm 1 (the paper uses 5).

    Returns:
        u with ``|u| = 1``; its sign is arbitrary (removal does not depend on it).
    """
    rows, dim = vectors.shape
    small_gram = rows < dim
    gram = vectors @ vectors.T if small_gram else vectors.T @ vectors
    if small_gram:  # iterate in the row space: u = Z^T v for the top eigenvector v of Z Z^T
        start = vectors @ vectors.mean(0)
    else:
        start = vectors.mean(0)
    if float(start.norm()) <= 1e-12:
        start = torch.ones_like(start)
    estimate = start / start.norm()
    for _ in range(iterations):
        estimate = gram @ estimate
        estimate = estimate / estimate.norm().clamp(min=1e-12)
    direction = vectors.T @ estimate if small_gram else estimate
    return direction / direction.norm().clamp(min=1e-12)


def exact_top_component(vectors: torch.Tensor) -> torch.Tensor:
    """The top right singular vector of ``vectors`` [N, dim] by SVD: the post-processing after training."""
    _, _, right = torch.linalg.svd(vectors.double(), full_matrices=False)
    return right[0].to(vectors.dtype)


def remove_component(vectors: torch.Tensor, direction: torch.Tensor) -> torch.Tensor:
    """``z - (z . u) u`` for each row z, with ``u`` unit length."""
    return vectors - (vectors @ direction)[:, None] * direction[None, :]


__all__ = ["exact_top_component", "remove_component", "top_component"]
