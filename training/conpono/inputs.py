"""Token inputs of a batch of CONPONO examples in each of the paper's three encodings (section 2.1).

- ``combined`` (CONPONO itself, eq. 1): the anchor alone, ``[CLS] anchor [SEP]``, gives c_i; each candidate
  is encoded *together with* the anchor, ``[CLS] anchor [SEP] candidate [SEP]`` with segment ids 0 then 1
  ("we concatenate the input tokens and separate the two spans with a [SEP] token to mimic the BERT
  format"), giving t_{i+k} = g(s_i, s_{i+k}).
- ``isolated`` (CPC-like): c_i from the anchor alone, t from ``[CLS] candidate [SEP]`` alone: no
  cross-attention between the two.
- ``uni``: only the pairs ``[CLS] anchor [SEP] candidate [SEP]``; each pair vector is scored with a class
  vector w_k, and there is no separate anchor encoding.

The tokenizer's own pair encoding builds the layouts, so a non-BERT backbone gets its own special tokens.
Pairs longer than ``max_length`` are cut with ``longest_first`` (the longer span loses tokens first), so
neither the anchor nor the candidate disappears.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import torch

from .examples import ConponoExample, distance_row

ENCODINGS = ("combined", "isolated", "uni")

Tokens = Dict[str, torch.Tensor]
"""``input_ids``, ``attention_mask``, ``special_tokens_mask`` and (when the tokenizer has them) ``token_type_ids``."""


@dataclass
class ConponoInputs:
    """The tensors of a batch of B examples with N candidates each.

    Attributes:
        anchors: the anchors alone, [B, T]; None for the uni-encoder.
        candidates: the candidate inputs, [B * N, T], example-major (rows b*N .. b*N+N-1 are example b's).
        labels: [B, 2K] candidate index of each distance's true target, -1 where that distance has no loss.
        anchor_mlm_labels / candidate_mlm_labels: MLM targets (-100 = not masked), set by masking.
    """

    anchors: Optional[Tokens]
    candidates: Tokens
    labels: torch.Tensor
    anchor_mlm_labels: Optional[torch.Tensor] = None
    candidate_mlm_labels: Optional[torch.Tensor] = None

    @property
    def batch_size(self) -> int:
        """B."""
        return int(self.labels.shape[0])

    @property
    def candidates_per_example(self) -> int:
        """N."""
        return int(self.candidates["input_ids"].shape[0]) // self.batch_size


def _tokenize(tokenizer: Any, first: List[str], second: Optional[List[str]], max_length: int) -> Tokens:
    encoded = tokenizer(first, second, truncation="longest_first" if second is not None else True,
                        max_length=max_length, padding=True, return_tensors="pt", return_special_tokens_mask=True)
    return {key: value for key, value in encoded.items()}


def build_inputs(tokenizer: Any, examples: Sequence[ConponoExample], encoding: str, max_distance: int,
                 max_length: int) -> ConponoInputs:
    """Tokenize a batch of examples in one of :data:`ENCODINGS`.

    Args:
        tokenizer: a Hugging Face tokenizer with pair encoding.
        examples: B examples with the same number of candidates.
        encoding: ``combined``, ``isolated`` or ``uni``.
        max_distance: K, for the label rows.
        max_length: tokens per input, special tokens included.

    Returns:
        The batch's tensors (no masking yet).
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}")
    sizes = {len(example.candidates) for example in examples}
    if len(sizes) != 1:
        raise ValueError(f"examples of one batch must have the same number of candidates, got {sorted(sizes)}")
    texts = [candidate.text for example in examples for candidate in example.candidates]
    repeated = [example.anchor for example in examples for _ in example.candidates]
    if encoding == "isolated":
        candidates = _tokenize(tokenizer, texts, None, max_length)
    else:
        candidates = _tokenize(tokenizer, repeated, texts, max_length)
    anchors = None if encoding == "uni" else _tokenize(tokenizer, [example.anchor for example in examples], None,
                                                       max_length)
    labels = torch.full((len(examples), 2 * max_distance), -1, dtype=torch.long)
    for row, example in enumerate(examples):
        for k, index in example.targets.items():
            labels[row, distance_row(k, max_distance)] = index
    return ConponoInputs(anchors=anchors, candidates=candidates, labels=labels)


__all__ = ["ENCODINGS", "ConponoInputs", "Tokens", "build_inputs"]
