"""Grouping token sequences into forward passes: longest first, under a count and a padded-token budget.

Both passes of scoring use it, the document pass (texts or their windows through the checkpoint) and the sentence
pass (every sentence through the pretrained encoder), so ``max_tokens_per_batch`` bounds the memory of both.
Sorting by length keeps padding small, and the longest batch comes first so a memory blow-up shows at once.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

#: Padded tokens per forward pass unless a scorer is told otherwise.
DEFAULT_MAX_TOKENS_PER_BATCH = 8192


def plan_batches(lengths: Sequence[int], max_tokens: int, max_items: Optional[int] = None) -> List[List[int]]:
    """Indices grouped into batches, longest first (ties in input order).

    Args:
        lengths: tokens per sequence.
        max_tokens: padded tokens per batch (batch size times its longest sequence); a sequence longer than this
            is a batch of its own.
        max_items: sequences per batch; None for no limit beyond ``max_tokens``.

    Returns:
        Batches of indices into ``lengths``; every index appears once.
    """
    order = sorted(range(len(lengths)), key=lambda index: (-lengths[index], index))
    batches: List[List[int]] = []
    current: List[int] = []
    for index in order:
        longest = lengths[current[0]] if current else lengths[index]
        full = (max_items is not None and len(current) >= max_items) or (len(current) + 1) * longest > max_tokens
        if current and full:
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


__all__ = ["DEFAULT_MAX_TOKENS_PER_BATCH", "plan_batches"]
