"""Misuse refused where it happens, in one InputError naming the argument: not an
AttributeError deep inside, not a failure at the first ``update()``, not a bool taken for a batch size."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from coherence_metric import CoherenceScorer, InputError, ModelNotFoundError, score_dataframe
from coherence_metric.integrations.torchmetrics_metric import CoherenceMetric

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Everyone agreed to build a wall. The town held a meeting."]


@pytest.fixture(scope="module")
def scorer(bert_checkpoint) -> CoherenceScorer:
    return CoherenceScorer(str(bert_checkpoint))


@pytest.mark.parametrize("frame, kwargs, message", [
    (pd.DataFrame({"text": TEXTS}), {"model": 3},
     "model must be a model name, a checkpoint folder or a CoherenceScorer, got int"),
    (pd.DataFrame({"text": TEXTS}), {"column": ["text"]}, "column must be one column name, got list ['text']"),
    (pd.DataFrame({"text": TEXTS}), {"output_column": ["c"]}, "output_column must be one column name, got list"),
    (pd.DataFrame([TEXTS], columns=["text", "text"]), {},
     "the DataFrame has 2 columns named 'text': rename them so the column to score is one"),
])
def test_score_dataframe_misuse_is_named(frame, kwargs, message):
    with pytest.raises(InputError) as caught:
        score_dataframe(frame, **kwargs)
    assert message in str(caught.value)


def test_a_scorer_instance_and_a_path_work_in_score_dataframe(scorer, bert_checkpoint):
    expected = scorer.score(TEXTS).scores
    assert score_dataframe(pd.DataFrame({"text": TEXTS}), model=scorer)["coherence"].tolist() == \
        pytest.approx(expected, abs=1e-6)
    assert score_dataframe(pd.DataFrame({"text": TEXTS}), model=Path(bert_checkpoint))["coherence"].tolist() == \
        pytest.approx(expected, abs=1e-6)


def test_coherence_metric_refuses_an_unknown_model_when_built():
    with pytest.raises(ModelNotFoundError, match="nosuch"):
        CoherenceMetric("nosuch")


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": True}, "batch_size must be a positive integer, got True"),
    ({"truncation": "drop"}, "unknown truncation 'drop'"),
    ({"device": "quantum"}, "unknown device 'quantum'"),
])
def test_coherence_metric_refuses_bad_settings_when_built(bert_checkpoint, kwargs, message):
    with pytest.raises(InputError, match=message):
        CoherenceMetric(str(bert_checkpoint), **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": True}, "batch_size must be a positive integer, got True"),
    ({"batch_size": False}, "batch_size must be a positive integer, got False"),
    ({"max_tokens_per_batch": True}, "max_tokens_per_batch must be a positive integer, got True"),
])
def test_a_bool_is_not_a_batch_size(bert_checkpoint, kwargs, message):
    with pytest.raises(InputError, match=message):
        CoherenceScorer(str(bert_checkpoint), **kwargs)


def test_a_path_object_names_a_checkpoint_folder(bert_checkpoint, scorer, tmp_path):
    """``load_checkpoint`` takes paths, so the scorer, ``score`` and the torchmetrics metric take them too."""
    import coherence_metric

    by_path = CoherenceScorer(Path(bert_checkpoint))
    assert by_path.score(TEXTS).scores == pytest.approx(scorer.score(TEXTS).scores, abs=1e-6)
    assert str(by_path.signature) == str(scorer.signature)
    assert coherence_metric.score(TEXTS, model=Path(bert_checkpoint)).scores == \
        pytest.approx(scorer.score(TEXTS).scores, abs=1e-6)
    metric = CoherenceMetric(Path(bert_checkpoint))
    metric.update(TEXTS)
    assert metric.compute().item() == pytest.approx(scorer.score(TEXTS).system_score, abs=1e-5)
    with pytest.raises(ModelNotFoundError, match="no checkpoint folder at"):
        CoherenceScorer(tmp_path / "missing")
    with pytest.raises(ModelNotFoundError, match="no checkpoint folder at default"):
        CoherenceScorer(Path("default"))  # a Path is a folder, never the alias
