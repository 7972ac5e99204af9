"""The two views of a sentence (seed 004, section 2.1): a bi-GRU ``f`` and a linear average-of-word-vectors ``g``.

Both read the same frozen word vectors (:class:`coherence_metric.training.wordvec.WordVectors`, our stand-in for
fastText). ``f`` is trained on its last hidden state (the paper: "only hidden state at the last time step is sent to
the next stage"); at test time Table 2 also pools over all its hidden states ``H``. ``g`` maps every word
vector through one matrix ``W`` and averages (``mean(W X)``), the paper's "transforms word vectors in a
sentence by a learnable weight matrix W and outputs an averaged vector"; the word vectors themselves stay
frozen, as in the paper (fastText "fixed during learning").

Initialisation follows the appendix: He (Kaiming) initialisation of every weight, the bi-GRU's gates set to 1.
We read "gates initialised to 1" as the reset and update gates' biases set to 1 (the candidate's bias 0), the
usual meaning of gate initialisation; ``W`` has no bias (a constant added to every sentence would only be
removed again by the principal-component step).
"""

from __future__ import annotations

from typing import Tuple

import torch
from torch import nn

POOLINGS = ("train", "mean", "multi")
"""``train``: what training sees (f: last hidden state; g: mean); ``mean``: Table 2's unsupervised column
(mean over time); ``multi``: Table 2's supervised column (f: [max; mean; min; last], g: [max; mean; min])."""


def length_mask(lengths: torch.Tensor, steps: int) -> torch.Tensor:
    """[B, T] boolean mask of the real (non-padding) positions."""
    return torch.arange(steps, device=lengths.device)[None, :] < lengths[:, None]


def masked_mean(values: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Mean over time of [B, T, H] values, padding excluded."""
    mask = length_mask(lengths, values.shape[1]).unsqueeze(-1).to(values.dtype)
    return (values * mask).sum(1) / lengths.clamp(min=1).unsqueeze(-1).to(values.dtype)


def masked_max_min(values: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Global max- and min-pooling over time of [B, T, H] values, padding excluded."""
    mask = length_mask(lengths, values.shape[1]).unsqueeze(-1)
    highest = values.masked_fill(~mask, float("-inf")).max(1).values
    lowest = values.masked_fill(~mask, float("inf")).min(1).values
    return highest, lowest


class RecurrentView(nn.Module):
    """``f(s; phi)``: a one-layer bi-GRU with ``hidden`` units per direction, so its vectors have ``2 * hidden``."""

    def __init__(self, word_dim: int, hidden: int) -> None:
        super().__init__()
        self.gru = nn.GRU(word_dim, hidden, batch_first=True, bidirectional=True)
        self.hidden = hidden
        for name, parameter in self.gru.named_parameters():
            if name.startswith("weight"):
                nn.init.kaiming_normal_(parameter)
            else:  # bias_ih / bias_hh, laid out as [reset | update | candidate]
                nn.init.zeros_(parameter)
                if name.startswith("bias_ih"):
                    nn.init.ones_(parameter[: 2 * hidden])

    @property
    def dim(self) -> int:
        """Size of the view's training vector ``z^f``."""
        return 2 * self.hidden

    def forward(self, vectors: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """All hidden states H [B, T, 2h] (zero at padding) and the last state [B, 2h].

        The last state is the forward direction's state after the last real word joined with the backward
        direction's state after the first word: packing makes padding invisible to both.
        """
        packed = nn.utils.rnn.pack_padded_sequence(vectors, lengths.cpu(), batch_first=True, enforce_sorted=False)
        outputs, final = self.gru(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(outputs, batch_first=True, total_length=vectors.shape[1])
        last = torch.cat([final[0], final[1]], dim=-1)
        return states, last

    def pool(self, vectors: torch.Tensor, lengths: torch.Tensor, pooling: str) -> torch.Tensor:
        """The sentence vector under one of :data:`POOLINGS`."""
        states, last = self(vectors, lengths)
        if pooling == "train":
            return last
        mean = masked_mean(states, lengths)
        if pooling == "mean":
            return mean
        highest, lowest = masked_max_min(states, lengths)
        return torch.cat([highest, mean, lowest, last], dim=-1)

    def every_pooling(self, vectors: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        """The vectors under each of :data:`POOLINGS`, in that order, from one run of the GRU."""
        states, last = self(vectors, lengths)
        mean = masked_mean(states, lengths)
        highest, lowest = masked_max_min(states, lengths)
        return last, mean, torch.cat([highest, mean, lowest, last], dim=-1)


class LinearView(nn.Module):
    """``g(s; W) = mean(W X)``: one bias-free linear map of each word vector, averaged over the sentence."""

    def __init__(self, word_dim: int, dim: int) -> None:
        super().__init__()
        self.linear = nn.Linear(word_dim, dim, bias=False)
        nn.init.kaiming_normal_(self.linear.weight)

    @property
    def dim(self) -> int:
        """Size of the view's vector ``z^g``."""
        return int(self.linear.weight.shape[0])

    @property
    def weight(self) -> torch.Tensor:
        """``W`` [dim, word_dim]; in the generative framework this is ``U^T`` (the inverse of the decoder)."""
        return self.linear.weight

    def forward(self, vectors: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """``mean(W X)`` [B, dim]: the linear map commutes with the mean, so average first (cheaper)."""
        return self.linear(masked_mean(vectors, lengths))

    def pool(self, vectors: torch.Tensor, lengths: torch.Tensor, pooling: str) -> torch.Tensor:
        """The sentence vector under one of :data:`POOLINGS` (``train`` and ``mean`` are the same for g)."""
        if pooling in ("train", "mean"):
            return self(vectors, lengths)
        mapped = self.linear(vectors)
        highest, lowest = masked_max_min(mapped, lengths)
        return torch.cat([highest, masked_mean(mapped, lengths), lowest], dim=-1)

    def every_pooling(self, vectors: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        """The vectors under each of :data:`POOLINGS`, in that order."""
        mapped = self.linear(vectors)
        mean = masked_mean(mapped, lengths)
        highest, lowest = masked_max_min(mapped, lengths)
        return mean, mean, torch.cat([highest, mean, lowest], dim=-1)


__all__ = ["POOLINGS", "LinearView", "RecurrentView", "length_mask", "masked_max_min", "masked_mean"]
