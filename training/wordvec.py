"""Word vectors for the recurrent encoders (DisSent's BiLSTM, DiscoEval's BiGRU, the multi-view models).

The papers use GloVe or fastText, which cannot be downloaded here. The stand-in, named as ours: the input
embedding matrix of all-MiniLM-L6-v2 (30,522 WordPiece rows of 384 numbers), frozen, with its own
tokenizer. Units are therefore WordPiece sub-words, not words; [CLS]/[SEP] are never added, so a sentence
is exactly its word pieces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Sequence, Tuple

import torch
from torch import nn

from coherence_metric.toolkit import quiet_transformers

from .model_setup import backbone_folder

DEFAULT_WORD_VECTORS = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass
class WordVectors:
    """A tokenizer and its embedding matrix [V, D] (detached: never trained through this object)."""

    tokenizer: Any
    weights: torch.Tensor
    source: str

    @classmethod
    def load(cls, name_or_path: str = DEFAULT_WORD_VECTORS, revision: Any = None) -> "WordVectors":
        """Read the input embeddings of a Hugging Face encoder (local folder, cache, installed package, Hub)."""
        from transformers import AutoModel, AutoTokenizer



        folder = backbone_folder(name_or_path, revision)
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
            model = AutoModel.from_pretrained(str(folder), trust_remote_code=False)
        weights = model.get_input_embeddings().weight.detach().clone().float()
        return cls(tokenizer=tokenizer, weights=weights, source=str(name_or_path))

    @property
    def dim(self) -> int:
        """Vector size D."""
        return int(self.weights.shape[1])

    @property
    def pad_id(self) -> int:
        """The padding token's row (its vector is never read: lengths mask it out)."""
        pad = self.tokenizer.pad_token_id
        return int(pad) if pad is not None else 0

    def embedding(self, trainable: bool = False) -> nn.Embedding:
        """An ``nn.Embedding`` initialised from the matrix, frozen unless ``trainable``."""
        return nn.Embedding.from_pretrained(self.weights.clone(), freeze=not trainable, padding_idx=self.pad_id)

    def token_ids(self, sentences: Sequence[str], max_length: int = 64) -> Tuple[torch.Tensor, torch.Tensor]:
        """Word-piece ids [B, T] (right-padded) and lengths [B] (at least 1: an empty sentence is one pad)."""
        pieces: List[List[int]] = [
            self.tokenizer(sentence, add_special_tokens=False, truncation=True, max_length=max_length)["input_ids"]
            for sentence in sentences
        ]
        longest = max([len(ids) for ids in pieces] + [1])
        ids = torch.full((len(pieces), longest), self.pad_id, dtype=torch.long)
        for row, sentence_ids in enumerate(pieces):
            if sentence_ids:
                ids[row, : len(sentence_ids)] = torch.tensor(sentence_ids, dtype=torch.long)
        lengths = torch.tensor([max(len(sentence_ids), 1) for sentence_ids in pieces], dtype=torch.long)
        return ids, lengths


__all__ = ["DEFAULT_WORD_VECTORS", "WordVectors"]
