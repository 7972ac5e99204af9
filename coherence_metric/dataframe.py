"""``score_dataframe``: score one column of a pandas DataFrame and get the frame back with a score column.

Evaluation results usually live in a DataFrame (one row per example, one column per system or metric); this saves
the round trip through a list and keeps the scores aligned with the rows whatever the index is. pandas itself is
never imported here: the frame's own methods do the work, so this module costs nothing to import.
"""

from __future__ import annotations

from typing import Any, Union

from .errors import InputError
from .registry import DEFAULT_MODEL

SIGNATURE_ATTR = "coherence_signature"
"""Key of ``DataFrame.attrs`` under which the scores' signature is kept (pandas carries ``attrs`` along copies)."""


def score_dataframe(df: Any, column: str = "text", output_column: str = "coherence",
                    model: Union[str, Any] = DEFAULT_MODEL) -> Any:
    """A copy of ``df`` with ``output_column`` holding the coherence score of each row's ``column``.

    Args:
        df: a pandas DataFrame; it is not modified.
        column: the column holding the texts (strings, or lists of sentences).
        output_column: the new column's name; an existing column is never overwritten.
        model: a model name for the cached scorer (``coherence_metric.get_scorer``), or a ``CoherenceScorer``
            built with the settings you want.

    Returns:
        The copy, with the signature of its scores in ``attrs["coherence_signature"]``.

    Raises:
        InputError: not a DataFrame, a missing text column, an existing output column, or a bad text (named by
            its row position).
    """
    if not (hasattr(df, "columns") and hasattr(df, "copy") and getattr(df, "ndim", None) == 2):
        raise InputError(f"score_dataframe takes a pandas DataFrame, got {type(df).__name__}")
    if column not in df.columns:
        names = ", ".join(map(str, df.columns)) or "none"
        raise InputError(f"the DataFrame has no column {column!r} (its columns: {names})")
    if output_column in df.columns:
        raise InputError(f"the DataFrame already has a column {output_column!r}: pass another output_column")
    if isinstance(model, str):
        from .scorer import get_scorer

        scorer = get_scorer(model)
    else:
        scorer = model
    result = scorer.score(df[column])
    scored = df.copy()
    scored[output_column] = result.scores  # a list is assigned by position, so any index lines up
    scored.attrs[SIGNATURE_ATTR] = str(result.signature)
    return scored
