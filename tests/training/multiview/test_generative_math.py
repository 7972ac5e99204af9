"""Eq. 1 and eq. 2 on tensors small enough to check by hand, and the unigram^0.75 sampler."""

from __future__ import annotations

import math

import pytest
import torch

from coherence_metric.errors import InputError
from coherence_metric.training.multiview.generative import (
    UnigramSampler,
    negative_sampling_loss,
    next_sentence_accuracy,
    orthonormal_update,
    successors,
)


def test_orthonormal_update_matches_a_hand_computed_2x3_step() -> None:
    # U = [[1, 1, 0], [0, 1, 1]]: U U^T = [[2, 1], [1, 2]], (U U^T) U = [[2, 3, 1], [1, 3, 2]];
    # 1.01 U - 0.01 (U U^T) U = [[0.99, 0.98, -0.01], [-0.01, 0.98, 0.99]].
    matrix = torch.tensor([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    updated = orthonormal_update(matrix, beta=0.01)
    expected = torch.tensor([[0.99, 0.98, -0.01], [-0.01, 0.98, 0.99]])
    assert torch.allclose(updated, expected, atol=1e-6)
    assert torch.equal(matrix, torch.tensor([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])), "the input must not change"


def test_an_orthonormal_matrix_is_a_fixed_point() -> None:
    rows = torch.tensor([[0.6, 0.8, 0.0], [0.0, 0.0, 1.0]])
    assert torch.allclose(orthonormal_update(rows, 0.01), rows, atol=1e-7)


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (16, 40)])
def test_repeated_updates_drive_the_short_side_gram_to_identity(shape) -> None:
    generator = torch.Generator().manual_seed(0)
    matrix = torch.randn(*shape, generator=generator, dtype=torch.float64)
    side = min(shape)
    gram = (lambda m: m @ m.T) if shape[0] <= shape[1] else (lambda m: m.T @ m)
    start_gap = float(torch.linalg.norm(gram(matrix) - torch.eye(side, dtype=torch.float64)))
    for _ in range(3000):
        matrix = orthonormal_update(matrix, 0.01)
    gap = float(torch.linalg.norm(gram(matrix) - torch.eye(side, dtype=torch.float64)))
    assert start_gap > 0.5 and gap < 1e-6


def test_negative_sampling_loss_matches_hand_computed_values() -> None:
    # x = [1, 0]. Word 1: v = [2, 0], negative [0, 1]: log s(2) + log s(0) = -0.126928 - 0.693147.
    # Word 2: v = [0, 3], negative [-1, 0]: log s(0) + log s(1) = -0.693147 - 0.313262.
    # Word 3 is padding (masked). Loss = mean of the two words' negated sums = (0.820075 + 1.006409) / 2.
    projected = torch.tensor([[1.0, 0.0]])
    targets = torch.tensor([[[2.0, 0.0], [0.0, 3.0], [5.0, 5.0]]])
    mask = torch.tensor([[True, True, False]])
    negatives = torch.tensor([[[[0.0, 1.0]], [[-1.0, 0.0]], [[9.0, 9.0]]]])
    loss = negative_sampling_loss(projected, targets, mask, negatives)
    assert float(loss) == pytest.approx(0.913242, abs=1e-6)


def test_negative_sampling_loss_sums_over_the_k_negatives() -> None:
    projected = torch.tensor([[0.0, 0.0]])  # every dot product is 0: each term is log s(0) = -log 2
    targets = torch.zeros(1, 1, 2)
    negatives = torch.zeros(1, 1, 5, 2)
    loss = negative_sampling_loss(projected, targets, torch.tensor([[True]]), negatives)
    assert float(loss) == pytest.approx(6 * math.log(2), abs=1e-6)


def test_the_sampler_follows_the_unigram_distribution_to_the_power_075() -> None:
    # counts 0, 1, 16, 81 -> weights 0, 1, 8, 27 (c^0.75) -> probabilities 0, 1/36, 8/36, 27/36.
    sampler = UnigramSampler(torch.tensor([0.0, 1.0, 16.0, 81.0]))
    assert torch.allclose(sampler.probabilities, torch.tensor([0.0, 1 / 36, 8 / 36, 27 / 36]), atol=1e-6)
    drawn = sampler.sample((400, 500), torch.Generator().manual_seed(3))
    assert drawn.shape == (400, 500)
    frequencies = torch.bincount(drawn.flatten(), minlength=4).double() / drawn.numel()
    assert frequencies[0] == 0.0, "a word never seen must never be drawn"
    assert torch.allclose(frequencies, torch.tensor([0.0, 1 / 36, 8 / 36, 27 / 36], dtype=torch.float64), atol=0.005)


def test_the_sampler_is_deterministic_per_generator_seed() -> None:
    sampler = UnigramSampler(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
    first = sampler.sample((3, 7), torch.Generator().manual_seed(11))
    assert torch.equal(first, sampler.sample((3, 7), torch.Generator().manual_seed(11)))
    assert not torch.equal(first, sampler.sample((3, 7), torch.Generator().manual_seed(12)))


def test_the_sampler_rejects_empty_counts() -> None:
    with pytest.raises(InputError, match="negative-sampling counts"):
        UnigramSampler(torch.zeros(4))


def test_successors_stop_at_document_boundaries() -> None:
    assert successors(torch.tensor([0, 0, 0, 1, 1, 2])).tolist() == [0, 1, 3]


def test_next_sentence_accuracy_picks_the_sentence_whose_words_the_decoder_prefers() -> None:
    # Three one-word sentences with word vectors e1, e2, e3. Sentence 0 predicts e2 (its successor): hit.
    # Sentence 1 predicts e1, but its successor is sentence 2 (e3) and sentence 0 (e1) is preferred: miss.
    words = torch.eye(3).unsqueeze(1)  # [3 sentences, 1 word, 3 dims]
    projected = torch.tensor([[0.0, 5.0, 0.0], [5.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    accuracy = next_sentence_accuracy(projected, words, torch.tensor([1, 1, 1]), torch.tensor([0, 1]))
    assert accuracy == pytest.approx(0.5)


def test_next_sentence_accuracy_is_not_fooled_by_a_hub_sentence() -> None:
    # Sentence 2 is one word v = [3, 3, 0] that every predictor likes (x . v = 6); sentence 0's successor is
    # sentence 1 (word e1), which only x_0 = [2, 0, 0] likes. Raw likelihoods would pick the hub for x_0
    # (log s(6) = -0.0025 > log s(2) = -0.127); centred over the predictors the hub scores 0 for everyone and
    # e1 scores log s(2) - (log s(2) + 3 log s(0)) / 4 = 0.425 for x_0: a hit.
    words = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [3.0, 3.0, 0.0], [0.0, 0.0, 1.0]]).unsqueeze(1)
    projected = torch.tensor([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 2.0, 0.0], [0.0, 2.0, 0.0]])
    accuracy = next_sentence_accuracy(projected, words, torch.tensor([1, 1, 1, 1]), torch.tensor([0]))
    assert accuracy == 1.0
