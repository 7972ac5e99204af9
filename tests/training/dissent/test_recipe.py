"""DisSent end to end: the smoke recipe on a real corpus through run_recipe, trained:FOLDER, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest

from coherence_metric.errors import InputError
from coherence_metric.training.dissent.recipe import load_dissent_recipe, run_recipe

pytestmark = pytest.mark.slow

CONFIGS = Path(__file__).resolve().parents[3] / "training" / "configs"
SMOKE = CONFIGS / "dissent-smoke.yaml"


def smoke_overrides(tmp_path: Path, tiny_bert_dir: Path, **changes: Any) -> Dict[str, Any]:
    """The smoke recipe on MCTest (a real corpus, read in place) with the pattern extractor and tiny sizes."""
    values: Dict[str, Any] = {
        "data.corpora": ["mctest"], "data.parser": "patterns", "data.max_sentences_per_corpus": None,
        "data.cache_dir": str(tmp_path / "cache"), "data.dev_limit": 60, "data.test_limit": 40,
        "model.word_vectors": str(tiny_bert_dir), "model.hidden": 8, "model.fc_dim": 8, "model.max_length": 32,
        "objective.batch_size": 16, "loop.output_dir": str(tmp_path / "run"), "loop.max_steps": 6,
        "loop.eval_every": 3, "loop.log_every": 3,
    }
    values.update(changes)
    return values


@pytest.fixture(scope="module")
def smoke_run(shared_data, tiny_bert_dir, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("dissent-smoke")
    result = run_recipe(SMOKE, smoke_overrides(tmp_path, tiny_bert_dir), progress=False)
    return tmp_path, result


def test_the_smoke_recipe_trains_and_tests(smoke_run):
    tmp_path, result = smoke_run
    assert result["steps"] == 6 and result["select"] == "accuracy" and 0.0 <= result["best"] <= 1.0
    run = tmp_path / "run"
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    evaluations = [record for record in log if "eval_accuracy" in record]
    assert [record["step"] for record in evaluations] == [0, 3, 6]
    assert all(0.0 <= record["eval_macro_f1"] <= 1.0 for record in evaluations)
    metrics = json.loads((run / "test_metrics.json").read_text())
    assert metrics["marker_set"] == "books5" and metrics["pairs"] == 40
    assert set(metrics["per_marker"]) == {"and", "but", "because", "if", "when"}
    assert result["test"]["accuracy"] == metrics["accuracy"]
    predictions = (run / "test_predictions.jsonl").read_text().splitlines()
    assert len(predictions) == 40 and json.loads(predictions[0])["predicted"] in metrics["per_marker"]


def test_extraction_is_cached_with_counts_and_a_sample(smoke_run):
    tmp_path, _ = smoke_run
    (folder,) = list((tmp_path / "cache").iterdir())
    counts = json.loads((folder / "counts.json").read_text())
    assert counts["total"] == sum(counts["per_marker"].values()) > 100
    assert sum(counts["per_split"]["train"].values()) > 10 * sum(counts["per_split"]["test"].values())
    sample = (folder / "sample.tsv").read_text().splitlines()
    assert sample[0].startswith("n\tmarker\twhere\ts1\ts2") and len(sample) == 51


def test_trained_folder_encodes_for_discoeval(smoke_run):
    from coherence_metric.benchmarks.discoeval.encoder_specs import resolve_encoder

    tmp_path, _ = smoke_run
    encoder = resolve_encoder("trained:" + str(tmp_path / "run" / "best") + ":batch=2")
    texts = ["The cat sat on the mat.", "It was raining.", "She went home because she was tired."]
    vectors = encoder.encode(texts)
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32  # 2 x hidden, max-pooled
    assert np.allclose(encoder.encode(texts[1:2])[0], vectors[1], atol=1e-5)  # batching does not change a vector
    final = resolve_encoder("trained:" + str(tmp_path / "run" / "final"))
    assert encoder.signature.startswith("dissent:") and encoder.name.startswith("dissent-bilstm-5m")
    assert (encoder.signature == final.signature) == np.allclose(final.encode(texts), vectors, atol=1e-6)
    with pytest.raises(InputError, match="unknown option"):
        resolve_encoder("trained:" + str(tmp_path / "run" / "best") + ":pool=mean")


def test_fine_tuning_a_transformer(shared_data, tiny_bert_dir, tmp_path):
    from coherence_metric.benchmarks.discoeval.encoder_specs import resolve_encoder

    overrides = smoke_overrides(tmp_path, tiny_bert_dir, **{
        "model.kind": "transformer", "model.backbone": str(tiny_bert_dir), "loop.optimizer": "adamw",
        "loop.lr": 1e-4, "loop.schedule": "linear", "loop.max_steps": 3, "loop.grad_clip": None})
    result = run_recipe(SMOKE, overrides, progress=False)
    assert result["steps"] == 3 and "accuracy" in result["test"]
    encoder = resolve_encoder("trained:" + str(tmp_path / "run" / "best"))
    assert encoder.encode(["One sentence.", "Another, longer sentence here."]).shape == (2, 32)


def test_recipe_errors_name_the_key(tmp_path):
    with pytest.raises(InputError, match="data: unknown key 'corpus'"):
        load_dissent_recipe(SMOKE, {"data.corpus": ["bbc"]})
    with pytest.raises(InputError, match="'wsj' is held out"):
        load_dissent_recipe(SMOKE, {"data.corpora": ["wsj"]})
    with pytest.raises(InputError, match="unknown marker set 'books6'"):
        load_dissent_recipe(SMOKE, {"data.marker_set": "books6"})
    with pytest.raises(InputError, match="model.kind must be one of bilstm, transformer"):
        load_dissent_recipe(SMOKE, {"model.kind": "gru"})
    with pytest.raises(InputError, match="parser must be one of spacy, patterns"):
        load_dissent_recipe(SMOKE, {"data.parser": "corenlp"})
    from torch import nn

    from coherence_metric.training.dissent.encoder import load_sentence_encoder, save_trained

    with pytest.raises(InputError, match="not a DisSent best/ or final/ folder"):
        load_sentence_encoder(tmp_path, {})
    with pytest.raises(InputError, match="cannot save a Linear as a DisSent model"):
        save_trained(nn.Linear(2, 2), tmp_path / "out", ["and", "but"])
    (tmp_path / "trained_encoder.json").write_text('{"family": "conpono"}')
    with pytest.raises(InputError, match="not a DisSent model"):
        load_sentence_encoder(tmp_path, {})


@pytest.mark.parametrize("name", ["smoke", "cpu-bilstm", "cpu-finetune", "paper-bilstm-gpu", "paper-bert-gpu"])
def test_committed_recipes_parse(name):
    recipe = load_dissent_recipe(CONFIGS / f"dissent-{name}.yaml")
    if recipe.model.kind == "bilstm":  # the paper's optimiser: SGD 0.1, divide by 5 on a dev drop, clip 5
        assert (recipe.loop.optimizer, recipe.loop.lr, recipe.loop.schedule) == ("sgd", 0.1, "shrink_on_plateau")
        assert (recipe.loop.shrink_factor, recipe.loop.min_lr, recipe.loop.grad_clip) == (5.0, 1e-5, 5.0)
    else:
        assert recipe.loop.optimizer == "adamw"
    assert recipe.loop.select == "accuracy"
