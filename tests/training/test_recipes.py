"""The committed YAML recipes parse, and carry the paper's hyper-parameters where they claim to."""

from __future__ import annotations

from pathlib import Path

import pytest

from coherence_metric.errors import InputError
from coherence_metric.training.config import load_recipe

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"


@pytest.mark.parametrize("name", ["paper-pairwise", "paper-contrastive", "paper-full", "cpu-minilm-full",
                                  "cpu-minilm-pairwise", "cpu-minilm-contrastive"])
def test_recipe_parses(name):
    recipe = load_recipe(CONFIGS / f"{name}.yaml")
    assert recipe.objective.margin == 0.1
    assert recipe.objective.name == name.split("-")[-1]


def test_the_intrusion_recipe_differs_from_the_cpu_default_only_where_it_says():
    base = load_recipe(CONFIGS / "cpu-minilm-full.yaml").to_dict()
    intrusion = load_recipe(CONFIGS / "cpu-minilm-intrusion.yaml").to_dict()
    assert (intrusion["objective"]["intrusions"], intrusion["data"]["decontaminate"]) == (2, True)
    for recipe in (base, intrusion):
        recipe["objective"]["intrusions"], recipe["data"]["decontaminate"], recipe["output_dir"] = (0, False, "x")
    assert intrusion == base


def test_the_cohesion_recipe_continues_the_intrusion_recipe_from_the_0_1_0_default():
    """It names the 0.1.0 default's document model, not `default`, which moved to another checkpoint in 0.2.0."""
    intrusion = load_recipe(CONFIGS / "cpu-minilm-intrusion.yaml").to_dict()
    cohesion = load_recipe(CONFIGS / "cpu-minilm-cohesion.yaml").to_dict()
    base = "runs/base-cm-minilm-2026.11"
    assert (cohesion["init_checkpoint"], cohesion["objective"]["cohesion_weight"]) == (base, 8.0)
    assert (cohesion["train"]["max_steps"], cohesion["schedule"]["anneal_steps"]) == (2000, 2000)
    for recipe in (intrusion, cohesion):
        recipe["init_checkpoint"], recipe["objective"]["cohesion_weight"], recipe["output_dir"] = None, None, "x"
        recipe["optimizer"]["lr"], recipe["schedule"]["anneal_steps"] = 0.0, 0
        for key in ("max_steps", "eval_every", "seed"):
            recipe["train"][key] = 0
    assert cohesion == intrusion


@pytest.mark.parametrize("arm, negatives", [("pairwise", 1), ("contrastive", 5)])
def test_the_ablation_arms_are_the_cpu_default_cut_at_its_step_2500(arm, negatives):
    """The Table 1 ablation compares objectives only: same data, seed and learning-rate schedule as the full run."""
    base = load_recipe(CONFIGS / "cpu-minilm-full.yaml").to_dict()
    ablation = load_recipe(CONFIGS / f"cpu-minilm-{arm}.yaml").to_dict()
    assert (ablation["objective"]["name"], ablation["objective"]["negatives"]) == (arm, negatives)
    assert (ablation["mining"]["enabled"], ablation["train"]["max_steps"]) == (False, 2500)
    for recipe in (base, ablation):
        for key in ("objective", "mining", "output_dir"):
            recipe.pop(key)
        recipe["train"].pop("max_steps")
    assert ablation == base


def test_paper_full_has_the_papers_values():
    recipe = load_recipe(CONFIGS / "paper-full.yaml")
    assert (recipe.objective.negatives, recipe.objective.queue_size, recipe.objective.momentum,
            recipe.objective.loss_weight) == (5, 1000, 0.9999999, 0.85)
    assert (recipe.mining.candidates, recipe.mining.every) == (50, 200)
    assert (recipe.optimizer.lr, recipe.schedule.final_lr) == (5e-6, 1e-6)
    assert recipe.backbone == "xlnet/xlnet-base-cased" and recipe.pooling == "last"


def test_overrides_reach_nested_keys():
    recipe = load_recipe(CONFIGS / "cpu-minilm-full.yaml", {"train.max_steps": 7, "output_dir": "elsewhere"})
    assert recipe.train.max_steps == 7 and recipe.output_dir == "elsewhere"


def test_numbers_written_as_yaml_text_are_read_as_numbers_and_wrong_types_are_named():
    # PyYAML reads "1e-3" (no dot) as a string: the recipe must still mean 0.001, not crash in the scheduler.
    recipe = load_recipe(CONFIGS / "cpu-minilm-full.yaml", {"optimizer.head_lr": "1e-3", "optimizer.lr": 3})
    assert recipe.optimizer.head_lr == 0.001 and recipe.optimizer.lr == 3.0
    for key, value, message in [("train.max_steps", "many", "max_steps must be an integer"),
                                ("train.bf16", "yes please", "bf16 must be true or false"),
                                ("optimizer.lr", "fast", "lr must be a number"),
                                ("train.dropout", 1.5, "train.dropout must be in")]:
        with pytest.raises(InputError, match=message):
            load_recipe(CONFIGS / "cpu-minilm-full.yaml", {key: value})


def test_a_recipe_names_its_family_and_unknown_families_are_refused(tmp_path):
    from coherence_metric.training.config import read_recipe_mapping
    from coherence_metric.training.families import recipe_family

    assert recipe_family(read_recipe_mapping(CONFIGS / "cpu-minilm-full.yaml"), "x") == "coherence"
    path = tmp_path / "odd.yaml"
    path.write_text("family: alchemy\n")
    with pytest.raises(InputError, match="unknown family 'alchemy'"):
        recipe_family(read_recipe_mapping(path), str(path))


def _pointwise(name: str) -> dict:
    from dataclasses import asdict

    from coherence_metric.training.pointwise.recipe import load_pointwise_recipe

    return asdict(load_pointwise_recipe(CONFIGS / f"{name}.yaml", {}))


def _assert_equal_but_for(first: dict, second: dict, keys: dict) -> None:
    """Two recipes (as dicts) are equal once ``keys`` (section -> key names) are left out of both."""
    for recipe in (first, second):
        for section, names in keys.items():
            for key in names:
                recipe[section].pop(key)
    assert first == second


def test_the_gpu_joint_recipe_is_the_cpu_joint_recipe_at_gpu_scale_only():
    """What the GPU run changed is scale (texts per step, documents, steps, one pass per step, the device), never the
    data's kinds, the negatives or the losses: its dev numbers then speak for the recipe, not for a new one."""
    cpu, gpu = _pointwise("cpu-minilm-joint"), _pointwise("gpu-minilm-joint")
    assert (gpu["model"]["device"], gpu["objective"]["batch_size"], gpu["objective"]["tokens_per_pass"]) == (
        "cuda", 32, None)
    assert (gpu["data"]["train_documents"], gpu["loop"]["max_steps"], gpu["loop"]["lr"]) == (5000, 3000, 4e-5)
    _assert_equal_but_for(gpu, cpu, {
        "model": ["device"], "data": ["train_documents"], "objective": ["batch_size", "tokens_per_pass"],
        "loop": ["output_dir", "max_steps", "lr", "warmup_steps", "eval_every", "log_every", "save_every"]})


def test_the_gpu_boundary_recipe_is_the_boundary_recipe_from_the_gpu_run():
    boundary, gpu = _pointwise("cpu-minilm-joint-boundary"), _pointwise("cpu-minilm-gpu-joint-boundary")
    assert (gpu["model"]["init_checkpoint"], gpu["loop"]["output_dir"]) == ("runs/gpu-joint/final",
                                                                             "runs/gpu-joint-boundary")
    _assert_equal_but_for(gpu, boundary, {"model": ["init_checkpoint"], "loop": ["output_dir"]})


def test_the_accurate_tiers_recipe_is_the_gpu_joint_recipe_on_mpnet_with_lora():
    """The accurate tier changes the backbone, how it trains (LoRA adapters, so a learning rate for them)
    and the scale (texts per step, steps), never the data's kinds, the negatives or the losses."""
    minilm, mpnet = _pointwise("gpu-minilm-joint"), _pointwise("gpu-mpnet-lora-joint")
    assert mpnet["model"]["backbone"] == "sentence-transformers/all-mpnet-base-v2"
    assert mpnet["model"]["lora"]["r"] == 16 and mpnet["objective"]["save_flavour"] == "adapter"
    assert mpnet["objective"]["batch_size"] * mpnet["loop"]["max_steps"] == 96_000  # as many positives as 0.8.0
    assert minilm["model"]["lora"] is None
    _assert_equal_but_for(mpnet, minilm, {
        "model": ["backbone", "lora"], "objective": ["batch_size", "save_flavour", "delta_bf16"],
        "loop": ["output_dir", "max_steps", "lr", "final_lr", "eval_every"]})
