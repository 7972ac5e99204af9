"""Recipes: the shipped YAML files parse, errors name the key, a smoke run trains on real Wikipedia text and
its best/ folder loads through the DiscoEval suite's ``trained:FOLDER`` spec."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from coherence_metric.errors import InputError
from coherence_metric.research.splits import split_of
from coherence_metric.training.discoeval_criteria.data import load_examples
from coherence_metric.training.discoeval_criteria.encoder import MANIFEST_FILE
from coherence_metric.training.discoeval_criteria.recipe import recipe_from_mapping, run_recipe
from coherence_metric.training.discoeval_criteria.settings import ROWS, DataSettings, row_name
from coherence_metric.training.loop import read_loop_log

from ...conftest import REPO_DIR

CONFIGS = sorted((REPO_DIR / "training" / "configs").glob("discoeval-*.yaml"))


def test_the_shipped_recipes_parse_and_say_what_they_cost() -> None:
    assert [path.name for path in CONFIGS] == ["discoeval-cpu.yaml", "discoeval-paper.yaml", "discoeval-smoke.yaml"]
    rows = {}
    for path in CONFIGS:
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# ") and "Expected run time" in text, path.name
        recipe = recipe_from_mapping(yaml.safe_load(text), path.name)
        rows[path.name] = row_name(recipe.objective.losses)
    assert rows == {"discoeval-cpu.yaml": "+ SPP + NL", "discoeval-paper.yaml": "ALL", "discoeval-smoke.yaml": "ALL"}


def test_every_row_of_table_2_is_a_losses_list() -> None:
    assert list(ROWS) == ["Baseline (NSP)", "+ SDT", "+ SPP", "+ NL", "+ SPP + NL", "+ SDT + NL", "+ SDT + SPP", "ALL"]
    assert row_name(["spp", "nsp", "nl"]) == "+ SPP + NL"


@pytest.mark.parametrize("values, message", [
    ({"objective": {"loses": ["nsp"]}}, "unknown key 'loses'"),
    ({"model": {"hidden_size": "big"}}, "hidden_size must be an integer"),
    ({"family": "conpono"}, "family must be 'discoeval'"),
    ({"data": {"files": 0}}, "data.files must be at least 1"),
    ({"model": {"device": "gpu"}}, "not a torch device"),
])
def test_recipe_errors_name_the_key(values: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        recipe_from_mapping({"family": "discoeval", **values}, "r.yaml")


def test_training_reads_only_train_articles_and_evaluates_on_dev_ones(corpora_root: Path) -> None:
    folder = str(corpora_root / "enwiki_wikiextractor_2015")
    examples = load_examples(DataSettings(files=1, folder=folder, dev_sentences=50))
    assert {split_of(example.article_id) for example in examples.train} == {"train"}
    assert {split_of(example.article_id) for example in examples.dev} == {"dev"}
    assert len(examples.dev) == 50 and examples.summary["train_articles"] > 20
    again = load_examples(DataSettings(files=1, folder=folder, dev_sentences=50))
    assert [example.sentence for example in again.dev] == [example.sentence for example in examples.dev]


def test_smoke_run_trains_and_its_encoder_loads_as_trained_folder(tiny_bert_dir: Path, corpora_root: Path,
                                                                 tmp_path: Path) -> None:
    from coherence_metric.benchmarks.discoeval.encoder_specs import resolve_encoder
    from coherence_metric.research.encoders import TRAINED_ENCODER_FILE

    assert MANIFEST_FILE == TRAINED_ENCODER_FILE
    output = tmp_path / "run"
    overrides = {"model.word_vectors": str(tiny_bert_dir), "model.hidden_size": 8, "model.mlp_hidden_size": 8,
                 "data.files": 1, "data.folder": str(corpora_root / "enwiki_wikiextractor_2015"),
                 "data.max_train_articles": 8, "data.dev_sentences": 60, "objective.vocabulary_size": 300,
                 "loop.max_steps": 4, "loop.eval_every": 2, "loop.log_every": 2, "loop.output_dir": str(output)}
    result = run_recipe(REPO_DIR / "training" / "configs" / "discoeval-smoke.yaml", overrides, progress=False)
    assert result["steps"] == 4 and result["select"] == "accuracy" and 0.0 <= result["best"] <= 1.0
    records = read_loop_log(output)
    steps = [record for record in records if "loss" in record]
    evaluations = [record for record in records if "eval_accuracy" in record]
    assert [record["step"] for record in steps] == [2, 4] and [record["step"] for record in evaluations] == [0, 2, 4]
    assert all(key in steps[0] for key in ["nsp_loss", "nl_loss", "spp_loss", "sdt_loss"])
    summary = json.loads((output / "data_summary.json").read_text())
    assert summary["train_articles"] == 8 and summary["dev_sentences"] == 60 and summary["row"] == "ALL"
    manifest = json.loads((output / "best" / MANIFEST_FILE).read_text())
    assert manifest["family"] == "discoeval" and manifest["losses"] == ["nsp", "nl", "spp", "sdt"]

    encoder = resolve_encoder("trained:" + str(output / "best") + ":batch=2")
    texts = ["Anarchism is a political philosophy.", "It has many schools.", "History."]
    vectors = encoder.encode(texts)
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32 and np.isfinite(vectors).all()
    assert np.allclose(encoder.encode(texts[1:2])[0], vectors[1], atol=1e-6)
    assert encoder.signature.startswith("discoeval-bigru:") and "ALL" in encoder.name
