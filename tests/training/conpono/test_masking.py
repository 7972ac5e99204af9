"""Dynamic BERT masking for the auxiliary MLM loss."""

from __future__ import annotations

import torch

from coherence_metric.training.conpono.masking import IGNORE, mask_tokens, maskable_positions

MASK_ID, VOCAB = 103, 30522


def batch(rows: int = 64, length: int = 200, sep: int = 150):
    """[CLS] at 0, [SEP] at ``sep``, padding after it."""
    ids = torch.randint(1000, 2000, (rows, length), generator=torch.Generator().manual_seed(0))
    ids[:, 0], ids[:, sep], ids[:, sep + 1:] = 101, 102, 0
    special = torch.zeros_like(ids)
    special[:, 0], special[:, sep:] = 1, 1
    attention = torch.ones_like(ids)
    attention[:, sep + 1:] = 0
    return {"input_ids": ids, "attention_mask": attention, "special_tokens_mask": special}


def test_masking_follows_bert_and_never_touches_special_tokens_or_padding() -> None:
    tokens = batch()
    ids = tokens["input_ids"]
    masked, labels = mask_tokens(ids, maskable_positions(tokens), 0.15, MASK_ID, VOCAB,
                                 torch.Generator().manual_seed(1))
    chosen = labels != IGNORE
    assert not chosen[:, 0].any() and not chosen[:, 150:].any()
    assert torch.equal(masked[:, 150:], ids[:, 150:]) and torch.equal(masked[:, 0], ids[:, 0])
    assert torch.equal(labels[chosen], ids[chosen])  # labels are the original tokens
    assert torch.equal(masked[~chosen], ids[~chosen])  # unchosen tokens are untouched
    rate = float(chosen[:, 1:150].float().mean())
    assert 0.13 < rate < 0.17  # 64 x 149 maskable tokens at 15%
    as_mask = float((masked[chosen] == MASK_ID).float().mean())
    kept = float((masked[chosen] == ids[chosen]).float().mean())
    assert 0.76 < as_mask < 0.84 and 0.07 < kept < 0.13  # 80% [MASK], 10% unchanged (10% random)


def test_masks_are_fixed_by_the_seed_and_change_with_it() -> None:
    tokens = batch(4, 40, sep=30)
    maskable = maskable_positions(tokens)
    first = mask_tokens(tokens["input_ids"], maskable, 0.3, MASK_ID, VOCAB, torch.Generator().manual_seed(7))
    again = mask_tokens(tokens["input_ids"], maskable, 0.3, MASK_ID, VOCAB, torch.Generator().manual_seed(7))
    other = mask_tokens(tokens["input_ids"], maskable, 0.3, MASK_ID, VOCAB, torch.Generator().manual_seed(8))
    assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])
    assert not torch.equal(first[1], other[1])
