"""Eq. 3's agreement, context window and softmax loss by hand, and the power-iteration principal component."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from coherence_metric.training.multiview.discriminative import (
    agreement_loss,
    agreement_matrix,
    context_accuracy,
    context_positives,
)
from coherence_metric.training.multiview.principal import exact_top_component, remove_component, top_component

# z^f = [[1, 0], [0, 1], [1, 1]], z^g = [[1, 0], [1, 0], [0, 1]]; r = 1/sqrt(2).
# cos(z^f_i, z^g_j) = [[1, 1, 0], [0, 0, 1], [r, r, r]], so a = C + C^T =
# [[2, 1, r], [1, 0, 1 + r], [r, 1 + r, 2r]].
VIEW_F = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
VIEW_G = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
R = 1 / math.sqrt(2)


def test_agreement_is_the_sum_of_the_two_cross_view_cosines() -> None:
    expected = torch.tensor([[2.0, 1.0, R], [1.0, 0.0, 1 + R], [R, 1 + R, 2 * R]])
    assert torch.allclose(agreement_matrix(VIEW_F, VIEW_G), expected, atol=1e-6)


def test_agreement_loss_matches_hand_computed_values() -> None:
    agreement = agreement_matrix(VIEW_F, VIEW_G)
    # tau = 1, c = 1, one document, self excluded: pairs (0,1), (1,0), (1,2), (2,1).
    # logsumexp rows: log(e^2 + e + e^r) = 2.49615, log(e + 1 + e^(1+r)) = 2.22259,
    # log(e^r + e^(1+r) + e^(2r)) = 2.45569. -log p: 1.49615, 1.22259, 0.51548, 0.74858; mean 0.99570.
    positives = context_positives(torch.tensor([0, 0, 0]), window=1, include_self=False)
    assert float(agreement_loss(agreement, positives, torch.tensor(1.0))) == pytest.approx(0.995698, abs=1e-5)
    # The same pairs at tau = 0.5 (logits doubled).
    assert float(agreement_loss(agreement, positives, torch.tensor(0.5))) == pytest.approx(1.154698, abs=1e-5)
    # Eq. 3 read literally (|i - j| <= c includes j = i): adds -log p_00, -log p_11, -log p_22 = 0.49615, 2.22259,
    # 1.04148, so the mean over 7 pairs is 1.10614.
    with_self = context_positives(torch.tensor([0, 0, 0]), window=1, include_self=True)
    assert float(agreement_loss(agreement, with_self, torch.tensor(1.0))) == pytest.approx(1.106141, abs=1e-5)


def test_context_stops_at_document_boundaries() -> None:
    positives = context_positives(torch.tensor([0, 0, 1]), window=1, include_self=False)
    assert positives.tolist() == [[False, True, False], [True, False, False], [False, False, False]]
    # Only (0,1) and (1,0) count: (1.49615 + 1.22259) / 2.
    loss = agreement_loss(agreement_matrix(VIEW_F, VIEW_G), positives, torch.tensor(1.0))
    assert float(loss) == pytest.approx(1.359370, abs=1e-5)


def test_context_window_width() -> None:
    positives = context_positives(torch.zeros(6, dtype=torch.long), window=2, include_self=False)
    assert positives[0].tolist() == [False, True, True, False, False, False]
    assert positives[3].tolist() == [False, True, True, False, True, True]


def test_context_accuracy_ignores_the_sentence_itself() -> None:
    # Row 0's best other sentence is 1 (in context); row 1's is 2 (in context); row 2's is 1 (in context),
    # although every diagonal entry is the largest of its row.
    agreement = torch.tensor([[9.0, 1.0, 0.5], [1.0, 9.0, 1.7], [0.0, 1.7, 9.0]])
    accuracy, rows = context_accuracy(agreement, torch.tensor([0, 0, 0]), window=1)
    assert (accuracy, rows) == (1.0, 3)
    # With sentence 2 in another document it has no context; row 1's best (2) is no longer a context sentence.
    accuracy, rows = context_accuracy(agreement, torch.tensor([0, 0, 1]), window=1)
    assert rows == 2 and accuracy == pytest.approx(0.5)


def _planted(rows: int, dim: int, seed: int) -> np.ndarray:
    generator = np.random.default_rng(seed)
    direction = generator.normal(size=dim)
    return generator.normal(size=(rows, dim)) + 4.0 * generator.normal(size=(rows, 1)) * direction[None, :] + 2.0


@pytest.mark.parametrize("rows, dim", [(64, 12), (6, 20)])  # Z^T Z path, and the N < dim path (Z Z^T)
def test_power_iteration_matches_numpy_svd(rows: int, dim: int) -> None:
    vectors = _planted(rows, dim, seed=rows)
    expected = np.linalg.svd(vectors, full_matrices=False)[2][0]
    five_steps = top_component(torch.tensor(vectors, dtype=torch.float64), iterations=5).numpy()
    assert abs(float(five_steps @ expected)) > 0.999  # the paper's T = 5 on embedding-like (uncentred) vectors
    many_steps = top_component(torch.tensor(vectors, dtype=torch.float64), iterations=200).numpy()
    assert abs(float(many_steps @ expected)) == pytest.approx(1.0, abs=1e-9)
    assert np.linalg.norm(many_steps) == pytest.approx(1.0)


def test_power_iteration_converges_on_a_plain_gaussian_matrix() -> None:
    vectors = np.random.default_rng(5).normal(size=(40, 10))
    expected = np.linalg.svd(vectors, full_matrices=False)[2][0]
    estimate = top_component(torch.tensor(vectors), iterations=500).numpy()
    assert abs(float(estimate @ expected)) == pytest.approx(1.0, abs=1e-6)


def test_exact_component_and_removal() -> None:
    vectors = torch.tensor(_planted(30, 8, seed=2), dtype=torch.float32)
    direction = exact_top_component(vectors)
    expected = np.linalg.svd(vectors.numpy().astype(np.float64), full_matrices=False)[2][0]
    assert abs(float(direction.double().numpy() @ expected)) == pytest.approx(1.0, abs=1e-5)
    removed = remove_component(vectors, direction)
    assert torch.allclose(removed @ direction, torch.zeros(30), atol=1e-4)
    # What is left is untouched: the difference is parallel to the direction.
    difference = vectors - removed
    assert torch.allclose(difference, (vectors @ direction)[:, None] * direction[None, :], atol=1e-5)
