"""Texts as people hold them: generators, numpy arrays, pandas Series and DataFrames score like the list."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import coherence_metric
from coherence_metric import CoherenceScorer, InputError, score_dataframe

TEXTS = [
    "The river rose slowly through the night. By morning the lower fields were under water.",
    "By morning the lower fields were under water. The river rose slowly through the night.",
    "A town. A flood. Then the rain stopped.",
]


@pytest.fixture(scope="module")
def scorer(bert_checkpoint) -> CoherenceScorer:
    return CoherenceScorer(str(bert_checkpoint))


@pytest.fixture(scope="module")
def reference(scorer):
    return scorer.score(TEXTS).scores


@pytest.mark.parametrize("make", [
    tuple,
    lambda texts: (text for text in texts),
    np.array,                                   # dtype <U..
    lambda texts: np.array(texts, dtype=object),
    lambda texts: pd.Series(texts, index=[30, 10, 20]),  # a shuffled index: order is by position
    lambda texts: pd.Series(texts, dtype="string"),
    iter,
], ids=["tuple", "generator", "numpy-str", "numpy-object", "series", "series-string", "iterator"])
def test_every_container_scores_like_the_list(scorer, reference, make):
    assert scorer.score(make(TEXTS)).scores == pytest.approx(reference, abs=1e-6)


def test_sentence_lists_from_parquet_style_arrays(scorer):
    sentences = [["The river rose.", "The fields flooded."], ["A town.", "A flood."]]
    as_arrays = pd.Series([np.array(item, dtype=object) for item in sentences])
    assert scorer.score(as_arrays).scores == pytest.approx(scorer.score(sentences).scores, abs=1e-6)


def test_systems_as_series_compare_like_lists(scorer):
    a, b = pd.Series(TEXTS[:2]), np.array(TEXTS[1:])
    from_lists = scorer.compare(TEXTS[:2], TEXTS[1:], bootstrap_resamples=50, seed=1)
    from_containers = scorer.compare(a, b, bootstrap_resamples=50, seed=1)
    assert from_containers.scores_a == pytest.approx(from_lists.scores_a, abs=1e-6)
    assert from_containers.pair_winners == from_lists.pair_winners


@pytest.mark.parametrize("texts, message", [
    ({"one", "two"}, "texts is a set, which has no order"),
    ({"a": "one"}, "texts is a dict: pass its values"),
    (pd.DataFrame({"text": TEXTS}), "texts is a DataFrame: pass one column"),
    (np.array([TEXTS, TEXTS]), "texts is a 2-dimensional ndarray"),
    (pd.Series(["fine text.", float("nan")]), "text 1 is a missing value"),
    (b"bytes", "texts are bytes: decode them first"),
    (3.5, "texts must be a string or a list (or any iterable) of texts, got float"),
])
def test_shapes_that_would_score_the_wrong_thing_are_refused(scorer, texts, message):
    with pytest.raises(InputError) as caught:
        scorer.score(texts)
    assert message in str(caught.value)


def test_score_dataframe_adds_a_column_in_row_order(scorer, reference):
    frame = pd.DataFrame({"system": ["x", "y", "z"], "output": TEXTS}, index=[7, 3, 5])
    scored = score_dataframe(frame, column="output", model=scorer)
    assert list(scored.columns) == ["system", "output", "coherence"]
    assert scored["coherence"].tolist() == pytest.approx(reference, abs=1e-6)
    assert list(scored.index) == [7, 3, 5]
    assert "coherence" not in frame.columns, "the caller's frame was modified"
    assert scored.attrs["coherence_signature"] == str(scorer.signature)


def test_score_dataframe_uses_the_cached_scorer_for_a_model_name(bert_checkpoint, reference):
    scored = score_dataframe(pd.DataFrame({"text": TEXTS}), model=str(bert_checkpoint), output_column="cm")
    assert scored["cm"].tolist() == pytest.approx(reference, abs=1e-6)


@pytest.mark.parametrize("frame, kwargs, message", [
    (pd.DataFrame({"txt": TEXTS}), {}, "the DataFrame has no column 'text' (its columns: txt)"),
    (pd.DataFrame({"text": TEXTS, "coherence": 0.0}), {}, "already has a column 'coherence'"),
    (pd.Series(TEXTS), {}, "score_dataframe takes a pandas DataFrame, got Series"),
    (pd.DataFrame({"text": ["ok.", ""]}), {}, "text 1 is empty"),
])
def test_score_dataframe_names_the_problem(scorer, frame, kwargs, message):
    with pytest.raises(InputError) as caught:
        score_dataframe(frame, model=scorer, **kwargs)
    assert message in str(caught.value)


@pytest.mark.parametrize("function", [coherence_metric.score, coherence_metric.compare, coherence_metric.get_scorer,
                                      CoherenceScorer])
def test_module_functions_take_one_settings_object_and_its_fields_by_name(function):
    """The settings are declared once, in ScorerSettings: each function takes one as ``settings``
    (keyword-only) and its fields by name, and spells none of them again."""
    parameters = inspect.signature(function).parameters
    assert parameters["settings"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["settings"].default is None
    assert [parameter.kind for parameter in parameters.values()][-1] is inspect.Parameter.VAR_KEYWORD
    assert not set(parameters) & set(coherence_metric.ScorerSettings.names())


def test_a_misspelt_setting_is_refused_before_any_model_loads():
    with pytest.raises(TypeError, match="batch_sise"):
        coherence_metric.score(TEXTS, model="no/such-model", batch_sise=4)
