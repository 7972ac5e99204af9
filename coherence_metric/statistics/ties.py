"""When two scores are a tie: the one rule that results, the bootstrap, the significance tests and the N-system ranking
share, in a module that imports nothing of the package (they used to import each other in a circle for it).

A difference smaller than the rounding noise of the dtype the scores were computed in says nothing about the texts,
so it is a tie, never a win:

- fp32: 1e-5. The same text scored beside other texts moved by float noise of about 1e-8 to 1e-6 (README's batch
  invariance bound is 1e-5).
- bf16 and fp16 (autocast): 1e-2. In bf16 a text's score moved by up to 6.2e-3 with nothing but the padded shape of
  its batch (the default on 100 SummEval-style summaries, before each text got a padded length of its own), so two
  scores closer than that can be ordered either way by rounding alone. fp16 (GPU only, not measured here) has more
  mantissa bits than bf16 and gets the same bound.

The same text now scores the same within a call in every dtype, and across calls to about 2e-7 (fp32 everywhere,
bf16 without AMX: :mod:`coherence_metric.scoring.batching`) or up to 5.3e-3 (bf16 on AMX, whose kernels tile a product
by its row count), so a text against itself is a tie under either rule.
"""

from __future__ import annotations

from typing import Dict

TIE_TOLERANCE = 1e-5
"""The fp32 rule, and the default wherever no dtype is known: scores this close (``|a - b| <= TIE_TOLERANCE``) tie."""
TIE_TOLERANCES: Dict[str, float] = {"fp32": TIE_TOLERANCE, "bf16": 1e-2, "fp16": 1e-2}
"""Tie tolerance per compute dtype (the signature's ``dtype``)."""


def tie_tolerance(dtype: str) -> float:
    """The tie tolerance of scores computed in ``dtype`` (``fp32``, ``bf16``, ``fp16``); fp32's for anything else."""
    return TIE_TOLERANCES.get(dtype, TIE_TOLERANCE)


def winner(score_a: float, score_b: float, tolerance: float = TIE_TOLERANCE) -> str:
    """``"a"``, ``"b"``, or ``"tie"`` when the scores are within ``tolerance``."""
    if score_a - score_b > tolerance:
        return "a"
    if score_b - score_a > tolerance:
        return "b"
    return "tie"


__all__ = ["TIE_TOLERANCE", "TIE_TOLERANCES", "tie_tolerance", "winner"]
