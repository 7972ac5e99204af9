"""The four criteria of seed 002, section 4, as functions of decoder outputs and targets.

NSP = -log p(s_{t-1}|s_t) - log p(s_{t+1}|s_t), NL = -log p(l_t|s_t), SPP = -log p(sp_t|s_t) - log p(pp_t|s_t),
SDT = -log p(st_t|s_t) - log p(dt_t|s_t). A bag-of-words log-probability is the authors' code's
(``decoders.bag_of_words``): one softmax over the vocabulary, and the bag's log-probability is the mean
log-probability of its words, ``sum_w c_w log softmax(z)_w / sum_w c_w`` (normalised by the bag's size, so
long neighbours do not outweigh short ones). Each criterion is averaged over the batch rows it applies to.
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F


def bag_of_words_loss(logits: torch.Tensor, counts: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Mean over kept rows of ``-sum_w counts[w] * log_softmax(logits)[w] / sum_w counts[w]``.

    Args:
        logits: decoder outputs [B, V].
        counts: word counts of each target bag [B, V] (non-negative).
        mask: [B] booleans, False for rows without this target (e.g. the first sentence has no previous one);
            rows whose bag is empty are dropped as well.

    Returns:
        A scalar; 0 (still attached to ``logits``, so backward works) when no row is kept.
    """
    sizes = counts.sum(dim=1)
    keep = sizes > 0
    if mask is not None:
        keep = keep & mask.bool()
    if not bool(keep.any()):
        return logits.sum() * 0.0
    log_probabilities = F.log_softmax(logits[keep], dim=-1)
    per_row = -(log_probabilities * counts[keep]).sum(dim=1) / sizes[keep]
    return per_row.mean()


def classification_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy ``-log softmax(logits)[label]`` over the batch (NL and each half of SPP)."""
    return F.cross_entropy(logits, labels)


def nsp_loss(previous_logits: torch.Tensor, previous_counts: torch.Tensor, previous_mask: torch.Tensor,
             next_logits: torch.Tensor, next_counts: torch.Tensor, next_mask: torch.Tensor) -> torch.Tensor:
    """NSP: previous-sentence bag loss + next-sentence bag loss (two separate decoders, p_theta and p_phi)."""
    return (bag_of_words_loss(previous_logits, previous_counts, previous_mask)
            + bag_of_words_loss(next_logits, next_counts, next_mask))


def nl_loss(level_logits: torch.Tensor, levels: torch.Tensor) -> torch.Tensor:
    """NL: cross-entropy of the nesting level."""
    return classification_loss(level_logits, levels)


def spp_loss(sentence_logits: torch.Tensor, sentence_buckets: torch.Tensor,
             paragraph_logits: torch.Tensor, paragraph_buckets: torch.Tensor) -> torch.Tensor:
    """SPP: cross-entropy of the sentence's bucket in its paragraph + of the paragraph's bucket in the article."""
    return classification_loss(sentence_logits, sentence_buckets) + classification_loss(paragraph_logits,
                                                                                         paragraph_buckets)


def sdt_loss(section_logits: torch.Tensor, section_counts: torch.Tensor, section_mask: torch.Tensor,
             title_logits: torch.Tensor, title_counts: torch.Tensor) -> torch.Tensor:
    """SDT: section-heading bag loss (masked in the lead, which has no heading) + article-title bag loss."""
    return bag_of_words_loss(section_logits, section_counts, section_mask) + bag_of_words_loss(title_logits,
                                                                                              title_counts)


__all__ = ["bag_of_words_loss", "classification_loss", "nl_loss", "nsp_loss", "sdt_loss", "spp_loss"]
