"""A sentence-level term: a small transformer reading a document as its sentences' pretrained embeddings.

Why: the checkpoint's head reads a whole text through one mean-pooled vector, in which one sentence that does not
belong barely moves the score (INSteD's intrusions, a story's wrong ending). This module sees the text one sentence
at a time: each sentence is its frozen, pretrained embedding
(:class:`~coherence_metric.scoring.sentence_pass.SentenceEmbedder`)
plus its cosine with the sentences before and after it and a learned position; a few transformer layers compare
every sentence with every other; the score is a linear read of their mean plus ``scale`` times the mean
adjacent-sentence cosine (the cohesion baseline, which the layers then only need to correct). A checkpoint with
this term scores ``head(text) + term(sentences)``.

Documents longer than ``max_sentences`` are read in windows of that many sentences, half a window apart, the last
one ending at the last sentence, and the term is the mean over windows: every sentence is seen, and a text's value
does not depend on which other texts share the batch (up to float rounding, about 1e-6).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Sequence, Tuple

import torch
from torch import nn

from ..errors import InputError

#: The keys of the term's tensors in the checkpoint's head file start with this.
TENSOR_PREFIX = "sentence_scorer."


@dataclass(frozen=True)
class SentenceScorerShape:
    """The sizes that rebuild the module from its tensors (recorded in ``coherence_config.json``).

    Attributes:
        embedding_dim: width of the sentence embeddings (the pretrained backbone's hidden size).
        width: width of the transformer layers.
        layers: transformer layers.
        heads: attention heads (must divide ``width``).
        max_sentences: sentences per window (the number of learned positions).
    """

    embedding_dim: int = 384
    width: int = 128
    layers: int = 2
    heads: int = 4
    max_sentences: int = 64

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InputError(f"sentence scorer {name} must be a positive integer, got {value!r}")
        if self.width % self.heads:
            raise InputError(f"sentence scorer width {self.width} is not divisible by heads {self.heads}")
        if self.max_sentences < 2:
            raise InputError(f"sentence scorer max_sentences must be at least 2, got {self.max_sentences}")

    def to_dict(self) -> Dict[str, int]:
        """The JSON form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> "SentenceScorerShape":
        """Parse the JSON form; unknown or missing keys raise InputError."""
        if not isinstance(data, dict):
            raise InputError(f"a sentence scorer shape must be a JSON object, got {type(data).__name__}")
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise InputError(f"unknown sentence scorer key(s): {', '.join(unknown)}")
        return cls(**data)


def window_starts(n_sentences: int, size: int) -> List[int]:
    """Where the windows of a document of ``n_sentences`` start: one window when it fits, else half-overlapping
    windows of ``size`` with the last one ending at the last sentence."""
    if n_sentences <= size:
        return [0]
    stride = max(1, size // 2)
    starts = list(range(0, n_sentences - size + 1, stride))
    if starts[-1] != n_sentences - size:
        starts.append(n_sentences - size)
    return starts


class SentenceLevelScorer(nn.Module):
    """One unbounded score per document, from its sentences' embeddings (module docstring says why).

    Args:
        shape: the sizes.
        dropout: dropout inside the layers during training (eval mode turns it off).
        scale: the initial weight of the mean adjacent-sentence cosine.
    """

    def __init__(self, shape: SentenceScorerShape, dropout: float = 0.1, scale: float = 5.0) -> None:
        super().__init__()
        self.shape = shape
        self.project = nn.Linear(shape.embedding_dim + 2, shape.width)
        self.position = nn.Embedding(shape.max_sentences, shape.width)
        layer = nn.TransformerEncoderLayer(shape.width, shape.heads, 2 * shape.width, dropout=dropout,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, shape.layers, enable_nested_tensor=False)
        self.out = nn.Linear(shape.width, 1)
        self.scale = nn.Parameter(torch.tensor(float(scale)))

    def forward(self, vectors: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        """Scores [B] of padded windows: ``vectors`` [B, n, embedding_dim] (L2-normalised), ``real`` [B, n] bool."""
        batch, n, _ = vectors.shape
        if n > self.shape.max_sentences:
            raise InputError(f"a window of {n} sentences exceeds max_sentences={self.shape.max_sentences}")
        mask = real.to(vectors.dtype)
        # Cosine of each sentence with its neighbours; 0 where a neighbour is missing or padding.
        adjacent = (vectors[:, :-1] * vectors[:, 1:]).sum(-1) * mask[:, :-1] * mask[:, 1:]
        previous = torch.nn.functional.pad(adjacent, (1, 0))
        following = torch.nn.functional.pad(adjacent, (0, 1))
        features = torch.cat([vectors, previous.unsqueeze(-1), following.unsqueeze(-1)], dim=-1)
        hidden = self.project(features) + self.position(torch.arange(n, device=vectors.device))[None]
        hidden = self.encoder(hidden, src_key_padding_mask=~real)
        pooled = (hidden * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True).clamp(min=1.0)
        pairs = (mask[:, :-1] * mask[:, 1:]).sum(1)
        cohesion = adjacent.sum(1) / pairs.clamp(min=1.0)
        return self.out(pooled).squeeze(-1) + self.scale * cohesion

    def score_documents(self, embeddings: torch.Tensor, documents: Sequence[Sequence[int]],
                        batch_size: int = 64) -> torch.Tensor:
        """Scores [len(documents)], differentiable: each document a list of rows of ``embeddings``.

        Raises:
            InputError: an empty document, or embeddings of another width than the shape's.
        """
        if embeddings.shape[-1] != self.shape.embedding_dim:
            raise InputError(f"sentence embeddings are {embeddings.shape[-1]} wide, the sentence scorer reads "
                             f"{self.shape.embedding_dim}")
        units: List[Tuple[int, Sequence[int]]] = []
        for number, rows in enumerate(documents):
            if not rows:
                raise InputError(f"document {number} has no sentences")
            size = self.shape.max_sentences
            units.extend((number, rows[start:start + size]) for start in window_starts(len(rows), size))
        # Longest first, so windows of similar length share a batch.
        order = sorted(range(len(units)), key=lambda index: len(units[index][1]), reverse=True)
        values: List[torch.Tensor] = [torch.zeros(())] * len(units)
        parameter = self.out.weight
        for start in range(0, len(order), batch_size):
            chosen = order[start:start + batch_size]
            width = len(units[chosen[0]][1])
            vectors = torch.zeros((len(chosen), width, self.shape.embedding_dim), dtype=parameter.dtype,
                                  device=parameter.device)
            real = torch.zeros((len(chosen), width), dtype=torch.bool, device=parameter.device)
            for position, index in enumerate(chosen):
                rows = list(units[index][1])
                vectors[position, :len(rows)] = embeddings[rows].to(vectors)
                real[position, :len(rows)] = True
            for position, value in zip(chosen, self(vectors, real)):
                values[position] = value
        owners = torch.tensor([owner for owner, _ in units], device=parameter.device)
        stacked = torch.stack(values)
        totals = torch.zeros(len(documents), dtype=stacked.dtype, device=stacked.device).index_add(0, owners, stacked)
        counts = torch.zeros(len(documents), dtype=stacked.dtype, device=stacked.device).index_add(
            0, owners, torch.ones_like(stacked))
        return totals / counts

    def tensors(self) -> Dict[str, torch.Tensor]:
        """The tensors to store in the head file, under :data:`TENSOR_PREFIX`."""
        return {TENSOR_PREFIX + name: value.detach().float().cpu().contiguous()
                for name, value in self.state_dict().items()}

    @classmethod
    def from_tensors(cls, shape: SentenceScorerShape, tensors: Dict[str, torch.Tensor]) -> "SentenceLevelScorer":
        """Rebuild from a head file's tensors (the prefixed keys; others are ignored), in eval mode.

        Raises:
            InputError: missing, unexpected or misshapen tensors for this shape.
        """
        module = cls(shape)
        own = {key[len(TENSOR_PREFIX):]: value for key, value in tensors.items() if key.startswith(TENSOR_PREFIX)}
        expected = module.state_dict()
        missing, unexpected = sorted(set(expected) - set(own)), sorted(set(own) - set(expected))
        if missing or unexpected:
            raise InputError(f"sentence scorer tensors do not fit its shape: missing {missing[:3]}, "
                             f"unexpected {unexpected[:3]}")
        for name, value in own.items():
            if tuple(value.shape) != tuple(expected[name].shape):
                raise InputError(f"sentence scorer tensor {name} has shape {tuple(value.shape)}, expected "
                                 f"{tuple(expected[name].shape)}")
        module.load_state_dict(own)
        return module.eval()


__all__ = ["SentenceLevelScorer", "SentenceScorerShape", "TENSOR_PREFIX", "window_starts"]
