"""Texts in the containers people already hold them in: lists, tuples, generators, numpy arrays, pandas Series.

Evaluation code keeps system outputs in a DataFrame column, a numpy array read from Parquet or a generator over a
file; making users write ``list(series)`` first is friction that sacrebleu and bert_score also impose, and the
conversion done by hand loses nothing but adds a chance to pass a ``set`` (no order: scores would not line up with
the texts) or a whole DataFrame. This module turns any of them into a plain list in input order, without importing
numpy or pandas (they are recognised by their ``ndim``/``tolist`` attributes), and refuses the shapes that would
silently score the wrong thing, naming what was passed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, List

from ..errors import InputError
from .empty import is_missing


def _as_element(item: Any, position: int, keep_missing: bool) -> Any:
    """One text as the validator expects it: numpy strings become ``str``, a 1-D array of sentences (what a Parquet
    list column gives per row) becomes a list; a missing value is refused, or kept as it is (``keep_missing``)."""
    if is_missing(item):
        if keep_missing:
            return item
        raise InputError(f"text {position} is a missing value (NaN/NA): drop or fill missing texts before scoring")
    if isinstance(item, str):
        return str(item)  # numpy.str_ is a str subclass; tokenizers want the plain type
    if getattr(item, "ndim", None) == 1 and hasattr(item, "tolist"):
        return [str(sentence) if isinstance(sentence, str) else sentence for sentence in item.tolist()]
    return item


def as_text_list(texts: Any, first_position: int = 0, keep_missing: bool = False) -> List[Any]:
    """``texts`` as a list in input order: a string is one text; a list, tuple, 1-D numpy array, pandas Series or
    any other ordered iterable gives one text per element (a string, or a list of sentences).

    ``first_position`` is the number errors give the first element (texts added in batches are counted across them).
    ``keep_missing``: return missing values (NaN/NA) as they are, for the caller to treat as empty texts
    (:mod:`coherence_metric.inputs.empty`), instead of refusing them.

    Raises:
        InputError: a set (no order), a mapping or DataFrame (pass one column), bytes, an array that is not
            one-dimensional, a missing value (NaN/NA) in place of a text, or something that is not iterable.
    """
    if isinstance(texts, str):
        return [texts]
    kind = type(texts).__name__
    if isinstance(texts, (bytes, bytearray)):
        raise InputError("texts are bytes: decode them first (data.decode('utf-8'))")
    if isinstance(texts, (set, frozenset)):
        raise InputError(f"texts is a {kind}, which has no order, so scores could not be matched to texts: "
                         "pass a list")
    if kind == "DataFrame":
        raise InputError("texts is a DataFrame: pass one column (df['text']) or use "
                         "coherence_metric.score_dataframe(df, column='text')")
    if isinstance(texts, Mapping):
        raise InputError(f"texts is a {kind}: pass its values in the order you want (list(texts.values()))")
    ndim = getattr(texts, "ndim", None)
    if isinstance(ndim, int) and ndim != 1:
        raise InputError(f"texts is a {ndim}-dimensional {kind}: pass a 1-dimensional array, one text per element")
    if isinstance(texts, (list, tuple)):
        items = list(texts)
    elif ndim == 1 and hasattr(texts, "tolist"):
        items = texts.tolist()  # numpy arrays and pandas Series give Python objects, in positional order
    elif isinstance(texts, Iterable):
        items = list(texts)
    else:
        raise InputError(f"texts must be a string or a list (or any iterable) of texts, got {kind}")
    return [_as_element(item, position, keep_missing) for position, item in enumerate(items, start=first_position)]
