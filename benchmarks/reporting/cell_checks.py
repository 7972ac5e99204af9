"""What a result cell of a suite report may hold, checked when a report is read back (``--resume-from``, ``combine``).

A report read back is a file someone may have edited: a cell whose accuracy is the string ``"0.9"``, ``NaN``, or
``1e308`` (printed as ``inf [-inf, inf]``) was taken as measured and copied into the new report, and a NaN failed
the JSON write after the Markdown had been written. Every cell is checked for type and range here, and refused in
one line naming the file, the test set and the system; a test set with no results at all is not a finished one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Optional

from coherence_metric.errors import InputError

from .cells import LMVLM_METRIC

#: Pairwise sets' shares: fractions of the pairs (the tables show them in %).
_SHARE = (0.0, 1.0)
#: Krippendorff's alpha: 1 is perfect agreement, 0 chance, below 0 systematic disagreement.
_ALPHA = (-1.0, 1.0)
#: key -> (range, may be None); a key that is missing is not checked (older reports lack some).
_PAIRWISE_NUMBERS = {"accuracy": (_SHARE, False), "accuracy_excluding_ties": (_SHARE, True)}
_LMVLM_NUMBERS = {"alpha": (_ALPHA, True), "alpha_annotators_1_2": (_ALPHA, True),
                  "alpha_annotators_only": (_ALPHA, True), "majority_agreement": (_SHARE, False),
                  "majority_agreement_excluding_ties": (_SHARE, True)}
_COUNTS = ("n", "n_correct", "n_ties", "n_model_ties", "n_documents", "n_truncated", "n_windowed")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _number_problem(key: str, value: Any, bounds: tuple, optional: bool) -> Optional[str]:
    if value is None and optional:
        return None
    if not _is_number(value) or not bounds[0] <= value <= bounds[1]:
        return f"{key} must be a number in [{bounds[0]:g}, {bounds[1]:g}], got {_shown(value)}"
    return None


def _interval_problem(value: Any) -> Optional[str]:
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 2 or not all(_is_number(end) for end in value)
            or not _SHARE[0] <= value[0] <= value[1] <= _SHARE[1]):
        return f"accuracy_interval must be two numbers in [0, 1], low before high, got {_shown(value)}"
    return None


def cell_problem(cell: Mapping[str, Any], metric: Any) -> Optional[str]:
    """Why a result cell is not one a run writes (a value of the wrong type or out of its range), or None."""
    numbers = _LMVLM_NUMBERS if metric == LMVLM_METRIC else _PAIRWISE_NUMBERS
    primary = next(iter(numbers))
    if primary not in cell:
        return f"it has no {primary}"
    for key, (bounds, optional) in numbers.items():
        problem = _number_problem(key, cell[key], bounds, optional) if key in cell else None
        if problem:
            return problem
    problem = _interval_problem(cell.get("accuracy_interval"))
    if problem:
        return problem
    for key in _COUNTS:
        value = cell.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return f"{key} must be a count (a whole number, 0 or more), got {_shown(value)}"
    seconds = cell.get("seconds")
    if seconds is not None and not (_is_number(seconds) and seconds >= 0):
        return f"seconds must be a number, 0 or more, got {_shown(seconds)}"
    return None


def refuse_bad_cells(path: Path, result: Mapping[str, Any]) -> None:
    """Refuse a report whose test sets hold a cell no run writes, or no results at all (rows or cells that are not
    objects are left to the caller's own check of the report's shape).

    Raises:
        InputError: one line naming ``path``, the test set and the system.
    """
    rows = result.get("test_sets")
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict) or not isinstance(row.get("results"), dict):
            continue
        name = row.get("name")
        if not row["results"]:
            raise InputError(f"{path}: test set {name!r} has no results, so it is not finished (was it edited by "
                             "hand?)")
        for system, cell in row["results"].items():
            problem = cell_problem(cell, row.get("metric")) if isinstance(cell, dict) else None
            if problem:
                raise InputError(f"{path}: test set {name!r}, system {system!r}: {problem} (was it edited by "
                                 "hand?)")


__all__ = ["cell_problem", "refuse_bad_cells"]
