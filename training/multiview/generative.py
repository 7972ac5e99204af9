"""The generative multi-view framework (seed 004, section 2.2): f encodes, an invertible linear map decodes.

Sentence i is encoded by the bi-GRU, ``z_i = f(s_i)`` (last hidden state), projected into word-vector space
``x_i = U z_i`` and trained to predict the words of sentence i + 1 with negative sampling (eq. 1): for each
next-sentence word w, ``log s(x . v_w) + sum_k log s(-x . v_wk)`` with K words drawn from the unigram
distribution raised to 0.75. After every optimizer step U takes one step of Cisse et al.'s orthonormal update
(eq. 2), ``U <- (1 + b) U - b (U U^T) U`` with b = 0.01, which drives U's singular values to 1; after
training the linear view is ``g = U^T``, the decoder's inverse.

How we store U: it *is* the linear view's matrix, ``U = W^T`` with ``W = encoder.g.weight``, so the saved
encoder's g is ``U^T`` by construction and there is no copy to keep in sync. The update is the same
expression for ``W`` (``(W W^T) W = W (W^T W)``), and it works whichever of U's sides is longer: it
converges to ``U U^T = I`` when U is wide (the paper's case: word vectors no wider than 2d) and to
``U^T U = I`` when U is tall (the paper's footnote 1), so no branch is needed. ``objective.invertible: false``
skips the update: the paper's "without invertible constraint" ablation, which still uses ``U^T`` as g.

Our differences: the words are WordPiece pieces of all-MiniLM-L6-v2 (our fastText stand-in) and the
unigram counts are those of pieces in the training stream; a sentence whose successor belongs to another
document predicts nothing; the loss is averaged over predicted words (the paper sums), which only rescales
the learning rate.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import torch
from torch import nn
from torch.nn import functional as F

from coherence_metric.errors import InputError

from ..wordvec import WordVectors
from .data import SentenceStream
from .objective import MultiViewObjective, TokenBatch, mean_of
from .views import length_mask

UNIGRAM_POWER = 0.75


def orthonormal_update(matrix: torch.Tensor, beta: float = 0.01) -> torch.Tensor:
    """One step of eq. 2, ``(1 + beta) U - beta (U U^T) U``, returned as a new tensor."""
    return (1.0 + beta) * matrix - beta * (matrix @ matrix.T) @ matrix


def negative_sampling_loss(projected: torch.Tensor, targets: torch.Tensor, target_mask: torch.Tensor,
                           negatives: torch.Tensor) -> torch.Tensor:
    """Minus eq. 1, averaged over the real target words.

    Args:
        projected: ``x_i = U z_i`` [P, D], one row per sentence that predicts a successor.
        targets: word vectors of the successor's words [P, T, D].
        target_mask: [P, T], True at real words (False at padding).
        negatives: word vectors of K sampled words per target word [P, T, K, D].

    Returns:
        ``-mean_(i, j) [log s(x_i . v_j) + sum_k log s(-x_i . v_k)]``.
    """
    positive = F.logsigmoid(torch.einsum("pd,ptd->pt", projected, targets))
    negative = F.logsigmoid(-torch.einsum("pd,ptkd->ptk", projected, negatives)).sum(-1)
    weights = target_mask.to(projected.dtype)
    return -((positive + negative) * weights).sum() / weights.sum().clamp(min=1.0)


class UnigramSampler:
    """Draws word ids from the unigram distribution raised to ``power`` (Mikolov et al., 2013).

    Args:
        counts: how often each id occurs [V]; ids never seen are never drawn.
    """

    def __init__(self, counts: torch.Tensor, power: float = UNIGRAM_POWER) -> None:
        counts = counts.double()
        if counts.ndim != 1 or float(counts.sum()) <= 0 or bool((counts < 0).any()):
            raise InputError("the negative-sampling counts must be a non-empty vector of non-negative counts")
        weights = counts.pow(power)
        self.probabilities = (weights / weights.sum()).float()

    def sample(self, shape: Sequence[int], generator: Optional[torch.Generator] = None) -> torch.Tensor:
        """Ids of the given shape, drawn with replacement."""
        count = 1
        for size in shape:
            count *= int(size)
        if count == 0:
            return torch.zeros(tuple(shape), dtype=torch.long)
        drawn = torch.multinomial(self.probabilities, count, replacement=True, generator=generator)
        return drawn.reshape(tuple(shape))


def count_word_pieces(word_vectors: WordVectors, sentences: Sequence[str], max_tokens: int) -> torch.Tensor:
    """How often each word-piece id occurs in ``sentences`` (each cut at ``max_tokens``), as a [V] tensor."""
    counts = torch.zeros(word_vectors.weights.shape[0], dtype=torch.float64)
    for start in range(0, len(sentences), 1024):
        ids, lengths = word_vectors.token_ids(list(sentences[start:start + 1024]), max_tokens)
        real = ids[length_mask(lengths, ids.shape[1])]
        counts += torch.bincount(real, minlength=counts.shape[0]).double()
    counts[word_vectors.pad_id] = 0.0  # an empty sentence is one pad: never a word to predict or sample
    return counts


class GenerativeBatch(TokenBatch):
    """A block plus, for each sentence that has a successor in its document, the successor and K negatives."""

    def __init__(self, tokens: TokenBatch, sources: torch.Tensor, negatives: torch.Tensor) -> None:
        super().__init__(tokens.ids, tokens.lengths, tokens.documents)
        self.sources = sources
        self.negatives = negatives


def successors(documents: torch.Tensor) -> torch.Tensor:
    """Indices i whose sentence i + 1 is in the same document (the sentences that predict a successor)."""
    return torch.nonzero(documents[:-1] == documents[1:]).flatten()


class GenerativeObjective(MultiViewObjective):
    """Eq. 1 with the orthonormal update of eq. 2; ``evaluate`` reports held-out next-sentence retrieval.

    Held-out ``accuracy``: for each held-out sentence with a successor, the sentence of the same block whose
    words the decoder finds most likely (mean ``log s(x_i . v_w)`` over its words, centred over the block's
    predictors: :func:`next_sentence_accuracy`), excluding the sentence itself, must be the true successor.
    ``loss`` is eq. 1 on the held-out blocks with fixed negatives.
    """

    name = "generative"

    def __init__(self, word_vectors: WordVectors, train: SentenceStream, dev: SentenceStream, hidden: int,
                 sampler: UnigramSampler, negatives: int = 5, beta: float = 0.01, invertible: bool = True,
                 max_tokens: int = 40, eval_batches: int = 10, pc_sentences: int = 2000, device: str = "cpu",
                 seed: int = 0) -> None:
        if negatives < 1:
            raise InputError(f"objective.negatives must be at least 1, got {negatives}")
        if not 0.0 < beta < 0.5:
            raise InputError(f"objective.beta must be in (0, 0.5) for the orthonormal update to converge, got {beta}")
        super().__init__(word_vectors, train, dev, hidden, max_tokens, eval_batches, pc_sentences, device, seed,
                         details={"invertible": invertible, "negatives": negatives, "beta": beta})
        # He initialisation of the decoder U [D, 2h] (fan-in 2h), stored transposed as g's W = U^T.
        decoder = torch.empty(word_vectors.dim, self.encoder.dim)
        nn.init.kaiming_normal_(decoder)
        with torch.no_grad():
            self.encoder.g.linear.weight.copy_(decoder.T)
        self.sampler = sampler
        self.negatives, self.beta, self.invertible = negatives, beta, invertible
        self.module = self.encoder.to(device)

    def batch(self, position: int) -> GenerativeBatch:
        """The block at ``position``, its successor pairs and K negatives per successor word."""
        tokens = self.tokens(self.block(position))
        sources = successors(tokens.documents)
        shape = (len(sources), tokens.ids.shape[1], self.negatives)
        return GenerativeBatch(tokens, sources, self.sampler.sample(shape, self.sampling_generator(position)))

    def decoder(self) -> torch.Tensor:
        """U [D, 2h]."""
        return self.encoder.g.weight.T

    def _projected(self, batch: TokenBatch) -> torch.Tensor:
        encoded = self.encoder.represent(batch.ids, batch.lengths, "f", "train")
        return encoded @ self.decoder().T

    def _loss(self, batch: GenerativeBatch, projected: torch.Tensor) -> torch.Tensor:
        if len(batch.sources) == 0:
            return projected.sum() * 0.0
        following = batch.sources + 1
        mask = length_mask(batch.lengths[following], batch.ids.shape[1])
        return negative_sampling_loss(projected[batch.sources], self.encoder.embed(batch.ids[following]), mask,
                                      self.encoder.embed(batch.negatives))

    def loss(self, batch: GenerativeBatch) -> Tuple[torch.Tensor, Dict[str, float]]:
        """Eq. 1 over the block's successor pairs."""
        batch = self._on_device(batch)
        loss = self._loss(batch, self._projected(batch))
        return loss, {"pairs": float(len(batch.sources))}

    def _on_device(self, batch: GenerativeBatch) -> GenerativeBatch:
        if self.device == "cpu":
            return batch
        return GenerativeBatch(batch.to(self.device), batch.sources.to(self.device), batch.negatives.to(self.device))

    def after_step(self) -> None:
        """Eq. 2 on U (skipped when ``invertible`` is off)."""
        if self.invertible:
            with torch.no_grad():
                weight = self.encoder.g.linear.weight
                weight.copy_(orthonormal_update(weight, self.beta))

    def orthonormality_gap(self) -> float:
        """``||U U^T - I||_F`` (or ``||U^T U - I||_F`` for a tall U): how far the decoder is from invertible."""
        decoder = self.decoder()
        gram = decoder @ decoder.T if decoder.shape[0] <= decoder.shape[1] else decoder.T @ decoder
        return float(torch.linalg.norm(gram - torch.eye(gram.shape[0], device=gram.device)))

    @torch.no_grad()
    def evaluate(self) -> Dict[str, float]:
        """Held-out next-sentence retrieval accuracy, eq. 1 loss and the decoder's distance from orthonormal."""
        losses: List[Tuple[float, float]] = []
        hits: List[Tuple[float, float]] = []
        for index, block in enumerate(self.dev_blocks):
            tokens = self.tokens(block)
            sources = successors(tokens.documents)
            shape = (len(sources), tokens.ids.shape[1], self.negatives)
            negatives = self.sampler.sample(shape, torch.Generator().manual_seed(10_007 + index))
            batch = self._on_device(GenerativeBatch(tokens, sources, negatives))
            projected = self._projected(batch)
            losses.append((float(self._loss(batch, projected)), float(len(sources))))
            hits.append((next_sentence_accuracy(projected, self.encoder.embed(batch.ids), batch.lengths,
                                                batch.sources), float(len(sources))))
        return {"accuracy": mean_of(hits), "loss": mean_of(losses), "orthonormality_gap": self.orthonormality_gap()}


def next_sentence_accuracy(projected: torch.Tensor, words: torch.Tensor, lengths: torch.Tensor,
                           sources: torch.Tensor) -> float:
    """Share of ``sources`` i whose best-scoring other sentence of the block is i + 1.

    Sentence i scores candidate j by how likely the decoder finds j's words, ``mean_w log s(x_i . v_w)``, minus
    the mean of that over every predictor of the block. Why centre: the raw likelihood is dominated by word
    frequency, so one sentence of common words would be every predictor's favourite (a hub); centring asks
    which sentence x_i likes *more than the other sentences do*.

    Args:
        projected: ``x`` [N, D] of every sentence of the block.
        words: word vectors of every sentence [N, T, D].
        lengths: [N].
        sources: the sentences that have a successor in their document.
    """
    if len(sources) == 0:
        return 0.0
    scores = F.logsigmoid(torch.einsum("id,jtd->ijt", projected, words))
    mask = length_mask(lengths, words.shape[1]).to(scores.dtype)
    likelihood = (scores * mask[None]).sum(-1) / lengths.clamp(min=1).to(scores.dtype)[None]
    centred = (likelihood - likelihood.mean(0, keepdim=True))[sources]
    centred[torch.arange(len(sources)), sources] = float("-inf")
    return float((centred.argmax(1) == sources + 1).float().mean())


__all__ = ["GenerativeBatch", "GenerativeObjective", "UnigramSampler", "count_word_pieces", "negative_sampling_loss",
           "next_sentence_accuracy", "orthonormal_update", "successors"]
