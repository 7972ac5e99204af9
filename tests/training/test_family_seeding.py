"""The same recipe and seed give the same run, whatever the process did before: CONPONO,
DiscoEval's criteria and multi-view seeded torch after building their models, so the initial weights (and the
step-0 evaluation: multi-view 0.078 vs 0.156) followed the global random state."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest
import torch
import yaml

from coherence_metric.training.loop import read_loop_log

from ..conftest import REPO_DIR

pytestmark = pytest.mark.slow

CONFIGS = REPO_DIR / "training" / "configs"
SHORT = {"loop.max_steps": 1, "loop.eval_every": 1, "loop.log_every": 1}


def _conpono(backbone: Path, shared_data: Path, folder: Path) -> Path:
    path = folder / "conpono-tiny.yaml"
    path.write_text(yaml.safe_dump({
        "family": "conpono",
        "data": {"corpora": ["lee"], "max_documents": 20, "dev_max_documents": 10, "paragraph_sentences": 8,
                 "data_dir": str(shared_data)},
        "model": {"backbone": str(backbone), "pooling": "mean", "max_length": 48},
        "objective": {"anchor_sentences": 2, "target_sentences": 1, "max_distance": 2, "hard_negatives": 3,
                      "random_negatives": 4, "batch_size": 2, "eval_examples": 4},
        "loop": {"output_dir": str(folder / "unused"), "max_steps": 2, "lr": 1e-3},
    }), encoding="utf-8")
    return path


FAMILIES: Dict[str, Callable[[Path, Path, Path], Any]] = {
    "conpono": lambda backbone, data, folder: (_conpono(backbone, data, folder), {}),
    "discoeval_criteria": lambda backbone, data, folder: (CONFIGS / "discoeval-smoke.yaml", {
        "model.word_vectors": str(backbone), "model.hidden_size": 8, "model.mlp_hidden_size": 8, "data.files": 1,
        "data.folder": str(data / "corpora" / "enwiki_wikiextractor_2015"), "data.max_train_articles": 4,
        "data.dev_sentences": 20, "objective.vocabulary_size": 200}),
    "multiview": lambda backbone, data, folder: (CONFIGS / "multiview-smoke.yaml", {
        "model.word_vectors": str(backbone), "model.hidden": 8, "data.batch_size": 16, "data.max_documents": 40,
        "data.eval_batches": 2, "data.pc_sentences": 32}),
}


def _numbers(output: Path) -> List[Dict[str, Any]]:
    """The log without wall-clock fields."""
    return [{key: value for key, value in record.items() if key != "seconds_per_step"}
            for record in read_loop_log(output)]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_recipe_run_twice_in_one_process_gives_the_same_run(family, tiny_bert_dir, shared_data, tmp_path):
    run_recipe = importlib.import_module(f"coherence_metric.training.{family}.recipe").run_recipe
    path, overrides = FAMILIES[family](tiny_bert_dir, shared_data, tmp_path)
    runs = []
    for attempt in range(2):
        torch.rand(attempt + 3)  # whatever the process did before moves the global random state
        output = tmp_path / f"run{attempt}"
        run_recipe(path, {**overrides, **SHORT, "loop.output_dir": str(output)}, progress=False)
        runs.append(_numbers(output))
    assert runs[0] and runs[0] == runs[1]
