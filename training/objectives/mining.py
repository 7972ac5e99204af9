"""Hard-negative mining by local ranking (Algorithm 1): keep the candidates the current model likes most."""

from __future__ import annotations

from typing import List, Sequence


def select_hard_negatives(candidate_scores: Sequence[float], keep: int) -> List[int]:
    """Indices of the ``keep`` highest-scoring candidates, hardest first (ties keep the earlier one).

    A negative the model scores high is one it finds coherent: training on those is what makes mining
    "hard". Fewer candidates than ``keep`` returns all of them.
    """
    order = sorted(range(len(candidate_scores)), key=lambda index: (-candidate_scores[index], index))
    return order[:keep]
