"""How one metric of one system on one test set reads in a table and in a chart: the value and its ties.

Shared by the Markdown table and the chart, so both always show the same number for a cell.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

LMVLM_METRIC = "lmvlm_agreement"
#: Sub-rows of LMVLM: (result key, label, scale). The first is the paper's number.
LMVLM_ROWS = (
    ("alpha", "α (3 annotators + model)", 1.0),
    ("alpha_annotators_1_2", "α (rows 1-2 + model)", 1.0),
    ("majority_agreement", "majority agreement %", 100.0),
)
PAIRWISE_ROW = ("accuracy", "accuracy %", 100.0)


def metric_rows(metric: str) -> tuple[tuple[str, str, float], ...]:
    """Return the (key, label, scale) rows a test set with this metric gets in the table."""
    return LMVLM_ROWS if metric == LMVLM_METRIC else (PAIRWISE_ROW,)


def ties_of(cell: Mapping[str, Any]) -> int:
    """Return the ties of a result cell (pairs scored equal, or LMVLM items where the model tied)."""
    return int(cell.get("n_ties", cell.get("n_model_ties", 0)) or 0)


def primary_value(cell: Mapping[str, Any], metric: str) -> Optional[float]:
    """Return the paper's number for a cell: accuracy in %, or LMVLM's alpha; None when missing."""
    key, _, scale = metric_rows(metric)[0]
    value = cell.get(key)
    return None if value is None else float(value) * scale


def format_value(value: Optional[float], scale: float) -> str:
    """Format an accuracy in % with 2 decimals, an alpha with 3; blank for a missing value."""
    if value is None:
        return ""
    return f"{value:.3f}" if scale == 1.0 else f"{value:.2f}"
