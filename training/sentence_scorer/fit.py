"""Fitting the sentence-level term: group softmax loss, dev selection, and its weight beside the head.

The loss of a group is ``-log softmax(scores)[positive]`` over the positive, its permutations and its intrusions,
the contrastive form of the coherence paper's objective. The weight ``w`` of ``head + w * term`` is chosen on dev
(never on a test set) from a fixed grid by the main trainer's selection score, and folded into the term's last
layer and cosine scale, so the checkpoint simply adds the term.
"""

from __future__ import annotations

import copy
import random
from typing import Dict, List, Sequence, Tuple

import torch

from coherence_metric.toolkit import SentenceLevelScorer

from ..evaluation import DevResult, Span, dev_result
from .groups import EmbeddedGroups


def group_loss(scores: torch.Tensor, spans: Sequence[Span]) -> torch.Tensor:
    """Mean over groups of the positive's negative log-softmax among its group (scores laid out by ``spans``)."""
    losses = [-torch.log_softmax(scores[start:start + 1 + perms + intrusions], dim=0)[0]
              for start, perms, intrusions in spans]
    return torch.stack(losses).mean()


def train_epoch(module: SentenceLevelScorer, optimizer: torch.optim.Optimizer, groups: EmbeddedGroups,
                batch_groups: int, grad_clip: float, seed: int) -> float:
    """One pass over the groups in a seeded order; returns the mean loss."""
    module.train()
    order = list(range(len(groups.spans)))
    random.Random(seed).shuffle(order)
    total = 0.0
    for start in range(0, len(order), batch_groups):
        documents: List[List[int]] = []
        spans: List[Span] = []
        for index in order[start:start + batch_groups]:
            _, perms, intrusions = groups.spans[index]
            spans.append((len(documents), perms, intrusions))
            documents.extend(groups.group(index))
        loss = group_loss(module.score_documents(groups.embeddings, documents), spans)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), grad_clip)
        optimizer.step()
        total += float(loss.detach()) * len(spans)
    return total / len(order)


def term_scores(module: SentenceLevelScorer, groups: EmbeddedGroups) -> List[float]:
    """The term's score of every document, in eval mode."""
    module.eval()
    with torch.no_grad():
        return module.score_documents(groups.embeddings, groups.documents).tolist()


def choose_weight(base: Sequence[float], term: Sequence[float], spans: Sequence[Span], weights: Sequence[float],
                  with_intrusions: bool) -> Tuple[float, Dict[float, DevResult]]:
    """The grid weight whose ``base + w * term`` has the best dev selection score (the smallest on a tie)."""
    results = {weight: dev_result([b + weight * t for b, t in zip(base, term)], spans, with_intrusions)
               for weight in weights}
    best = max(sorted(results), key=lambda weight: results[weight].selection_score)
    return best, results


def folded(module: SentenceLevelScorer, weight: float) -> SentenceLevelScorer:
    """A copy whose output is ``weight`` times the module's (the read-out and the cosine scale multiplied)."""
    copied = copy.deepcopy(module).eval()
    with torch.no_grad():
        copied.out.weight.mul_(weight)
        copied.out.bias.mul_(weight)
        copied.scale.mul_(weight)
    return copied


__all__ = ["choose_weight", "folded", "group_loss", "term_scores", "train_epoch"]
