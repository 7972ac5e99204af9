"""Eq. 2-3 on tensors small enough to compute by hand."""

from __future__ import annotations

import math

import pytest
import torch

from coherence_metric.training.conpono.losses import (
    accuracy_by_distance,
    bilinear_logits,
    class_vector_logits,
    distance_hits,
    sampled_softmax_loss,
)

# K = 1: rows are k = -1 (W = identity) and k = +1 (W swaps the two coordinates).
WEIGHTS = torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]])
TARGETS = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                        [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])
ANCHORS = torch.tensor([[1.0, 2.0], [0.0, 0.0]])
LABELS = torch.tensor([[2, 0], [-1, 1]])  # example 2 has no k = -1 target


def test_bilinear_scores_are_t_transpose_w_k_c() -> None:
    logits = bilinear_logits(TARGETS, ANCHORS, WEIGHTS)
    # W_-1 c = (1, 2): scores (1, 2, 3); W_+1 c = (2, 1): scores (2, 1, 3); the zero anchor scores 0.
    assert logits[0].tolist() == [[1.0, 2.0, 3.0], [2.0, 1.0, 3.0]]
    assert logits[1].abs().sum() == 0


def test_uni_encoder_scores_are_t_transpose_w_k() -> None:
    logits = class_vector_logits(TARGETS[:1], torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
    assert logits[0].tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]


def test_sampled_softmax_sums_over_distances_and_averages_over_examples() -> None:
    loss, per = sampled_softmax_loss(bilinear_logits(TARGETS, ANCHORS, WEIGHTS), LABELS)
    # Example 1: k=-1, true score 3 of (1, 2, 3): log(e + e^2 + e^3) - 3 = log(1 + e^-1 + e^-2) = 0.407606;
    #            k=+1, true score 2 of (2, 1, 3): log(e + e^2 + e^3) - 2 = 1.407606.
    # Example 2: only k=+1, all scores 0: log 3 = 1.098612. Loss = (1.815212 + 1.098612) / 2.
    assert per[0].tolist() == pytest.approx([0.407606, 1.407606], abs=1e-5)
    assert per[1].tolist() == pytest.approx([0.0, math.log(3)], abs=1e-6)
    assert float(loss) == pytest.approx((0.407606 + 1.407606 + 1.098612) / 2, abs=1e-5)


def test_gradients_reach_only_labelled_distances() -> None:
    weights = WEIGHTS.clone().requires_grad_(True)
    labels = torch.tensor([[2, -1], [-1, -1]])
    loss, _ = sampled_softmax_loss(bilinear_logits(TARGETS, ANCHORS, weights), labels)
    loss.backward()
    assert weights.grad is not None and weights.grad[1].abs().sum() == 0 and weights.grad[0].abs().sum() > 0


def test_accuracy_per_distance_and_its_mean() -> None:
    hits, counts = distance_hits(bilinear_logits(TARGETS, ANCHORS, WEIGHTS), LABELS)
    # k=-1: example 1 picks index 2 (true). k=+1: example 1 picks 2 (true 0), example 2 ties at 0 -> index 0 (true 1).
    assert hits.tolist() == [1, 0] and counts.tolist() == [1, 2]
    numbers = accuracy_by_distance(hits, counts, [-1, 1])
    assert numbers == {"accuracy_k-1": 1.0, "accuracy_k+1": 0.0, "accuracy": 0.5}
    assert accuracy_by_distance(torch.tensor([0, 0]), torch.tensor([0, 4]), [-1, 1]) == {"accuracy_k+1": 0.0,
                                                                                         "accuracy": 0.0}
