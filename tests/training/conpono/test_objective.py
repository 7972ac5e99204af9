"""The CONPONO objective end to end on a tiny BERT and real corpus slices: MLM head, batches, run_recipe, trained:."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest
import torch
import yaml

from coherence_metric.errors import InputError
from coherence_metric.training.config import read_recipe_mapping
from coherence_metric.training.conpono.model import ConponoModel, load_backbone
from coherence_metric.training.conpono.recipe import build_objective, recipe_from_mapping, run_recipe
from coherence_metric.training.loop import read_loop_log

REPO = Path(__file__).resolve().parents[3]


def recipe_values(backbone: Path, shared_data: Path, output_dir: Path, **objective: Any) -> Dict[str, Any]:
    values: Dict[str, Any] = {
        "family": "conpono",
        "data": {"corpora": ["lee"], "max_documents": 40, "dev_max_documents": 20, "paragraph_sentences": 8,
                 "data_dir": str(shared_data)},
        "model": {"backbone": str(backbone), "pooling": "mean", "max_length": 48},
        "objective": {"anchor_sentences": 2, "target_sentences": 1, "max_distance": 2, "hard_negatives": 3,
                      "random_negatives": 4, "batch_size": 2, "eval_examples": 6, **objective},
        "loop": {"output_dir": str(output_dir), "max_steps": 4, "lr": 1e-3, "eval_every": 2, "log_every": 2},
    }
    return values


@pytest.fixture(scope="module")
def smoke_run(tiny_bert_dir: Path, shared_data: Path, tmp_path_factory) -> Dict[str, Any]:
    """One run of a recipe file through run_recipe: tiny BERT, 40 Lee documents, combined encoding + MLM."""
    folder = tmp_path_factory.mktemp("conpono-smoke")
    path = folder / "conpono-tiny.yaml"
    path.write_text(yaml.safe_dump(recipe_values(tiny_bert_dir, shared_data, folder / "run")), encoding="utf-8")
    result = run_recipe(path, {"loop.max_steps": 4}, progress=False)
    return {"result": result, "run": folder / "run"}


def test_the_mlm_head_is_added_to_a_bare_encoder_and_tied_to_its_embeddings(tiny_bert_dir: Path) -> None:
    encoder, loaded = load_backbone(tiny_bert_dir, with_mlm=True)
    assert loaded is not None and type(encoder).__name__ == "BertModel"
    head: Any = loaded
    embeddings = encoder.get_input_embeddings().weight
    logits = head(torch.randn(5, 32))
    assert logits.shape == (5, embeddings.shape[0])
    logits.sum().backward()
    assert embeddings.grad is not None and embeddings.grad.abs().sum() > 0  # the output matrix is the embeddings


def test_saved_encoder_reloads_completely(tiny_bert_dir: Path, tmp_path: Path) -> None:
    from transformers import AutoModel

    encoder, head = load_backbone(tiny_bert_dir, with_mlm=True)
    model = ConponoModel(encoder, head, "combined", 2, "mean")
    model.save_encoder(tmp_path)
    _, report = AutoModel.from_pretrained(str(tmp_path), output_loading_info=True)
    assert not report["missing_keys"] and not report["unexpected_keys"]


def test_batches_are_fixed_by_position_and_masks_are_dynamic(tiny_bert_dir: Path, shared_data: Path,
                                                             tmp_path: Path) -> None:
    recipe = recipe_from_mapping(recipe_values(tiny_bert_dir, shared_data, tmp_path), "test")
    objective = build_objective(recipe)
    first, again, other = objective.batch(3), objective.batch(3), objective.batch(4)
    assert first.candidate_mlm_labels is not None and again.candidate_mlm_labels is not None
    assert other.candidate_mlm_labels is not None
    assert torch.equal(first.candidates["input_ids"], again.candidates["input_ids"])
    assert torch.equal(first.candidate_mlm_labels, again.candidate_mlm_labels)
    assert not torch.equal(first.labels, other.labels) or not torch.equal(first.candidate_mlm_labels,
                                                                           other.candidate_mlm_labels)
    assert all(example.doc_id.startswith("lee:") for example in objective.examples_at(3))
    loss, numbers = objective.loss(first)
    assert loss.requires_grad and set(numbers) == {"cpc_loss", "train_accuracy", "mlm_loss"}
    assert float(loss.detach()) == pytest.approx(numbers["cpc_loss"] + numbers["mlm_loss"], rel=1e-5)


def test_without_mlm_there_are_no_masks_and_no_mlm_loss(tiny_bert_dir: Path, shared_data: Path,
                                                        tmp_path: Path) -> None:
    values = recipe_values(tiny_bert_dir, shared_data, tmp_path, mlm_weight=0.0, encoding="uni")
    objective = build_objective(recipe_from_mapping(values, "test"))
    batch = objective.batch(0)
    assert batch.candidate_mlm_labels is None and batch.anchors is None and objective.model.mlm_head is None
    _, numbers = objective.loss(batch)
    assert "mlm_loss" not in numbers
    assert objective.model.distance_weights.shape == (4, 32)  # one w_k per distance


def test_a_recipe_run_trains_evaluates_per_k_and_saves(smoke_run: Dict[str, Any]) -> None:
    result, run = smoke_run["result"], smoke_run["run"]
    assert result["steps"] == 4 and 0.0 <= result["best"] <= 1.0
    records = read_loop_log(run)
    evaluations = [record for record in records if "eval_accuracy" in record]
    assert [record["step"] for record in evaluations] == [0, 2, 4]
    per_k = [key for key in evaluations[-1] if key.startswith("eval_accuracy_k")]
    assert per_k and set(per_k) <= {"eval_accuracy_k-2", "eval_accuracy_k-1", "eval_accuracy_k+1",
                                    "eval_accuracy_k+2"}
    mean = np.mean([evaluations[-1][key] for key in per_k])
    assert evaluations[-1]["eval_accuracy"] == pytest.approx(mean)
    assert all(np.isfinite(record["mlm_loss"]) for record in records if "mlm_loss" in record)
    manifest = json.loads((run / "final" / "trained_encoder.json").read_text())
    assert manifest["family"] == "conpono" and manifest["encoding"] == "combined" and manifest["max_distance"] == 2
    head = torch.load(run / "final" / "conpono_head.pt")
    assert head["distance_weights"].shape == (4, 32, 32) and head["distances"] == [-2, -1, 1, 2]


def test_trained_folder_loads_as_a_discoeval_encoder(smoke_run: Dict[str, Any]) -> None:
    from coherence_metric.benchmarks.discoeval.encoder_specs import resolve_encoder

    folder = smoke_run["run"] / "best"
    encoder = resolve_encoder("trained:" + str(folder))
    vectors = encoder.encode(["The cat sat down.", "It purred.", "Stocks fell sharply on Monday."])
    assert vectors.shape == (3, 32) and vectors.dtype == np.float32 and np.isfinite(vectors).all()
    assert "pool=mean" in encoder.name and encoder.signature
    cls = resolve_encoder("trained:" + str(folder) + ":pool=cls")
    assert not np.allclose(cls.encode(["It purred."]), vectors[1:2])
    assert cls.signature != encoder.signature
    with pytest.raises(InputError, match="unknown option"):
        resolve_encoder("trained:" + str(folder) + ":pooling=cls")


def test_recipe_errors_name_the_key(tiny_bert_dir: Path, shared_data: Path, tmp_path: Path) -> None:
    values = recipe_values(tiny_bert_dir, shared_data, tmp_path)
    with pytest.raises(InputError, match="unknown key 'k'"):
        recipe_from_mapping({**values, "objective": {**values["objective"], "k": 2}}, "r.yaml")
    with pytest.raises(InputError, match="objective.encoding must be one of combined, isolated, uni"):
        recipe_from_mapping({**values, "objective": {**values["objective"], "encoding": "joint"}}, "r.yaml")
    with pytest.raises(InputError, match="'wsj' is held out"):
        recipe_from_mapping({**values, "data": {**values["data"], "corpora": ["wsj"]}}, "r.yaml")
    with pytest.raises(InputError, match="max_distance"):
        recipe_from_mapping({**values, "objective": {**values["objective"], "max_distance": 0}}, "r.yaml")


@pytest.mark.parametrize("name", ["conpono-smoke", "conpono-cpu-minilm", "conpono-paper-bert-base"])
def test_shipped_recipes_parse_and_take_the_k_ablation_override(name: str) -> None:
    path = REPO / "training" / "configs" / f"{name}.yaml"
    recipe = recipe_from_mapping(read_recipe_mapping(path, {"objective.max_distance": 1}), str(path))
    assert recipe.objective.max_distance == 1 and recipe.family == "conpono"
    assert recipe.loop.output_dir.startswith("runs/conpono")


def test_heldout_accuracy_of_the_saved_best_reproduces_the_logged_evaluation(smoke_run: Dict[str, Any],
                                                                              capsys: pytest.CaptureFixture) -> None:
    from coherence_metric.training.conpono.heldout import heldout_accuracy, main

    run = smoke_run["run"]
    evaluations = [record for record in read_loop_log(run) if "eval_accuracy" in record]
    best = next(record for record in evaluations if record["eval_accuracy"] == max(
        r["eval_accuracy"] for r in evaluations))
    result = heldout_accuracy(run, examples=6)
    assert result["step"] == best["step"] and result["candidates"] == 8 and result["examples"] == 6
    for key in ("accuracy", "accuracy_k-2", "accuracy_k-1", "accuracy_k+1", "accuracy_k+2", "cpc_loss"):
        if f"eval_{key}" in best:
            assert result[key] == pytest.approx(best[f"eval_{key}"], abs=1e-6), key
    assert main([str(run), "--examples", "6"]) == 0
    table = capsys.readouterr().out
    assert "| Run | K | Step | Examples | k=-2 | k=-1 | k=+1 | k=+2 | Mean | Chance |" in table
    assert f"| {run} | 2 | {best['step']} | 6 |" in table and table.endswith(" | 12.5 |\n")  # chance: 1 in 8
    assert json.loads((run / "heldout_best_6.json").read_text())["accuracy"] == result["accuracy"]
    with pytest.raises(SystemExit) as raised:
        main([str(run.parent)])
    assert raised.value.code == 2 and "no recipe.json" in capsys.readouterr().err
