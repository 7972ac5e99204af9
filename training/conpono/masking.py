"""Dynamic masking for the auxiliary masked-language-model loss (seed 001, section 2.3).

"We also use a masked language model objective similar to BERT but dynamically mask during training for
different masks each epoch": masks are drawn when a batch is built, from a generator seeded with the batch's
stream position, so a position always gets the same masks (exact resume) and a text seen again at another
position gets new ones. The BERT rule: each maskable token is chosen with probability ``probability``;
a chosen token becomes the mask token 80% of the time, a random vocabulary token 10%, and stays 10%.
Special tokens ([CLS], [SEP]) and padding are never chosen. (The reference code masks 10% of tokens;
the paper says "similar to BERT", whose rate is 15%: the recipes use 0.15, and the rate is a setting.)
"""

from __future__ import annotations

from typing import Tuple

import torch

IGNORE = -100
"""The label of a token the MLM loss skips (PyTorch's cross-entropy default)."""


def mask_tokens(input_ids: torch.Tensor, maskable: torch.Tensor, probability: float, mask_id: int, vocab_size: int,
                generator: torch.Generator) -> Tuple[torch.Tensor, torch.Tensor]:
    """BERT-style masking of a batch of token ids.

    Args:
        input_ids: [n, T] token ids.
        maskable: [n, T] bool, True where a token may be chosen (not special, not padding).
        probability: chance that a maskable token is chosen.
        mask_id: the tokenizer's mask token.
        vocab_size: random replacements are drawn from ``range(vocab_size)``.
        generator: the only source of randomness.

    Returns:
        The masked ids (a new tensor) and the labels: the original id where chosen, :data:`IGNORE` elsewhere.
    """
    draws = torch.rand(input_ids.shape, generator=generator)
    chosen = (draws < probability) & maskable
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORE))
    action = torch.rand(input_ids.shape, generator=generator)
    to_mask = chosen & (action < 0.8)
    to_random = chosen & (action >= 0.8) & (action < 0.9)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator, dtype=input_ids.dtype)
    masked = torch.where(to_mask, torch.full_like(input_ids, mask_id), input_ids)
    masked = torch.where(to_random, random_ids, masked)
    return masked, labels


def maskable_positions(tokens: dict) -> torch.Tensor:
    """True at real, non-special tokens of a tokenizer output (``special_tokens_mask`` and ``attention_mask``)."""
    maskable = tokens["attention_mask"].bool()
    if "special_tokens_mask" in tokens:
        maskable &= ~tokens["special_tokens_mask"].bool()
    return maskable


__all__ = ["IGNORE", "mask_tokens", "maskable_positions"]
