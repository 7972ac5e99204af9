"""The trained module: a transformers encoder g_theta, the per-distance weights, and an optional MLM head.

The encoder is the backbone's base model (``AutoModel``: BERT, MiniLM, RoBERTa, ...), pooled by the mean
over its last layer's tokens (sentence-transformers' pooling, the one all-MiniLM-L6-v2 was trained with)
or by the [CLS] position. The paper uses BERT's "pooled" output, a dense + tanh layer over [CLS]; we read
[CLS] or the mean directly, so the vectors the objective shapes are exactly those DiscoEval later reads
(a difference from the paper, named in the recipes).

MLM head. A backbone saved as a bare encoder (``BertModel``: all-MiniLM-L6-v2, the tiny test BERT) has no
MLM head. We take the head of ``AutoModelForMaskedLM`` built from the same folder: for BERT that is
``BertForMaskedLM``'s ``cls`` head, loaded from the checkpoint where it is there (``bert-base-uncased``)
and freshly initialised where it is not (transform dense + LayerNorm and the output bias; the output
matrix is the encoder's input embedding matrix, tied as in BERT). The encoder itself stays the
``AutoModel`` one, pooler included, so the saved folder reloads with no missing weights.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import torch
from torch import nn

from coherence_metric.errors import InputError
from coherence_metric.toolkit import quiet_transformers

from .examples import distances
from .inputs import Tokens

logger = logging.getLogger("coherence_metric.training")

POOLINGS = ("mean", "cls")
_MODEL_KEYS = ("input_ids", "attention_mask", "token_type_ids")


def mlm_head_of(masked_lm: nn.Module) -> nn.Module:
    """The prediction head of an ``AutoModelForMaskedLM`` model (BERT family: ``cls``, RoBERTa family: ``lm_head``)."""
    for name in ("cls", "lm_head"):
        head = getattr(masked_lm, name, None)
        if isinstance(head, nn.Module):
            return head
    raise InputError(f"no MLM head found on {type(masked_lm).__name__}: objective.mlm_weight > 0 needs a BERT- or "
                     "RoBERTa-style backbone; set objective.mlm_weight: 0 to train without the MLM loss")


def load_backbone(folder: Path, with_mlm: bool) -> Tuple[Any, Optional[nn.Module]]:
    """The encoder (``AutoModel``) and, when asked, an MLM head whose output matrix is the encoder's embeddings.

    Raises:
        InputError: the folder holds no loadable model, or no MLM head can be built for it.
    """
    from transformers import AutoModel, AutoModelForMaskedLM

    try:
        with quiet_transformers():
            encoder = AutoModel.from_pretrained(str(folder), trust_remote_code=False)
            masked_lm = AutoModelForMaskedLM.from_pretrained(str(folder), trust_remote_code=False) if with_mlm else None
    except (OSError, ValueError) as error:
        raise InputError(f"cannot load the backbone in {folder}: {str(error).splitlines()[0]}") from None
    if masked_lm is None:
        return encoder, None
    head = mlm_head_of(masked_lm)
    decoder = masked_lm.get_output_embeddings()
    if decoder is None or decoder.weight.shape != encoder.get_input_embeddings().weight.shape:
        raise InputError(f"the MLM head of {folder} does not match its input embeddings; set objective.mlm_weight: 0")
    decoder.weight = encoder.get_input_embeddings().weight  # tie to *our* encoder, as BERT ties the head
    return encoder, head


class ConponoModel(nn.Module):
    """g_theta plus W_k (or the uni-encoder's w_k) plus the optional MLM head; every trained weight lives here.

    Args:
        encoder: the transformers base model.
        mlm_head: maps [M, H] hidden states to [M, V] vocabulary logits, or None.
        encoding: ``combined``, ``isolated`` or ``uni`` (see :mod:`coherence_metric.training.conpono.inputs`).
        max_distance: K; there are 2K weight matrices (or vectors).
        pooling: ``mean`` or ``cls``.
        seed: seeds the initialisation of the distance weights.
    """

    encoder: nn.Module
    mlm_head: Optional[nn.Module]

    def __init__(self, encoder: nn.Module, mlm_head: Optional[nn.Module], encoding: str, max_distance: int,
                 pooling: str, seed: int = 0) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise InputError(f"model.pooling must be one of {', '.join(POOLINGS)}, got {pooling!r}")
        self.encoder = encoder
        self.mlm_head = mlm_head
        self.encoding = encoding
        self.max_distance = max_distance
        self.distance_list = distances(max_distance)
        self.pooling = pooling
        config: Any = encoder.config
        hidden = int(config.hidden_size)
        generator = torch.Generator().manual_seed(seed)
        # Truncated normal, std 0.02: the reference code's initialiser for its cpc_weights.
        shape = (2 * max_distance, hidden) if encoding == "uni" else (2 * max_distance, hidden, hidden)
        weights = torch.empty(shape)
        nn.init.trunc_normal_(weights, std=0.02, a=-0.04, b=0.04, generator=generator)
        self.distance_weights = nn.Parameter(weights)
        for name, parameter in encoder.named_parameters():
            if name.startswith("pooler."):  # BERT's pooler never reaches the loss: keep it as loaded
                parameter.requires_grad_(False)

    def hidden_states(self, tokens: Tokens, input_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        """The last layer's states [n, T, H]; ``input_ids`` replaces the tokens' ids (the masked ones)."""
        arguments: Dict[str, Any] = {key: tokens[key] for key in _MODEL_KEYS if key in tokens}
        if input_ids is not None:
            arguments["input_ids"] = input_ids
        encoder: Any = self.encoder
        return encoder(**arguments).last_hidden_state

    def pool(self, states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """[n, H] sentence vectors: the mask-weighted mean over tokens, or the first position."""
        if self.pooling == "cls":
            return states[:, 0]
        mask = attention_mask.unsqueeze(-1).to(states.dtype)
        return (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)

    def mlm_logits(self, states: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """Vocabulary logits at the masked positions only ([M, V]): the head never runs over unmasked tokens."""
        head: Any = self.mlm_head
        if head is None:
            raise InputError("this model has no MLM head (it was built with objective.mlm_weight: 0)")
        return head(states[labels >= 0])

    def save_encoder(self, folder: Path) -> None:
        """The encoder in Hugging Face format (``AutoModel.from_pretrained(folder)`` reloads it)."""
        encoder: Any = self.encoder
        with quiet_transformers():
            encoder.save_pretrained(str(folder))


__all__ = ["POOLINGS", "ConponoModel", "load_backbone", "mlm_head_of"]
