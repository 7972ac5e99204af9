"""What a student learns from a teacher's stored scores: the target of each training text, capped where the
teacher is known to be wrong, and the two losses that use them.

A lead (a text's first sentences) whose teacher score is above its whole text's gets the whole's score as its target:
the recipe's truncation rule says a text cut short is no better than the whole, and the teacher breaks that rule on
most long texts (a lone first sentence beats the whole on 84% of dev's long texts), so copying it would teach the
student to prefer outputs that stop early. A lead whose whole has no stored score gets no target.
"""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence

import torch

from .pool import text_key


def stored_targets(texts: Sequence[Sequence[str]], table: Mapping[str, float],
                   capped_by: Sequence[Optional[int]], cap_margin: float = 0.0) -> List[Optional[float]]:
    """The teacher's score of each text (its sentences joined with one space, as the scorer reads them), or None
    where the table has none; text ``i`` with ``capped_by[i] = j`` gets at most text ``j``'s target minus
    ``cap_margin``, and None when ``j`` has none.

    A cap with no margin makes a cut the teacher over-scores level with its whole: the student learns a tie, which
    comes out either way, so a lone first sentence can still beat the whole about half the time. A margin asks for
    the order the truncation rule wants (the whole above its cut) without copying the teacher's gap."""
    raw = [table.get(text_key(" ".join(text))) for text in texts]
    targets: List[Optional[float]] = []
    for value, cap in zip(raw, capped_by):
        if value is not None and cap is not None:
            value = None if raw[cap] is None else min(value, raw[cap] - cap_margin)  # type: ignore[operator]
        targets.append(value)
    return targets


def teacher_mse(scores: torch.Tensor, targets: Sequence[Optional[float]]) -> torch.Tensor:
    """Mean squared difference between the student's scores and the targets it has (0 when none)."""
    known = [index for index, target in enumerate(targets) if target is not None]
    if not known:
        return scores.sum() * 0.0
    wanted = torch.tensor([targets[index] for index in known], dtype=scores.dtype, device=scores.device)
    return torch.mean((scores[known] - wanted) ** 2)


def teacher_ranking(scores: torch.Tensor, targets: Sequence[Optional[float]], gap: float) -> torch.Tensor:
    """RankNet's logistic loss over every pair of texts the teacher orders by more than ``gap``: the student learns
    the teacher's order, across documents as within one, without its scale (0 when no pair qualifies)."""
    known = [index for index, target in enumerate(targets) if target is not None]
    if len(known) < 2:
        return scores.sum() * 0.0
    values = torch.tensor([targets[index] for index in known], dtype=scores.dtype, device=scores.device)
    student = scores[known]
    ordered = (values[:, None] - values[None, :]) > gap  # [i, j]: the teacher puts i above j
    if not bool(ordered.any()):
        return scores.sum() * 0.0
    differences = student[:, None] - student[None, :]
    return torch.nn.functional.softplus(-differences[ordered]).mean()
