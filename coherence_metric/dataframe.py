"""``score_dataframe``: score one column of a pandas DataFrame and get the frame back with a score column.

Evaluation results usually live in a DataFrame (one row per example, one column per system or metric); this saves
the round trip through a list and keeps the scores aligned with the rows whatever the index is. pandas itself is
never imported here: the frame's own methods do the work, so this module costs nothing to import.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from typing import Any, Dict, Optional, Union

from .errors import InputError
from .inputs.empty import check_on_empty
from .models.registry import DEFAULT_MODEL
from .settings import ScorerSettings

SIGNATURE_ATTR = "coherence_signature"
"""Key of ``DataFrame.attrs`` under which the scores' signature is kept (pandas carries ``attrs`` along copies)."""


def score_dataframe(df: Any, column: str = "text", output_column: str = "coherence",
                    model: Union[str, Any] = DEFAULT_MODEL, *, on_empty: str = "error",
                    settings: Optional[ScorerSettings] = None, **overrides: Any) -> Any:
    """A copy of ``df`` with ``output_column`` holding the coherence score of each row's ``column``.

    Args:
        df: a pandas DataFrame; it is not modified.
        column: the column holding the texts (strings, or lists of sentences).
        output_column: the new column's name; an existing column is never overwritten.
        model: a model name or checkpoint folder (a string or a ``pathlib.Path``) for the cached scorer
            (``coherence_metric.get_scorer``), or a ``CoherenceScorer`` built with the settings you want.
        on_empty: what a row whose text is empty (None, NaN/NA, or whitespace or invisible characters only) does:
            ``"error"`` (the default) refuses the frame, naming every such row by position; ``"nan"`` keeps every
            row, NaN in ``output_column`` for the empty ones; ``"skip"`` returns only the rows scored, each with
            its own index label, so the result still joins back onto ``df``. Both warn how many.
        settings: the cached scorer's settings (a ``ScorerSettings``) when ``model`` is a name or a path.
        **overrides: ``ScorerSettings`` fields by name (``dtype="fp32"``), in place of those of ``settings``.

    Returns:
        The copy, with the signature of its scores in ``attrs["coherence_signature"]``.

    Raises:
        InputError: not a DataFrame, a column name that is a list, a missing or repeated text column, an existing
            output column, a model that is neither a name, a path nor a scorer, settings beside a scorer, an
            unknown ``on_empty``, or a bad text (named by its row position).
    """
    if not (hasattr(df, "columns") and hasattr(df, "copy") and getattr(df, "ndim", None) == 2):
        raise InputError(f"score_dataframe takes a pandas DataFrame, got {type(df).__name__}")
    for name, value in (("column", column), ("output_column", output_column)):
        if isinstance(value, (list, tuple, set, dict)) or not isinstance(value, Hashable):
            raise InputError(f"{name} must be one column name, got {type(value).__name__} {value!r}")
    if column not in df.columns:
        names = ", ".join(map(str, df.columns)) or "none"
        raise InputError(f"the DataFrame has no column {column!r} (its columns: {names})")
    copies = sum(1 for name in df.columns if name == column)
    if copies > 1:  # df[column] would be a DataFrame of them all
        raise InputError(f"the DataFrame has {copies} columns named {column!r}: rename them so the column to score "
                         "is one")
    if output_column in df.columns:
        raise InputError(f"the DataFrame already has a column {output_column!r}: pass another output_column")
    check_on_empty(on_empty)
    scorer = _scorer(model, settings, overrides)
    result = scorer.score(df[column], on_empty=on_empty)
    scored = df.copy() if on_empty != "skip" else df.iloc[result.indices].copy()
    scored[output_column] = result.scores  # a list is assigned by position, so any index lines up
    scored.attrs[SIGNATURE_ATTR] = str(result.signature)
    return scored


def _scorer(model: Any, settings: Optional[ScorerSettings], overrides: Dict[str, Any]) -> Any:
    """The scorer ``model`` names: the cached one for a name or path (with these settings), or the scorer itself."""
    if isinstance(model, (str, os.PathLike)):
        from .scorer import get_scorer

        return get_scorer(model, settings=settings, **overrides)
    if not callable(getattr(model, "score", None)):
        raise InputError(f"model must be a model name, a checkpoint folder or a CoherenceScorer, got "
                         f"{type(model).__name__}")
    if settings is not None or overrides:
        raise InputError("scorer settings go to the CoherenceScorer you pass, not to score_dataframe()")
    return model
