"""The local term: each adjacent sentence pair of a text scored alone by the text's own model, and its mix with the
whole-text score (CoUDA's global + local scoring).

A whole-text score says how coherent a text is; the scores of its transitions say where it holds and where it breaks.
A checkpoint with ``local_weight`` w scores a text as ``(1 - w) * whole + w * mean(transition scores)``; its
transition scores are the pair scores themselves, so ``ScoreResult.transitions`` shows the numbers the score was
made of. A one-sentence text has no transition: its score is its whole-text score, and its transitions are empty.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

from .transitions import transition_pairs


def adjacent_pairs(sentence_lists: Sequence[Sequence[str]]) -> Tuple[List[str], List[int]]:
    """Every adjacent sentence pair of every text as one two-sentence text (joined with a space, as the scorer
    joins sentence lists), and the index of the text each pair belongs to, in order."""
    pairs: List[str] = []
    owners: List[int] = []
    for owner, sentences in enumerate(sentence_lists):
        text_pairs = transition_pairs(list(sentences))
        pairs.extend(text_pairs)
        owners.extend([owner] * len(text_pairs))
    return pairs, owners


def group_by_owner(values: Sequence[float], owners: Sequence[int], n_texts: int) -> List[List[float]]:
    """The pair scores regrouped per text (a text without pairs gets an empty list)."""
    grouped: List[List[float]] = [[] for _ in range(n_texts)]
    for owner, value in zip(owners, values):
        grouped[owner].append(float(value))
    return grouped


def mix(whole: Sequence[float], transitions: Sequence[Sequence[float]], weight: float) -> List[float]:
    """``(1 - weight) * whole + weight * mean(transitions)`` per text; a text without transitions keeps ``whole``."""
    return [value if not pairs else (1.0 - weight) * value + weight * (sum(pairs) / len(pairs))
            for value, pairs in zip(whole, transitions)]


__all__ = ["adjacent_pairs", "group_by_owner", "mix"]
