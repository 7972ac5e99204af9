"""What both multi-view objectives share: the two views, tokenised contiguous batches, held-out blocks, saving.

A subclass supplies the loss, the held-out numbers and (generative) the orthonormal update; this class turns
stream positions into token batches, estimates the post-processing's principal components and writes the
folder that ``trained:FOLDER`` loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import torch

from ..wordvec import WordVectors
from .data import Block, SentenceStream
from .encoder import MultiViewEncoder, save_encoder
from .principal import exact_top_component


@dataclass
class TokenBatch:
    """A block as tensors: word-piece ids [N, T], lengths [N] and document indices [N]."""

    ids: torch.Tensor
    lengths: torch.Tensor
    documents: torch.Tensor

    def to(self, device: str) -> "TokenBatch":
        """The same batch on ``device``."""
        return TokenBatch(self.ids.to(device), self.lengths.to(device), self.documents.to(device))


class MultiViewObjective:
    """Base of :class:`GenerativeObjective` and :class:`DiscriminativeObjective`
    (``coherence_metric.training.loop.Objective``).

    Args:
        word_vectors: the frozen word vectors and their tokenizer.
        train: the training stream (train split).
        dev: the held-out stream (dev split); its first ``eval_batches`` blocks are the held-out set and the
            sentences the saved principal components are estimated from.
        hidden: units per direction of the bi-GRU (d in the paper).
        max_tokens: word pieces kept per sentence.
        eval_batches: held-out blocks per evaluation.
        pc_sentences: held-out sentences the saved principal components are estimated from.
        device: where the model runs.
        seed: mixes into the per-position sampling of subclasses.
    """

    name = "multiview"

    def __init__(self, word_vectors: WordVectors, train: SentenceStream, dev: SentenceStream, hidden: int,
                 max_tokens: int, eval_batches: int, pc_sentences: int, device: str = "cpu", seed: int = 0,
                 details: Optional[Mapping[str, Any]] = None) -> None:
        self.word_vectors = word_vectors
        self.train_stream = train
        self.dev_blocks: List[Block] = dev.fixed_blocks(eval_batches)
        self.max_tokens = max_tokens
        self.pc_sentences = pc_sentences
        self.device = device
        self.seed = seed
        self.details = dict(details or {})
        self.encoder = MultiViewEncoder(word_vectors.weights, hidden)
        self.module: torch.nn.Module = self.encoder

    def tokens(self, block: Block) -> TokenBatch:
        """A block's word pieces (at most ``max_tokens`` per sentence)."""
        ids, lengths = self.word_vectors.token_ids(block.sentences, self.max_tokens)
        return TokenBatch(ids, lengths, torch.tensor(block.documents, dtype=torch.long))

    def block(self, position: int) -> Block:
        """The training block at a stream position."""
        return self.train_stream.block(position)

    def after_step(self) -> None:
        """Nothing by default; the generative objective keeps its decoder orthonormal here."""

    # ---------------------------------------------------------------------------------------- saving

    def principal_components(self) -> Dict[str, torch.Tensor]:
        """The top principal direction of each view under each pooling, over held-out sentences (for WR)."""
        sentences = [sentence for block in self.dev_blocks for sentence in block.sentences][: self.pc_sentences]
        pooled: Dict[str, List[torch.Tensor]] = {}
        for start in range(0, len(sentences), 256):
            ids, lengths = self.word_vectors.token_ids(sentences[start:start + 256], self.max_tokens)
            for key, vectors in self.encoder.every_pooling(ids.to(self.device), lengths.to(self.device)).items():
                pooled.setdefault(key, []).append(vectors)
        return {key: exact_top_component(torch.cat(rows)).cpu() for key, rows in pooled.items()}

    def save(self, folder: Path) -> None:
        """Weights, word vectors, principal components, tokenizer and ``trained_encoder.json``."""
        was_training = self.module.training
        self.module.eval()
        with torch.no_grad():
            components = self.principal_components()
        self.module.train(was_training)
        details = {"objective": self.name, "word_vectors": self.word_vectors.source,
                   "max_tokens": self.max_tokens, **self.details}
        save_encoder(folder, self.encoder, self.word_vectors.tokenizer, components, details)

    def sampling_generator(self, position: int) -> torch.Generator:
        """A generator for the random draws of one position (the same in every run)."""
        return torch.Generator().manual_seed(self.seed * 1_000_003 + position)


def mean_of(records: List[Tuple[float, float]]) -> float:
    """Weighted mean of (value, weight) pairs; 0 when the weights sum to 0."""
    total = sum(weight for _, weight in records)
    return sum(value * weight for value, weight in records) / total if total else 0.0


__all__ = ["MultiViewObjective", "TokenBatch", "mean_of"]
