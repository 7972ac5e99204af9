"""The trainer on a slice of real corpus data with a tiny BERT: every objective, resume, DDP, options."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.training.config import recipe_from_dict
from coherence_metric.training.trainer import Trainer, read_log

from ..conftest import REPO_DIR


def recipe(data_dir: Path, backbone: Path, output_dir: Path, objective: str = "full", **sections):
    values = {
        "backbone": str(backbone),
        "output_dir": str(output_dir),
        "max_length": 100,
        "data": {"dir": str(data_dir), "dev_limit": None},
        "objective": {"name": objective, "negatives": 2, "queue_size": 8, "momentum": 0.9},
        "mining": {"enabled": objective == "full", "candidates": 4, "every": 2},
        "optimizer": {"lr": 1e-3},
        "schedule": {"name": "swalr", "final_lr": 1e-4, "anneal_steps": 4},
        "train": {"max_steps": 4, "eval_every": 2, "log_every": 1, "seed": 3},
    }
    for section, overrides in sections.items():
        values.setdefault(section, {}).update(overrides) if isinstance(overrides, dict) else values.update(
            {section: overrides})
    return recipe_from_dict(values)


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["pairwise", "contrastive", "full"])
def test_each_objective_trains_and_writes_a_loadable_checkpoint(objective, tiny_training_data, tiny_bert_dir,
                                                                tmp_path):
    result = Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / objective, objective), progress=False).run()
    assert result["steps"] == 4
    log = read_log(tmp_path / objective)
    losses = [record for record in log if "loss" in record]
    evaluations = [record for record in log if "dev_accuracy" in record]
    assert [record["step"] for record in losses] == [1, 2, 3, 4]
    assert [record["step"] for record in evaluations] == [0, 2, 4]
    assert all(0.0 <= record["dev_accuracy"] <= 1.0 for record in evaluations)
    if objective == "full":
        assert all(record["loss_momentum"] > 0 for record in losses)
    # the learning rate follows the SWALR line 1e-3 -> 1e-4 over 4 steps
    assert losses[0]["lr"] == pytest.approx(1e-3 - 0.25 * 9e-4) and losses[-1]["lr"] == pytest.approx(1e-4)
    final = CoherenceScorer(str(tmp_path / objective / "final"))
    config = json.loads((tmp_path / objective / "final" / "coherence_config.json").read_text())
    assert config["training"]["objective"] == objective and config["training"]["steps"] == 4
    assert len(final.score(["One sentence here. And a second one.", "Another text."]).scores) == 2
    assert (tmp_path / objective / "best" / "coherence_config.json").is_file()


def test_an_interrupted_run_resumes_exactly(tiny_training_data, tiny_bert_dir, tmp_path):
    straight = Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "straight"), progress=False)
    straight.run()
    after_straight = straight.state_dict()["rng"]
    Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "resumed", train={"max_steps": 2}),
            progress=False).run()
    resumed = Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "resumed"), progress=False)
    resumed.run()
    after_resumed = resumed.state_dict()["rng"]
    for (name, expected), actual in zip(straight.model.state_dict().items(), resumed.model.state_dict().values()):
        assert torch.allclose(expected, actual, atol=1e-6), name
    assert torch.equal(straight.queue.vectors(), resumed.queue.vectors())
    assert straight.mined == resumed.mined
    # the state is plain tensors and numbers (weights_only=True), and every generator continues where it would have
    state = torch.load(tmp_path / "resumed" / "trainer_state.pt", weights_only=True)
    assert state["step"] == 4
    from coherence_metric.training.resume import restore_random_states

    draws = []
    for states in (after_straight, after_resumed):
        generator = random.Random()
        restore_random_states(states, generator)
        draws.append((generator.random(), torch.rand(2).tolist(), np.random.rand(2).tolist()))
    assert draws[0] == draws[1]


def test_a_changed_recipe_is_refused_on_resume_naming_the_keys(tiny_training_data, tiny_bert_dir, tmp_path):
    output = tmp_path / "run"
    Trainer(recipe(tiny_training_data, tiny_bert_dir, output, "contrastive", train={"max_steps": 2}),
            progress=False).run()
    written = (output / "recipe.json").read_text()
    changed = recipe(tiny_training_data, tiny_bert_dir, output, "contrastive", train={"seed": 4},
                     optimizer={"lr": 2e-3}, max_length=90)
    with pytest.raises(InputError, match="trainer_state.pt was written by another recipe") as caught:
        Trainer(changed, progress=False).run()
    assert all(key in str(caught.value) for key in ("train.seed: 3 -> 4", "optimizer.lr", "max_length: 100 -> 90"))
    assert (output / "recipe.json").read_text() == written, "a refused resume leaves recipe.json as it was"
    # the steps and how often to log and evaluate may change; the log and recipe.json then follow the new values
    allowed = recipe(tiny_training_data, tiny_bert_dir, output, "contrastive",
                     train={"max_steps": 3, "eval_every": 1, "log_every": 3})
    assert Trainer(allowed, progress=False).run()["steps"] == 3
    assert json.loads((output / "recipe.json").read_text())["train"]["max_steps"] == 3


def test_a_failed_best_write_keeps_the_previous_best(tiny_training_data, tiny_bert_dir, tmp_path):
    output = tmp_path / "run"
    trainer = Trainer(recipe(tiny_training_data, tiny_bert_dir, output, "contrastive",
                             train={"max_steps": 2, "save_flavour": "delta"}), progress=False)
    trainer.run()
    before = {path.name: path.read_bytes() for path in (output / "best").rglob("*") if path.is_file()}
    for parameter in trainer.model.backbone.parameters():  # nothing left for a delta: the write fails in the middle
        parameter.requires_grad_(False)
    with pytest.raises(InputError, match="no trainable backbone parameter"):
        trainer.save_model(output / "best")
    after = {path.name: path.read_bytes() for path in (output / "best").rglob("*") if path.is_file()}
    assert after == before
    assert sorted(path.name for path in output.iterdir() if path.name.startswith("best")) == ["best"]
    assert len(CoherenceScorer(str(output / "best")).score(["A text. Two sentences."]).scores) == 1


def test_a_truncated_state_file_is_one_line_on_the_command_line(tiny_training_data, tiny_bert_dir, tmp_path):
    import yaml
    from click.testing import CliRunner

    from coherence_metric.cli import cli

    config = recipe(tiny_training_data, tiny_bert_dir, tmp_path / "run", "contrastive", train={"max_steps": 2})
    Trainer(config, progress=False).run()
    state = tmp_path / "run" / "trainer_state.pt"
    state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(config.to_dict()))
    result = CliRunner().invoke(cli, ["train", "run", str(path), "--quiet"])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("coherence-metric: error:")]
    assert len(errors) == 1 and str(state) in errors[0] and "Traceback" not in result.output


def test_mining_keeps_the_candidates_the_model_scores_highest(tiny_training_data, tiny_bert_dir, tmp_path):
    from coherence_metric.training.evaluation import score_documents

    trainer = Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "mine"), progress=False)
    trainer.step = 2
    trainer.mine_chunk(2)
    position = trainer.stream_position(2, 0)
    item, _ = trainer.item_at(position)
    scores = score_documents(trainer.model, trainer.tokenizer, item.negative_documents()[:4], 100)
    chosen = trainer.mined[position]
    assert len(chosen) == 2 and min(scores[index] for index in chosen) >= max(
        score for index, score in enumerate(scores) if index not in chosen)


def test_frozen_embeddings_and_delta_checkpoints(tiny_training_data, tiny_bert_dir, tmp_path):
    trainer = Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "delta", "contrastive",
                             train={"freeze_embeddings": True, "train_layers": 1, "save_flavour": "delta",
                                    "delta_bf16": True}), progress=False)
    before = trainer.model.backbone.embeddings.word_embeddings.weight.clone()
    trainer.run()
    assert torch.equal(before, trainer.model.backbone.embeddings.word_embeddings.weight)
    from safetensors.torch import load_file

    stored = load_file(str(tmp_path / "delta" / "final" / "backbone_delta.safetensors"))
    assert stored and all(name.startswith("encoder.layer.1.") for name in stored)
    assert all(tensor.dtype == torch.bfloat16 for tensor in stored.values())
    assert len(CoherenceScorer(str(tmp_path / "delta" / "final")).score(["A text. Two sentences."]).scores) == 1


def test_dropout_override_and_a_faster_head(tiny_training_data, tiny_bert_dir, tmp_path):
    trainer = Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "nodrop", "contrastive",
                             train={"dropout": 0.0}, optimizer={"lr": 1e-5, "head_lr": 1e-3}), progress=False)
    dropouts = [module.p for module in trainer.model.backbone.modules() if isinstance(module, torch.nn.Dropout)]
    assert dropouts and set(dropouts) == {0.0}
    rates = sorted(group["lr"] for group in trainer.optimizer.param_groups)
    assert rates == pytest.approx([1e-5, 1e-3])
    head_group = next(group for group in trainer.optimizer.param_groups if group["lr"] == pytest.approx(1e-3))
    assert {id(parameter) for parameter in head_group["params"]} == {id(p) for p in trainer.model.head.parameters()}
    trainer.model.train()  # without dropout, training-mode scores are deterministic
    ids = torch.tensor([[101, 2023, 2003, 102]])
    mask = torch.ones_like(ids)
    assert torch.equal(trainer.model(ids, mask), trainer.model(ids, mask))


@pytest.mark.slow
def test_a_run_can_start_from_a_checkpoint_and_train_with_a_cohesion_term(tiny_training_data, tiny_bert_dir,
                                                                          tmp_path):
    from coherence_metric import load_checkpoint
    from coherence_metric.training.evaluation import score_documents
    from coherence_metric.training.objectives import contrastive_margin_loss

    Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "plain", "contrastive"), progress=False).run()
    start = load_checkpoint(tmp_path / "plain" / "final").model
    config = recipe(tiny_training_data, tiny_bert_dir, tmp_path / "cohesion", "contrastive",
                    train={"max_steps": 2, "dropout": 0.0}, init_checkpoint=str(tmp_path / "plain" / "final"))
    config.objective.cohesion_weight = 2.0
    trainer = Trainer(config, progress=False)
    assert torch.equal(trainer.model.head.weight, start.head.weight), "the run starts from the checkpoint's head"
    assert float(trainer.model.cohesion_weight) == 2.0 and trainer.sentence_embedder is not None
    # The loss sees head + 2.0 x cohesion, the scores users get.
    item = trainer.dev_items[0]
    negatives = item.negative_documents()[:2]
    loss, _, _ = trainer.document_loss(item, negatives)
    with torch.no_grad():
        encoded = trainer.tokenizer([" ".join(document) for document in [item.pos, *negatives]], padding=True,
                                    return_tensors="pt")
        heads = trainer.model(encoded["input_ids"], encoded["attention_mask"])
    combined = heads + 2.0 * torch.tensor(trainer.sentence_embedder.cohesion([item.pos, *negatives]))
    expected = contrastive_margin_loss(combined[:1], combined[1:].unsqueeze(0), 0.1)
    without = contrastive_margin_loss(heads[:1], heads[1:].unsqueeze(0), 0.1)
    assert float(loss.detach()) == pytest.approx(float(expected), abs=1e-5)
    assert abs(float(expected) - float(without)) > 1e-3, "the term changes this loss: the check can fail"
    trainer.run()
    shipped = CoherenceScorer(str(tmp_path / "cohesion" / "final"))
    assert float(shipped.model.cohesion_weight) == 2.0
    documents = [item.pos for item in trainer.dev_items[:3]] + trainer.dev_items[0].negative_documents()[:2]
    during_training = score_documents(trainer.model, trainer.tokenizer, documents, 100,
                                      sentence_embedder=trainer.sentence_embedder)
    assert shipped.score(documents).scores == pytest.approx(during_training, abs=1e-4), \
        "dev accuracy must measure the scores users get, cohesion term included"
    with pytest.raises(InputError, match="cohesion_weight must be a positive number"):
        recipe_from_dict({"backbone": "b", "output_dir": "o", "objective": {"cohesion_weight": 0}})


@pytest.mark.slow
def test_lora_trains_an_adapter_checkpoint(tiny_training_data, tiny_bert_dir, tmp_path):
    Trainer(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "lora", "contrastive",
                   lora={"r": 2, "alpha": 4, "target_modules": ["query", "value"]}, train={"save_flavour": "adapter"}),
            progress=False).run()
    assert (tmp_path / "lora" / "final" / "adapter" / "adapter_model.safetensors").is_file()
    assert len(CoherenceScorer(str(tmp_path / "lora" / "final")).score(["A text. Two sentences."]).scores) == 1


def test_lora_on_xlnet_attention_is_refused_with_the_reason(tiny_training_data, tiny_xlnet_dir, tmp_path):
    with pytest.raises(InputError, match="XLNet: only its feed-forward layers"):
        Trainer(recipe(tiny_training_data, tiny_xlnet_dir, tmp_path / "x", "contrastive",
                       lora={"target_modules": ["q", "v"]}), progress=False)


@pytest.mark.parametrize("values, message", [
    ({"objective": {"name": "triplet"}}, "objective.name must be one of"),
    ({"train": {"max_stepz": 3}}, "unknown key 'max_stepz'"),
    ({"mining": {"enabled": True, "candidates": 1}}, "mining.candidates must be at least"),
])
def test_recipe_errors_name_the_key(values, message):
    base = {"backbone": "x", "output_dir": "y", **values}
    with pytest.raises(InputError, match=message):
        recipe_from_dict(base)


@pytest.mark.slow
def test_two_processes_under_torchrun_on_gloo(tiny_training_data, tiny_bert_dir, tmp_path):
    import yaml

    config = recipe(tiny_training_data, tiny_bert_dir, tmp_path / "ddp", "contrastive").to_dict()
    config["lora"] = None
    path = tmp_path / "ddp.yaml"
    path.write_text(yaml.safe_dump(config))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
         "-m", "coherence_metric.cli", "train", "run", str(path), "--quiet"],
        capture_output=True, text=True, cwd=REPO_DIR, env=env, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    log = read_log(tmp_path / "ddp")
    assert [record["step"] for record in log if "loss" in record] == [1, 2, 3, 4], "rank 0 alone writes the log"
    assert (tmp_path / "ddp" / "final" / "coherence_config.json").is_file()


def test_source_limits_cap_a_corpus_in_train_and_in_the_same_proportion_in_dev():
    from coherence_metric.training.data.examples import TrainingItem
    from coherence_metric.training.data.selection import limit_sources

    def items(source, count):
        return [TrainingItem(id=f"{source}:{i}#0", doc_id=f"{source}:{i}", source=source, pos=["a", "b"],
                             negs=[[1, 0]], tokens=4) for i in range(count)]

    train, dev = items("wiki", 100) + items("bbc", 10), items("wiki", 20) + items("bbc", 4)
    kept_train, kept_dev = limit_sources(train, dev, {"wiki": 25}, seed=1)
    assert sum(item.source == "wiki" for item in kept_train) == 25
    assert sum(item.source == "bbc" for item in kept_train) == 10
    assert sum(item.source == "wiki" for item in kept_dev) == 5 and sum(item.source == "bbc" for item in kept_dev) == 4
    assert kept_train == [item for item in train if item in kept_train]  # file order kept
    assert limit_sources(train, dev, {"wiki": 25}, seed=1) == (kept_train, kept_dev)  # seeded
    with pytest.raises(InputError, match="'reuters', which has no training items"):
        limit_sources(train, dev, {"reuters": 5}, seed=1)
