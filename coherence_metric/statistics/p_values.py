"""How a p-value is written for people: to 4 decimals, or as a bound at its floor; and when it and the interval
disagree.

A resampling p-value can never go below 1/(N+1) for N resamples or trials, so a p-value at that floor is printed
as a bound ("<0.001") rather than as an estimate a reader might copy into a paper as exact. The command line's
tables and the HTML report both write p-values here.
"""

from __future__ import annotations

import math
from typing import Any, Optional


def p_value_floor(count: int) -> float:
    """The smallest p-value ``count`` resamples or trials can give: 1/(count+1)."""
    return 1.0 / (count + 1)


def format_p_value(p_value: Optional[float], count: int) -> str:
    """``p_value`` to 4 decimals, or ``<X`` when it is at its floor 1/(count+1) (X: the floor rounded up to a
    power of ten, so ``<0.001`` for 1,000 resamples); the true p-value may be anywhere below it. ``-`` where there
    is none (a paired bootstrap on too few inputs:
    :func:`coherence_metric.statistics.significance.bootstrap_p_note`)."""
    if p_value is None:
        return "-"
    floor = p_value_floor(count)
    if p_value <= floor * (1 + 1e-9):
        bound = 10.0 ** math.ceil(math.log10(floor))
        return f"<{bound:.{max(0, -round(math.log10(bound)))}f}"
    return f"{p_value:.4f}"


def at_floor(p_value: Optional[float], count: int) -> bool:
    """Whether ``p_value`` (None: no p-value) is at the floor of ``count`` resamples or trials (printed with ``<``)."""
    return p_value is not None and p_value <= p_value_floor(count) * (1 + 1e-9)


def floor_note(resamples: int, trials: int) -> str:
    """The line that explains a ``<`` in front of a p-value."""
    return (f"<: at the floor of the test, 1/(N+1) for N = {resamples} bootstrap resamples or {trials} randomization "
            "trials; more of them can only lower it")


def disagreement_note(interval: Any, p_bootstrap: Optional[float], p_randomization: Optional[float],
                      confidence: float, resamples: int, trials: int, pair: str = "") -> Optional[str]:
    """One line when the mean difference's interval and the p-value (the paired bootstrap's, else the
    randomization test's) disagree about 0 at the interval's level: the interval excludes 0 but p >= 1 - confidence,
    or the reverse. None when they agree (or there is no interval)."""
    if not interval:
        return None
    which, p_value, count = (("paired bootstrap", p_bootstrap, resamples) if p_bootstrap is not None else
                             ("randomization", p_randomization, trials))
    if p_value is None:
        return None
    alpha = round(1 - confidence, 6)
    low, high = interval
    excludes = low > 0 or high < 0
    if excludes == (p_value < alpha):
        return None
    percent = round(100 * confidence)
    shown = format_p_value(p_value, count)
    p_text = f"p {shown}" if shown.startswith("<") else f"p = {shown}"
    said = (f"the {percent}% interval of the mean difference excludes 0 but the {which} {p_text} is not below "
            f"{alpha:g}" if excludes else
            f"the {percent}% interval of the mean difference includes 0 but the {which} {p_text} is below {alpha:g}")
    return (f"note: {pair + ': ' if pair else ''}{said}: they are different tests (the interval resamples the "
            "differences as they are, the p-value tests them against no difference) and can disagree near the "
            "threshold or on few inputs; read this difference as uncertain rather than as shown or ruled out")


__all__ = ["at_floor", "disagreement_note", "floor_note", "format_p_value", "p_value_floor"]
