"""Fixtures of the package's own tests (the tiny checkpoints live in ``tests/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

#: A coherent four-sentence text, as its sentences: what the explain and sentence-break tests read.
RIVER = [
    "The river rose slowly through the night.",
    "By morning the lower fields were under water.",
    "Farmers moved their cattle to the hills before noon.",
    "The council opened the school as a shelter.",
]


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    """A click runner with every command registered (commands register when their module is imported)."""
    from coherence_metric.cli import (  # noqa: F401
        compare,
        diagnose,
        download,
        explain,
        models,
        report,
        score,
    )

    return CliRunner()


@pytest.fixture
def nan_checkpoint(bert_checkpoint, corrupt_copy) -> Path:
    """A checkpoint whose training diverged: its head's bias is NaN, properly hashed."""
    from safetensors.torch import load_file, save_file

    from coherence_metric.models.checkpoint_config import hash_folder_files, read_checkpoint_config

    folder = corrupt_copy(bert_checkpoint)
    tensors = load_file(str(folder / "head.safetensors"))
    tensors["bias"] = tensors["bias"] * float("nan")
    save_file(tensors, str(folder / "head.safetensors"))
    config = read_checkpoint_config(folder)
    config.files = hash_folder_files(folder)
    config.write(folder)
    return folder


def recorded_matches_committed(recorded: dict, committed: dict, defaults: dict) -> None:
    """The recipe recorded in a checkpoint equals the committed file as read today, except for keys added to the
    recipe schema after the checkpoint was trained, which must hold their defaults (they change nothing)."""
    for key, value in committed.items():
        if key not in recorded:
            assert value == defaults[key], f"{key} was added later but is not at its default"
        elif isinstance(value, dict) and isinstance(recorded[key], dict) and key not in ("negatives", "styles"):
            recorded_matches_committed(recorded[key], value, defaults[key])
        else:
            assert recorded[key] == value, key
