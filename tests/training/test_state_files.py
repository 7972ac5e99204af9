"""Run-folder safety: folders replaced without a moment of loss, fsynced state files, RNG states that load with
``weights_only=True`` and restore exactly, and resume checks that name every changed recipe key."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import List

import numpy as np
import pytest
import torch

from coherence_metric.errors import InputError
from coherence_metric.training.resume import check_same_recipe, random_states, recipe_changes, restore_random_states
from coherence_metric.training.state_files import read_state, recover_directory, replace_directory, save_atomically

TRAINING_DIR = Path(__file__).resolve().parents[2] / "training"


def _folder(path: Path, files: dict) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    return path


def _contents(path: Path) -> dict:
    return {item.name: item.read_text(encoding="utf-8") for item in sorted(path.iterdir())}


def test_a_write_that_fails_half_way_keeps_the_previous_folder(tmp_path: Path) -> None:
    best = _folder(tmp_path / "best", {"weights.pt": "old weights", "manifest.json": "old manifest"})

    def half_then_fail(folder: Path) -> None:
        (folder / "weights.pt").write_text("new weights", encoding="utf-8")
        (folder / "missing" / "manifest.json").write_text("never", encoding="utf-8")  # FileNotFoundError

    with pytest.raises(FileNotFoundError):
        replace_directory(best, half_then_fail)
    assert _contents(best) == {"manifest.json": "old manifest", "weights.pt": "old weights"}
    assert sorted(item.name for item in tmp_path.iterdir()) == ["best"], "no half-written folder is left behind"
    replace_directory(best, lambda folder: (folder / "weights.pt").write_text("new", encoding="utf-8"))
    assert _contents(best) == {"weights.pt": "new"}
    assert sorted(item.name for item in tmp_path.iterdir()) == ["best"]


def test_the_recovery_rule_after_a_kill_between_the_renames(tmp_path: Path) -> None:
    # killed after the old folder was moved aside, before the new one was renamed into place
    _folder(tmp_path / "best.old", {"weights.pt": "old"})
    _folder(tmp_path / "best.tmp-99999", {"weights.pt": "half"})
    recover_directory(tmp_path / "best")
    assert _contents(tmp_path / "best") == {"weights.pt": "old"}
    assert sorted(item.name for item in tmp_path.iterdir()) == ["best"]
    # killed after the new folder was in place, while the old one was being deleted
    _folder(tmp_path / "best.old", {"weights.pt": "older"})
    recover_directory(tmp_path / "best")
    assert _contents(tmp_path / "best") == {"weights.pt": "old"} and not (tmp_path / "best.old").exists()


def test_state_files_and_folders_are_fsynced_before_they_replace_the_old_ones(tmp_path: Path, monkeypatch) -> None:
    synced: List[str] = []
    real_fsync = os.fsync

    def recording_fsync(descriptor: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{descriptor}"))
        real_fsync(descriptor)

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc to name the synced files")
    monkeypatch.setattr(os, "fsync", recording_fsync)
    save_atomically({"step": 1}, tmp_path / "state.pt")
    assert any(Path(name).name.startswith("state.pt.tmp-") for name in synced), synced
    assert str(tmp_path) in synced, "the folder holding the renamed file is synced too"
    synced.clear()
    replace_directory(tmp_path / "best", lambda folder: (folder / "weights.pt").write_text("w", encoding="utf-8"))
    assert any(name.endswith("weights.pt") for name in synced) and str(tmp_path) in synced


def test_a_truncated_state_file_is_a_one_line_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "state.pt"
    save_atomically({"weights": torch.zeros(1000)}, path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(InputError) as caught:
        read_state(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_random_states_load_with_weights_only_and_restore_exactly(tmp_path: Path) -> None:
    generator = random.Random(5)
    generator.gauss(0, 1)  # leaves a cached Gaussian in the state (gauss_next)
    np.random.seed(3)
    np.random.standard_normal()  # numpy's cached Gaussian (has_gauss = 1)
    torch.manual_seed(4)
    save_atomically({"rng": random_states(generator), "global": random_states()}, tmp_path / "state.pt")
    expected = (generator.gauss(0, 1), generator.random(), random.random(), np.random.standard_normal(),
                np.random.rand(3).tolist(), torch.rand(3).tolist())
    generator = random.Random(0)
    random.random(), np.random.rand(), torch.rand(1)  # move every generator on, as a new process would differ
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    restore_random_states(state["global"])
    restore_random_states(state["rng"], generator)
    assert (generator.gauss(0, 1), generator.random(), random.random(), np.random.standard_normal(),
            np.random.rand(3).tolist(), torch.rand(3).tolist()) == expected


def test_no_training_research_or_benchmark_code_unpickles_with_weights_only_false() -> None:
    """A run folder or cache downloaded from elsewhere must not run code when loaded."""
    offenders = [str(path.relative_to(TRAINING_DIR.parent)) for folder in ("training", "research", "benchmarks")
                 for path in (TRAINING_DIR.parent / folder).rglob("*.py")
                 if "weights_only=False" in path.read_text(encoding="utf-8")]
    assert offenders == []


def test_recipe_changes_name_every_changed_key_and_take_defaults_for_new_ones() -> None:
    stored = {"seed": 1, "train": {"max_steps": 10, "lr": 0.1}, "lora": None}
    current = {"seed": 2, "train": {"max_steps": 20, "lr": 0.1, "new_option": 5}, "lora": {"r": 4}}
    changes = recipe_changes(stored, current, defaults={"train": {"new_option": 0}})
    assert [key for key, _, _ in changes] == ["seed", "train.max_steps", "train.new_option", "lora"]
    assert recipe_changes(stored, {**current, "lora": None, "seed": 1}, defaults=None) == [
        ("train.max_steps", 10, 20)]  # an option the state predates, with no known default, is accepted
    with pytest.raises(InputError) as caught:
        check_same_recipe(Path("run/state.pt"), stored, current, allowed=("train.max_steps",),
                          defaults={"train": {"new_option": 0}})
    message = str(caught.value)
    assert "seed: 1 -> 2" in message and "train.new_option: 0 -> 5" in message and "lora" in message
    assert "max_steps" not in message.split(";")[0] and "\n" not in message
    check_same_recipe(Path("run/state.pt"), stored, {**stored, "train": {"max_steps": 30, "lr": 0.1}},
                      allowed=("train.max_steps",))


class NotAState:
    """Any class: unpickling it would run its module's code, so a state file may not hold one."""


def test_a_state_of_an_earlier_version_still_resumes_and_foreign_objects_are_refused(tmp_path: Path) -> None:
    generator = random.Random(8)
    np.random.seed(9)
    path = tmp_path / "old.pt"  # what earlier versions wrote: getstate() tuples and numpy's uint32 array
    torch.save({"rng": {"python": generator.getstate(), "torch": torch.random.get_rng_state(),
                        "numpy": np.random.get_state()}}, path)
    expected = (generator.random(), np.random.rand(2).tolist(), torch.rand(2).tolist())
    generator = random.Random(0)
    np.random.rand(), torch.rand(1)
    restore_random_states(read_state(path, keys=("rng",))["rng"], generator)
    assert (generator.random(), np.random.rand(2).tolist(), torch.rand(2).tolist()) == expected
    torch.save({"rng": NotAState()}, tmp_path / "foreign.pt")
    with pytest.raises(InputError, match="foreign.pt: cannot resume"):
        read_state(tmp_path / "foreign.pt")
    with pytest.raises(InputError, match="no 'recipe'"):
        read_state(path, keys=("rng", "recipe"))
