"""Each loss against a value computed by hand; the queue, slice, momentum update and mining selection."""

from __future__ import annotations

import math
import random

import pytest
import torch

from coherence_metric.training.objectives import (
    NegativeQueue,
    contrastive_margin_loss,
    document_slice,
    momentum_loss,
    momentum_update,
    pairwise_margin_loss,
    select_hard_negatives,
)


def test_pairwise_margin_loss_by_hand():
    # max(0, 0.1 - 1 + 0.95) = 0.05 and max(0, 0.1 - 1 + 1.2) = 0.3, mean 0.175
    loss = pairwise_margin_loss(torch.tensor([1.0]), torch.tensor([[0.95, 1.2]]), margin=0.1)
    assert loss.item() == pytest.approx(0.175, abs=1e-6)
    # a positive far above its negative gives exactly zero
    assert pairwise_margin_loss(torch.tensor([3.0]), torch.tensor([[1.0]]), 0.1).item() == 0.0


def test_contrastive_margin_loss_by_hand():
    expected = -math.log(math.e ** 1.0 / (math.e ** 1.0 + math.e ** (0.5 - 0.1) + math.e ** (0.0 - 0.1)))
    loss = contrastive_margin_loss(torch.tensor([1.0]), torch.tensor([[0.5, 0.0]]), margin=0.1)
    assert loss.item() == pytest.approx(expected, abs=1e-6)
    assert expected == pytest.approx(0.632166, abs=1e-6)
    # the mean over positives: a second, easy positive lowers the average
    two = contrastive_margin_loss(torch.tensor([1.0, 10.0]), torch.tensor([[0.5, 0.0], [0.0, 0.0]]), 0.1)
    assert two.item() == pytest.approx(expected / 2, abs=1e-3)


def test_momentum_loss_by_hand():
    base = torch.tensor([[1.0, 0.0]])
    momentum = torch.tensor([[1.0, 1.0]])
    queue = torch.tensor([[0.0, 1.0], [-1.0, 0.0]])
    positive = 1 / math.sqrt(2)
    # negatives against the base vector: cos = 0 and -1
    expected_base = math.log(math.exp(positive) + math.exp(0 - 0.1) + math.exp(-1 - 0.1)) - positive
    assert momentum_loss(base, momentum, queue, 0.1).item() == pytest.approx(expected_base, abs=1e-6)
    # as eq. 3 is printed: negatives against the momentum vector, cos = 1/sqrt2 and -1/sqrt2
    expected_momentum = math.log(math.exp(positive) + math.exp(positive - 0.1) + math.exp(-positive - 0.1))
    expected_momentum -= positive
    assert momentum_loss(base, momentum, queue, 0.1, "momentum").item() == pytest.approx(expected_momentum, abs=1e-6)
    assert momentum_loss(base, momentum, torch.zeros(0, 2), 0.1).item() == 0.0


def test_momentum_loss_sends_gradient_only_to_the_base_encoder():
    base = torch.tensor([[1.0, 0.5]], requires_grad=True)
    momentum = torch.tensor([[0.2, 1.0]], requires_grad=True)
    momentum_loss(base, momentum.detach(), torch.tensor([[0.0, 1.0]]), 0.1).backward()
    assert base.grad is not None and base.grad.abs().sum() > 0
    assert momentum.grad is None


def test_queue_is_first_in_first_out_and_round_trips():
    queue = NegativeQueue(size=3, dim=2)
    queue.enqueue(torch.tensor([[1.0, 1.0], [2.0, 2.0]]))
    assert len(queue) == 2 and queue.vectors()[:, 0].tolist() == [1.0, 2.0]
    queue.enqueue(torch.tensor([[3.0, 3.0], [4.0, 4.0]]))
    assert len(queue) == 3 and queue.vectors()[:, 0].tolist() == [2.0, 3.0, 4.0]
    restored = NegativeQueue(size=3, dim=2)
    restored.load_state_dict(queue.state_dict())
    restored.enqueue(torch.tensor([[5.0, 5.0]]))
    assert restored.vectors()[:, 0].tolist() == [3.0, 4.0, 5.0]


def test_momentum_update_moves_a_fraction_towards_the_base():
    momentum, base = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)
    with torch.no_grad():
        for parameter in momentum.parameters():
            parameter.fill_(0.0)
        for parameter in base.parameters():
            parameter.fill_(1.0)
    momentum_update(momentum, base, coefficient=0.9)
    assert momentum.weight.flatten().tolist() == pytest.approx([0.1, 0.1])
    assert momentum.bias.item() == pytest.approx(0.1)
    momentum_update(momentum, base, coefficient=0.9)
    assert momentum.bias.item() == pytest.approx(0.19)
    assert base.bias.item() == 1.0


def test_random_slice_is_contiguous_long_enough_and_not_always_a_prefix():
    sentences = [f"s{i}" for i in range(10)]
    rng = random.Random(0)
    starts = set()
    for _ in range(200):
        piece = document_slice(sentences, rng)
        start = sentences.index(piece[0])
        assert len(piece) >= 4 and piece == sentences[start : start + len(piece)]
        starts.add(start)
    assert len(starts) > 3, "a random contiguous slice must not always start at sentence 0"


def test_prefix_slice_matches_the_reference_code():
    sentences = [f"s{i}" for i in range(8)]
    rng = random.Random(1)
    lengths = {len(document_slice(sentences, rng, mode="prefix")) for _ in range(200)}
    assert lengths == {4, 5, 6, 7}
    assert document_slice(sentences[:4], rng) == sentences[:4]
    with pytest.raises(ValueError):
        document_slice(sentences, rng, mode="middle")


def test_mining_keeps_the_highest_scoring_candidates():
    assert select_hard_negatives([0.1, 0.9, 0.5, 0.9, -2.0], keep=3) == [1, 3, 2]
    assert select_hard_negatives([0.3], keep=5) == [0]
