"""The discriminative multi-view framework (seed 004, section 2.3): the two views of neighbours must agree.

For a block of N consecutive sentences, each view gives ``z^f_i`` and ``z^g_i``; their top principal component
(power iteration, 5 steps) is removed during training (section 2.4). The agreement of a pair is
``a_ij = cos(z^f_i, z^g_j) + cos(z^g_i, z^f_j)`` and eq. 3's loss is ``-log p_ij`` over the pairs within the
context window ``|i - j| <= c``, where ``p_ij`` is a softmax of ``a_in / tau`` over the batch with a trainable
temperature ``tau`` (initialised to 1).

Choices the paper leaves open, and ours:

- Eq. 3's window ``|i - j| <= c`` includes ``j = i`` and its denominator runs over the whole batch, ``i``
  included; we follow that literally by default (``include_self: true``): the two views of a sentence agreeing
  is the multi-view principle itself. ``include_self: false`` drops ``j = i`` from the positives only.
- The softmax runs over the whole block, not a window of N centred on i (the same thing for the sentence in the
  middle; edge sentences would otherwise reach outside the batch).
- Context stops at document boundaries: a neighbour from the next article is not a positive.
- ``-sum log p_ij`` is averaged over the positive pairs (only rescales the learning rate).
- ``tau`` is trained through ``log tau`` so it stays positive.
"""

from __future__ import annotations

import math
from typing import Dict, List, Tuple

import torch
from torch import nn
from torch.nn import functional as F

from coherence_metric.errors import InputError

from ..wordvec import WordVectors
from .data import SentenceStream
from .objective import MultiViewObjective, TokenBatch, mean_of
from .principal import remove_component, top_component


def agreement_matrix(view_f: torch.Tensor, view_g: torch.Tensor) -> torch.Tensor:
    """``a_ij = cos(z^f_i, z^g_j) + cos(z^g_i, z^f_j)`` for all pairs of a batch ([N, N], symmetric)."""
    cosines = F.normalize(view_f, dim=-1) @ F.normalize(view_g, dim=-1).T
    return cosines + cosines.T


def context_positives(documents: torch.Tensor, window: int, include_self: bool = True) -> torch.Tensor:
    """[N, N] boolean: j is within ``window`` sentences of i in the same document (i itself if ``include_self``)."""
    positions = torch.arange(len(documents), device=documents.device)
    distance = (positions[:, None] - positions[None, :]).abs()
    positives = (distance <= window) & (documents[:, None] == documents[None, :])
    if not include_self:
        positives &= distance > 0
    return positives


def agreement_loss(agreement: torch.Tensor, positives: torch.Tensor, temperature: torch.Tensor) -> torch.Tensor:
    """Eq. 3: ``-log p_ij`` averaged over the positive pairs, ``p_ij = softmax_n(a_in / tau)_j`` over the batch."""
    log_probabilities = F.log_softmax(agreement / temperature, dim=1)
    return -log_probabilities[positives].mean()


def context_accuracy(agreement: torch.Tensor, documents: torch.Tensor, window: int) -> Tuple[float, int]:
    """Share of sentences whose best-agreeing *other* sentence of the batch is in their context window.

    Returns:
        (accuracy, number of sentences that have at least one context sentence in the batch).
    """
    positives = context_positives(documents, window, include_self=False)
    scored = agreement.masked_fill(torch.eye(len(documents), dtype=torch.bool, device=agreement.device),
                                   float("-inf"))
    rows = positives.any(1)
    if not bool(rows.any()):
        return 0.0, 0
    chosen = scored.argmax(1)
    hits = positives[torch.arange(len(documents), device=agreement.device), chosen]
    return float(hits[rows].float().mean()), int(rows.sum())


class DiscriminativeModule(nn.Module):
    """The trained parameters: both views and ``log tau``."""

    def __init__(self, encoder: nn.Module, temperature: float, train_temperature: bool) -> None:
        super().__init__()
        self.encoder = encoder
        self.log_temperature = nn.Parameter(torch.tensor(math.log(temperature)), requires_grad=train_temperature)


class DiscriminativeObjective(MultiViewObjective):
    """Eq. 3 with principal-component removal during training; ``evaluate`` reports context retrieval.

    Held-out ``accuracy``: on the held-out blocks, the share of sentences whose highest-agreement other
    sentence lies within ``c`` of it in the same document (:func:`context_accuracy`).
    """

    name = "discriminative"

    def __init__(self, word_vectors: WordVectors, train: SentenceStream, dev: SentenceStream, hidden: int,
                 context: int = 3, include_self: bool = True, temperature: float = 1.0, train_temperature: bool = True,
                 remove_pc: bool = True, power_iterations: int = 5, max_tokens: int = 40, eval_batches: int = 10,
                 pc_sentences: int = 2000, device: str = "cpu", seed: int = 0) -> None:
        if context < 1:
            raise InputError(f"objective.context must be at least 1, got {context}")
        if temperature <= 0:
            raise InputError(f"objective.temperature must be positive, got {temperature}")
        if power_iterations < 1:
            raise InputError(f"objective.power_iterations must be at least 1, got {power_iterations}")
        super().__init__(word_vectors, train, dev, hidden, max_tokens, eval_batches, pc_sentences, device, seed,
                         details={"context": context, "include_self": include_self, "remove_pc": remove_pc})
        self.context, self.include_self = context, include_self
        self.remove_pc, self.power_iterations = remove_pc, power_iterations
        self.discriminative = DiscriminativeModule(self.encoder, temperature, train_temperature).to(device)
        self.module = self.discriminative

    def temperature(self) -> torch.Tensor:
        """tau."""
        return self.discriminative.log_temperature.exp()

    def batch(self, position: int) -> TokenBatch:
        """The block at ``position``, tokenised."""
        return self.tokens(self.block(position))

    def views(self, batch: TokenBatch) -> Tuple[torch.Tensor, torch.Tensor]:
        """``z^f`` and ``z^g`` of a batch, with each view's top principal component removed when enabled."""
        batch = batch.to(self.device)
        vectors = [self.encoder.represent(batch.ids, batch.lengths, view, "train") for view in ("f", "g")]
        if self.remove_pc:
            vectors = [remove_component(z, top_component(z.detach(), self.power_iterations)) for z in vectors]
        return vectors[0], vectors[1]

    def loss(self, batch: TokenBatch) -> Tuple[torch.Tensor, Dict[str, float]]:
        """Eq. 3 over the block."""
        view_f, view_g = self.views(batch)
        agreement = agreement_matrix(view_f, view_g)
        documents = batch.documents.to(self.device)
        positives = context_positives(documents, self.context, self.include_self)
        loss = agreement_loss(agreement, positives, self.temperature())
        accuracy, _ = context_accuracy(agreement.detach(), documents, self.context)
        return loss, {"temperature": float(self.temperature().detach()), "batch_accuracy": accuracy}

    @torch.no_grad()
    def evaluate(self) -> Dict[str, float]:
        """Held-out context retrieval accuracy and eq. 3 loss, plus the temperature."""
        losses: List[Tuple[float, float]] = []
        hits: List[Tuple[float, float]] = []
        for block in self.dev_blocks:
            batch = self.tokens(block)
            view_f, view_g = self.views(batch)
            agreement = agreement_matrix(view_f, view_g)
            documents = batch.documents.to(self.device)
            positives = context_positives(documents, self.context, self.include_self)
            losses.append((float(agreement_loss(agreement, positives, self.temperature())), 1.0))
            accuracy, rows = context_accuracy(agreement, documents, self.context)
            hits.append((accuracy, float(rows)))
        return {"accuracy": mean_of(hits), "loss": mean_of(losses), "temperature": float(self.temperature())}


__all__ = ["DiscriminativeModule", "DiscriminativeObjective", "agreement_loss", "agreement_matrix",
           "context_accuracy", "context_positives"]
