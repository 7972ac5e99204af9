"""The committed YAML recipes parse, and carry the paper's hyper-parameters where they claim to."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.config import load_recipe

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"


@pytest.mark.parametrize("name", ["paper-pairwise", "paper-contrastive", "paper-full", "cpu-minilm-full"])
def test_recipe_parses(name):
    recipe = load_recipe(CONFIGS / f"{name}.yaml")
    assert recipe.objective.margin == 0.1
    assert recipe.objective.name == name.split("-")[-1]


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
