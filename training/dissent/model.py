"""DisSent's sentence encoder and classifier (paper section 3.1): BiLSTM, max pooling, pair features, MLP.

    h_t = [LSTM_fwd(w_1..w_t); LSTM_bwd(w_T..w_t)],   s = max_t h_t                        (eq. 1)
    S = [s1, s2, (s1 + s2) / 2, s1 - s2, s1 * s2]  ->  affine to fc_dim  ->  affine to markers  (eq. 2)

Deliberate differences from the paper:

- word vectors are all-MiniLM-L6-v2's frozen input embeddings over WordPiece units
  (:mod:`coherence_metric.training.wordvec`), not GloVe over words: GloVe cannot be downloaded here.
- the max is taken over the real positions only; InferSent's code (which DisSent reuses) maxes over
  the zero-padded outputs too, so a padded sentence's vector depended on its batch-mates' lengths.
- the hidden size is a recipe setting: the paper's 4096 per direction is the GPU config; the CPU
  recipes use 512.

The paper's classifier is two affine layers with no nonlinearity and no dropout ("we did not use
dropout in the fully connected layer"); ``activation: tanh`` adds InferSent's optional nonlinearity.
"""

from __future__ import annotations

from typing import List, Tuple

import torch
from torch import nn
from torch.nn import functional as F

from coherence_metric.errors import InputError

from ..wordvec import WordVectors

ACTIVATIONS = ("none", "tanh", "relu")


class FrozenEmbedding(nn.Module):
    """A fixed embedding matrix kept as a non-persistent buffer.

    Why not ``nn.Embedding(freeze=True)``: its 30,522 x 384 matrix (47 MB) would be written into every
    resume state and checkpoint although it never changes; the checkpoint names its source instead.
    """

    weight: torch.Tensor

    def __init__(self, weights: torch.Tensor, pad_id: int) -> None:
        super().__init__()
        self.register_buffer("weight", weights.detach().clone().float(), persistent=False)
        self.pad_id = pad_id

    @property
    def dim(self) -> int:
        """Vector size."""
        return int(self.weight.shape[1])

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return F.embedding(ids, self.weight)


class BiLSTMMaxEncoder(nn.Module):
    """Word vectors -> one-layer bidirectional LSTM -> element-wise max over time (eq. 1)."""

    def __init__(self, embedding: FrozenEmbedding, hidden: int) -> None:
        super().__init__()
        if hidden < 1:
            raise InputError(f"model.hidden must be positive, got {hidden}")
        self.embedding = embedding
        self.lstm = nn.LSTM(embedding.dim, hidden, num_layers=1, batch_first=True, bidirectional=True)

    @property
    def dim(self) -> int:
        """Sentence vector size: 2 x hidden (forward and backward states)."""
        return 2 * self.lstm.hidden_size

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Sentence vectors [B, 2H] from word-piece ids [B, T] and lengths [B] (each >= 1)."""
        vectors = self.embedding(ids)
        packed = nn.utils.rnn.pack_padded_sequence(vectors, lengths.cpu(), batch_first=True, enforce_sorted=False)
        states, _ = self.lstm(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=ids.shape[1])
        real = torch.arange(ids.shape[1], device=ids.device)[None, :] < lengths.to(ids.device)[:, None]
        return states.masked_fill(~real[:, :, None], float("-inf")).max(dim=1).values


def pair_features(s1: torch.Tensor, s2: torch.Tensor) -> torch.Tensor:
    """The paper's eq. 2: [s1, s2, (s1 + s2) / 2, s1 - s2, s1 * s2] along the last axis ([B, 5D])."""
    if s1.shape != s2.shape:
        raise InputError(f"pair_features needs vectors of one shape, got {tuple(s1.shape)} and {tuple(s2.shape)}")
    return torch.cat([s1, s2, (s1 + s2) / 2, s1 - s2, s1 * s2], dim=-1)


def make_classifier(input_dim: int, fc_dim: int, classes: int, activation: str = "none") -> nn.Sequential:
    """Affine to ``fc_dim`` then affine to ``classes`` (``fc_dim`` 0: one affine layer)."""
    if activation not in ACTIVATIONS:
        raise InputError(f"model.activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if classes < 2:
        raise InputError(f"a marker set needs at least 2 markers, got {classes}")
    if fc_dim == 0:
        return nn.Sequential(nn.Linear(input_dim, classes))
    layers: List[nn.Module] = [nn.Linear(input_dim, fc_dim)]
    if activation == "tanh":
        layers.append(nn.Tanh())
    elif activation == "relu":
        layers.append(nn.ReLU())
    layers.append(nn.Linear(fc_dim, classes))
    return nn.Sequential(*layers)


class DisSentBiLSTM(nn.Module):
    """The DisSent model: shared BiLSTM-max encoder for S1 and S2, pair features, classifier."""

    kind = "bilstm"

    def __init__(self, word_vectors: WordVectors, hidden: int, fc_dim: int, classes: int,
                 activation: str = "none", max_length: int = 64) -> None:
        super().__init__()
        self.word_vectors = word_vectors
        self.max_length = max_length
        self.config = {"hidden": hidden, "fc_dim": fc_dim, "classes": classes, "activation": activation,
                       "max_length": max_length}
        self.encoder = BiLSTMMaxEncoder(FrozenEmbedding(word_vectors.weights, word_vectors.pad_id), hidden)
        self.classifier = make_classifier(5 * self.encoder.dim, fc_dim, classes, activation)

    @property
    def device(self) -> torch.device:
        """Where the parameters are."""
        return next(self.parameters()).device

    def tokens(self, texts: List[str]) -> Tuple[torch.Tensor, torch.Tensor]:
        """Word-piece ids and lengths on the model's device."""
        ids, lengths = self.word_vectors.token_ids(texts, self.max_length)
        return ids.to(self.device), lengths.to(self.device)

    def encode(self, texts: List[str]) -> torch.Tensor:
        """Sentence vectors [B, 2H]: what DiscoEval reads."""
        return self.encoder(*self.tokens(texts))

    def forward(self, s1: List[str], s2: List[str]) -> torch.Tensor:
        """Marker logits [B, classes]."""
        return self.classifier(pair_features(self.encode(s1), self.encode(s2)))


__all__ = ["ACTIVATIONS", "BiLSTMMaxEncoder", "DisSentBiLSTM", "FrozenEmbedding", "make_classifier",
           "pair_features"]
