"""Each criterion against values computed by hand on tiny tensors, and the BiGRU encoder's pooling."""

from __future__ import annotations

import math

import pytest
import torch

from coherence_metric.training.discoeval_criteria.losses import (
    bag_of_words_loss,
    classification_loss,
    nl_loss,
    nsp_loss,
    sdt_loss,
    spp_loss,
)
from coherence_metric.training.discoeval_criteria.model import BiGRUEncoder, feed_forward

LN3 = math.log(3.0)
# softmax([0, ln 3]) = [1/4, 3/4]; softmax([0, 0]) = [1/2, 1/2]
LOGITS = torch.tensor([[0.0, LN3], [0.0, 0.0]])


def test_bag_of_words_is_the_mean_log_probability_of_the_bag() -> None:
    counts = torch.tensor([[1.0, 1.0], [0.0, 3.0]])
    row0 = -(math.log(1 / 4) + math.log(3 / 4)) / 2  # 0.836988
    row1 = -math.log(1 / 2)  # 3 copies of the same word: normalised by the bag's size
    assert bag_of_words_loss(LOGITS, counts).item() == pytest.approx((row0 + row1) / 2, abs=1e-6)


def test_masked_rows_and_empty_bags_are_left_out() -> None:
    counts = torch.tensor([[1.0, 1.0], [0.0, 3.0]])
    only_first = bag_of_words_loss(LOGITS, counts, torch.tensor([True, False]))
    assert only_first.item() == pytest.approx(0.836988, abs=1e-6)
    empty_second = bag_of_words_loss(LOGITS, torch.tensor([[1.0, 1.0], [0.0, 0.0]]))
    assert empty_second.item() == pytest.approx(0.836988, abs=1e-6)


def test_a_batch_with_no_target_gives_zero_and_still_backpropagates() -> None:
    logits = LOGITS.clone().requires_grad_(True)
    loss = bag_of_words_loss(logits, torch.ones(2, 2), torch.tensor([False, False]))
    loss.backward()
    assert loss.item() == 0.0 and logits.grad is not None and float(logits.grad.abs().sum()) == 0.0


def test_classification_is_cross_entropy() -> None:
    labels = torch.tensor([1, 0])
    expected = (-math.log(3 / 4) - math.log(1 / 2)) / 2  # (0.287682 + 0.693147) / 2
    assert classification_loss(LOGITS, labels).item() == pytest.approx(expected, abs=1e-6)
    assert nl_loss(LOGITS, labels).item() == pytest.approx(expected, abs=1e-6)


def test_each_criterion_is_the_sum_of_its_two_halves() -> None:
    counts = torch.tensor([[1.0, 1.0], [0.0, 3.0]])
    both, first = torch.tensor([True, True]), torch.tensor([True, False])
    bag_all = ((-(math.log(1 / 4) + math.log(3 / 4)) / 2) + math.log(2)) / 2
    assert nsp_loss(LOGITS, counts, first, LOGITS, counts, both).item() == pytest.approx(0.836988 + bag_all, abs=1e-6)
    labels = torch.tensor([1, 0])
    ce = (-math.log(3 / 4) - math.log(1 / 2)) / 2
    assert spp_loss(LOGITS, labels, LOGITS, torch.tensor([0, 0])).item() == pytest.approx(
        ce + (-math.log(1 / 4) - math.log(1 / 2)) / 2, abs=1e-6)
    # SDT: the second sentence is in the lead (no heading): only its title term counts
    assert sdt_loss(LOGITS, counts, first, LOGITS, counts).item() == pytest.approx(0.836988 + bag_all, abs=1e-6)


def test_the_encoder_averages_the_hidden_states_of_real_positions_only() -> None:
    torch.manual_seed(0)
    encoder = BiGRUEncoder(torch.randn(10, 4), hidden_size=3, pad_id=0)
    ids = torch.tensor([[3, 5, 7], [2, 4, 0]])
    vectors = encoder(ids, torch.tensor([3, 2]))
    assert vectors.shape == (2, 6) and encoder.dim == 6
    outputs, _ = encoder.gru(encoder.embedding(torch.tensor([[2, 4]])))  # unpadded: [1, 2, 6]
    assert torch.allclose(vectors[1], outputs[0].mean(dim=0), atol=1e-6)
    alone = encoder(torch.tensor([[2, 4]]), torch.tensor([2]))
    assert torch.allclose(alone[0], vectors[1], atol=1e-6)  # padding and batch-mates do not change a vector


def test_the_word_vectors_are_frozen_and_the_decoders_are_mlps() -> None:
    encoder = BiGRUEncoder(torch.randn(10, 4), hidden_size=3)
    assert not encoder.embedding.weight.requires_grad and all(p.requires_grad for p in encoder.gru.parameters())
    layers = [type(module).__name__ for module in feed_forward(6, 5, 2, layers=2, dropout=0.0)]
    assert layers == ["Linear", "ReLU", "Dropout", "Linear", "ReLU", "Dropout", "Linear"]
    assert [type(module).__name__ for module in feed_forward(6, 5, 2, layers=0, dropout=0.0)] == ["Linear"]
