"""Overlapping sentence windows for texts longer than the model's ``max_length`` (``truncation="window"``).

Texts are cut at sentence boundaries, never mid-sentence, because a coherence model judges how sentences
follow each other; consecutive windows share about half their sentences so every transition between two
sentences is seen inside at least one window.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple


def sentence_windows(sentence_lengths: Sequence[int], budget: int) -> List[Tuple[int, int]]:
    """Spans ``[start, end)`` of consecutive sentences whose token counts fit in ``budget``.

    Each window takes as many sentences as fit; the next one starts halfway through it (at least one
    sentence later), so neighbouring windows overlap by about half. A single sentence longer than the
    budget becomes a window of its own (it will be truncated, and counted as such).

    Args:
        sentence_lengths: tokens per sentence, without special tokens.
        budget: tokens available per window (``max_length`` minus the special tokens).

    Returns:
        The windows in order; the last one always ends at the last sentence.
    """
    if budget < 1:
        raise ValueError("window budget must be at least one token")
    count = len(sentence_lengths)
    windows: List[Tuple[int, int]] = []
    start = 0
    while start < count:
        end, used = start, 0
        while end < count and used + sentence_lengths[end] <= budget:
            used += sentence_lengths[end]
            end += 1
        end = max(end, start + 1)
        windows.append((start, end))
        if end >= count:
            break
        start += max(1, (end - start) // 2)
    return windows
