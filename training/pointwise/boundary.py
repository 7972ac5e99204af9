"""A boundary head read from the document pass, trained beside the whole-text score.

The transition model (``tm-minilm-2026.11``) sees sentence order better than the default, but as a second model it
triples the scoring time. Here the document pass itself is taught order: each sentence's vector is the mean of its
last-layer token states in the pass that gives the whole-text score, a small head reads ``[a, b, a * b, a - b]`` of
each adjacent pair (``a`` before ``b``, so order is visible) and is trained to give the transition model's logit for
that boundary (distillation) and to rank each positive above its own negatives in mean boundary logit. The head's
gradient flows into every trained encoder layer, so the shared encoder learns where a text breaks; the whole-text score
is what the checkpoint ships, the head is a training signal only (``PointwiseObjective.save`` writes the model alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import torch
from torch import nn

from coherence_metric import CoherenceModel
from coherence_metric.toolkit import autocast_context, pad_batch, plan_batches, pool


def sentence_token_ids(tokenizer: Any, sentences: Sequence[str], max_length: int) -> Tuple[List[int], List[int]]:
    """The text's token ids as the scorer and the trainer build them (sentences joined with one space, cut at
    ``max_length``) and, for each token, the index of the sentence it belongs to (-1 for special tokens). Needs a fast
    tokenizer (character offsets)."""
    joined = " ".join(sentences)
    starts: List[int] = []
    cursor = 0
    for sentence in sentences:
        starts.append(cursor)
        cursor += len(sentence) + 1
    encoded = tokenizer(joined, truncation=True, max_length=max_length, return_offsets_mapping=True,
                        return_special_tokens_mask=True, verbose=False)
    owners: List[int] = []
    current = 0
    for (start, end), special in zip(encoded["offset_mapping"], encoded["special_tokens_mask"]):
        if special or end <= start:
            owners.append(-1)
            continue
        while current + 1 < len(starts) and start >= starts[current + 1]:
            current += 1
        owners.append(current)
    return list(encoded["input_ids"]), owners


def sentence_means(states: torch.Tensor, owners: Sequence[int]) -> torch.Tensor:
    """[k, H]: the mean state of each sentence's tokens (``states`` [T, H] of one unpadded-first row, ``owners`` its
    tokens' sentence indices, -1 for special tokens); the k sentences with a token inside the pass, a prefix."""
    index = torch.tensor(list(owners), device=states.device)
    keep = index >= 0
    if not bool(keep.any()):
        return states.new_zeros((0, states.shape[-1]))
    count = int(index.max().item()) + 1
    rows = states[: len(owners)][keep].float()
    sums = torch.zeros((count, states.shape[-1]), device=states.device).index_add(0, index[keep], rows)
    sizes = torch.bincount(index[keep], minlength=count).clamp(min=1).unsqueeze(-1)
    return sums / sizes


def boundary_features(vectors: torch.Tensor) -> torch.Tensor:
    """``[a, b, a * b, a - b]`` of each adjacent pair of sentence vectors ([k - 1, 4H]; empty for one sentence)."""
    a, b = vectors[:-1], vectors[1:]
    return torch.cat([a, b, a * b, a - b], dim=-1)


class BoundaryHead(nn.Module):
    """One logit per boundary from the features of its two sentences."""

    def __init__(self, hidden: int, width: int = 256) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4 * hidden, width), nn.GELU(), nn.Linear(width, 1))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.layers(features).squeeze(-1)


def scores_and_boundaries(model: CoherenceModel, head: BoundaryHead, tokenizer: Any,
                          texts: Sequence[Sequence[str]], max_length: int, budget: Optional[int], dtype: str,
                          device: torch.device) -> Tuple[torch.Tensor, List[torch.Tensor]]:
    """Whole-text scores [N] (as ``model(input_ids, mask)`` gives them) and each text's boundary logits, from one
    pass per length-sorted batch under ``budget`` padded tokens (None: one pass); a boundary counts only when both
    its sentences have a token inside ``max_length``."""
    encoded = [sentence_token_ids(tokenizer, list(text), max_length) for text in texts]
    lengths = [len(ids) for ids, _ in encoded]
    passes = [list(range(len(texts)))] if budget is None else plan_batches(lengths, budget, limit=max_length)
    logits: List[torch.Tensor] = [torch.zeros(0, device=device)] * len(texts)
    parts: List[torch.Tensor] = []
    right = getattr(tokenizer, "padding_side", "right") == "right"
    with autocast_context(dtype, device):
        for chunk in passes:
            padded = pad_batch(tokenizer, [encoded[index][0] for index in chunk], limit=max_length)
            mask = padded["attention_mask"].to(device)
            hidden = model.backbone(input_ids=padded["input_ids"].to(device), attention_mask=mask).last_hidden_state
            parts.append(model.head(pool(hidden, mask, model.pooling).to(model.head.weight.dtype)).squeeze(-1).float())
            for row, index in enumerate(chunk):
                owners = encoded[index][1]
                states = hidden[row] if right else hidden[row, hidden.shape[1] - len(owners):]
                vectors = sentence_means(states, owners)
                if vectors.shape[0] > 1:
                    logits[index] = head(boundary_features(vectors)).float()
    order = torch.tensor([index for chunk in passes for index in chunk], device=device)
    scores = torch.empty(len(texts), device=device).index_put((order,), torch.cat(parts))
    return scores, logits


@dataclass
class BoundaryLosses:
    """The head's two losses over a step's texts."""

    distillation: torch.Tensor
    ranking: torch.Tensor


def boundary_losses(logits: Sequence[torch.Tensor], targets: Sequence[Sequence[float]],
                    owner: Sequence[int], n_positives: int, margin: float) -> BoundaryLosses:
    """Mean squared difference to the teacher's logit over every boundary the head reads, and a margin ranking of
    each positive above each of its own negatives in mean boundary logit (texts ``[positives..., negatives...]``,
    ``owner[j]`` the positive of negative j; a pair where either text has no boundary is skipped)."""
    device = logits[0].device if logits else torch.device("cpu")
    predicted, wanted = [], []
    for values, target in zip(logits, targets):
        count = min(len(values), len(target))
        if count:
            predicted.append(values[:count])
            wanted.append(torch.tensor(list(target[:count]), dtype=torch.float32, device=device))
    distillation = (nn.functional.mse_loss(torch.cat(predicted), torch.cat(wanted)) if predicted
                    else torch.zeros((), device=device))
    means = [values.mean() if len(values) else None for values in logits]
    gaps = []
    for row, position in enumerate(owner):
        positive, negative = means[position], means[n_positives + row]
        if positive is not None and negative is not None:
            gaps.append(torch.relu(margin - (positive - negative)))
    ranking = torch.stack(gaps).mean() if gaps else torch.zeros((), device=device)
    return BoundaryLosses(distillation, ranking)


__all__ = ["BoundaryHead", "BoundaryLosses", "boundary_features", "boundary_losses", "scores_and_boundaries",
           "sentence_means", "sentence_token_ids"]
