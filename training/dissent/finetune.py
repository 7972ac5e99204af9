"""The paper's second model (section 3.2): a pretrained transformer fine-tuned on marker prediction.

As in the paper, S1 and S2 are encoded together as one pair ("[CLS] S1 [SEP] S2 [SEP]") and the
[CLS] position feeds a linear layer over the markers. The paper fine-tunes BERT-base; our CPU recipe
fine-tunes all-MiniLM-L6-v2 and the tests a tiny random BERT; the GPU config names bert-base-uncased.

Sentence vectors for DiscoEval come from one sentence at a time, mean-pooled over its tokens (the
pooling all-MiniLM-L6-v2 was trained with); the paper evaluates the fine-tuned BERT on PDTB by
fine-tuning further, not as a frozen encoder, so this choice is ours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import torch
from torch import nn

from coherence_metric.errors import InputError
from coherence_metric.toolkit import quiet_transformers

from ..model_setup import backbone_folder


def mean_pool(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of the token states where ``mask`` is 1 ([B, T, D], [B, T] -> [B, D])."""
    weights = mask.to(hidden.dtype)[:, :, None]
    return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


class PairTransformer(nn.Module):
    """A Hugging Face encoder with a linear marker classifier on the pair's first ([CLS]) position."""

    kind = "transformer"

    def __init__(self, backbone: Any, tokenizer: Any, classes: int, max_length: int = 128) -> None:
        super().__init__()
        if classes < 2:
            raise InputError(f"a marker set needs at least 2 markers, got {classes}")
        self.backbone = backbone
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.head = nn.Linear(int(backbone.config.hidden_size), classes)
        self.config: Dict[str, Any] = {"classes": classes, "max_length": max_length}

    @classmethod
    def from_pretrained(cls, folder: str, classes: int, max_length: int = 128) -> "PairTransformer":
        """Load a backbone and its tokenizer from a local folder, installed package or the HF cache."""
        from transformers import AutoModel, AutoTokenizer



        path = backbone_folder(folder)
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(str(path), trust_remote_code=False)
            backbone = AutoModel.from_pretrained(str(path), trust_remote_code=False)
        return cls(backbone, tokenizer, classes, max_length)

    @property
    def device(self) -> torch.device:
        """Where the parameters are."""
        return next(self.parameters()).device

    def forward(self, s1: List[str], s2: List[str]) -> torch.Tensor:
        """Marker logits [B, classes] from the pair encoding's first position."""
        batch = self.tokenizer(s1, s2, padding=True, truncation=True, max_length=self.max_length,
                               return_tensors="pt").to(self.device)
        states = self.backbone(**batch).last_hidden_state
        return self.head(states[:, 0])

    def encode(self, texts: List[str]) -> torch.Tensor:
        """Sentence vectors: mean of one sentence's token states (special tokens included)."""
        batch = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                               return_tensors="pt").to(self.device)
        states = self.backbone(**batch).last_hidden_state
        return mean_pool(states, batch["attention_mask"])

    def save_backbone(self, folder: Path) -> None:
        """The backbone and tokenizer in Hugging Face format (loadable without this package)."""
        self.backbone.save_pretrained(str(folder))
        self.tokenizer.save_pretrained(str(folder))


__all__ = ["PairTransformer", "mean_pool"]
