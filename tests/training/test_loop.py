"""The shared loop of the other objectives: exact resume, best keeping, the plateau rule, the log, errors."""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
import torch
from torch import nn

from coherence_metric.errors import InputError
from coherence_metric.training.loop import LoopConfig, ObjectiveLoop, read_loop_log, scheduled_lr


class LinearProbe:
    """Logistic regression on fixed random data: small enough to train in milliseconds, real enough to learn."""

    def __init__(self, evaluations: List[float] | None = None) -> None:
        torch.manual_seed(0)
        self.module = nn.Linear(4, 1)
        generator = torch.Generator().manual_seed(1)
        self.features = torch.randn(64, 4, generator=generator)
        self.labels = (self.features @ torch.tensor([1.0, -2.0, 0.5, 0.0]) > 0).float()
        self.scripted = list(evaluations or [])
        self.saved: List[str] = []

    def batch(self, position: int) -> torch.Tensor:
        return torch.tensor(random.Random(position).sample(range(64), 8))

    def loss(self, batch: torch.Tensor) -> Tuple[torch.Tensor, Dict[str, float]]:
        logits = self.module(self.features[batch]).squeeze(-1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, self.labels[batch])
        return loss, {"batch_size": float(len(batch))}

    def evaluate(self) -> Dict[str, float]:
        if self.scripted:
            return {"accuracy": self.scripted.pop(0)}
        predictions = (self.module(self.features).squeeze(-1) > 0).float()
        return {"accuracy": float((predictions == self.labels).float().mean())}

    def after_step(self) -> None:
        pass

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        torch.save(self.module.state_dict(), folder / "weights.pt")
        self.saved.append(folder.name)


def config(tmp_path: Path, **changes: Any) -> LoopConfig:
    values: Dict[str, Any] = {"output_dir": str(tmp_path / "run"), "max_steps": 20, "lr": 0.1, "eval_every": 5,
                              "log_every": 5}
    values.update(changes)
    return LoopConfig(**values)


def test_the_loop_learns_and_logs(tmp_path: Path) -> None:
    result = ObjectiveLoop(LinearProbe(), config(tmp_path, max_steps=60), progress=False).run()
    assert result["steps"] == 60 and result["best"] > 0.9
    records = read_loop_log(tmp_path / "run")
    trains = [record for record in records if "loss" in record]
    assert [record["step"] for record in trains] == list(range(5, 61, 5))
    assert trains[-1]["loss"] < trains[0]["loss"]
    assert all(record["batch_size"] == 8.0 for record in trains)
    assert (tmp_path / "run" / "best" / "weights.pt").is_file() and (tmp_path / "run" / "final").is_dir()
    assert json.loads((tmp_path / "run" / "recipe.json").read_text())["loop"]["max_steps"] == 60


def test_an_interrupted_run_resumes_to_the_same_weights(tmp_path: Path) -> None:
    whole = LinearProbe()
    ObjectiveLoop(whole, config(tmp_path / "a"), progress=False).run()
    first = LinearProbe()
    ObjectiveLoop(first, config(tmp_path / "b", max_steps=10), progress=False).run()
    second = LinearProbe()  # a fresh process: new objects, state read from disk
    loop = ObjectiveLoop(second, config(tmp_path / "b"), progress=False)
    loop.run()
    assert loop.step == 20
    for left, right in zip(whole.module.parameters(), second.module.parameters()):
        assert torch.equal(left, right)


class CrashingProbe(LinearProbe):
    """A probe whose process "dies" (raises) when it reaches a given batch: a session ending mid-run."""

    def __init__(self, crash_at: int) -> None:
        super().__init__()
        self.crash_at = crash_at

    def batch(self, position: int) -> torch.Tensor:
        if position == self.crash_at:
            raise KeyboardInterrupt
        return super().batch(position)


def test_save_every_resumes_from_between_evaluations(tmp_path: Path) -> None:
    whole = LinearProbe()
    ObjectiveLoop(whole, config(tmp_path / "a", eval_every=10, save_every=3), progress=False).run()
    with pytest.raises(KeyboardInterrupt):  # dies during step 8, after the state of step 6 was written
        ObjectiveLoop(CrashingProbe(crash_at=7), config(tmp_path / "b", eval_every=10, save_every=3),
                      progress=False).run()
    second = LinearProbe()
    loop = ObjectiveLoop(second, config(tmp_path / "b", eval_every=10, save_every=3), progress=False)
    assert loop.load_state() and loop.step == 6
    loop.run()
    assert loop.step == 20
    for left, right in zip(whole.module.parameters(), second.module.parameters()):
        assert torch.equal(left, right)
    with pytest.raises(InputError, match="loop.save_every must be >= 1"):
        ObjectiveLoop(LinearProbe(), config(tmp_path / "c", save_every=0), progress=False)


def test_shrink_on_plateau_divides_the_rate_and_stops(tmp_path: Path) -> None:
    probe = LinearProbe(evaluations=[0.5, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2])
    loop = ObjectiveLoop(probe, config(tmp_path, schedule="shrink_on_plateau", min_lr=0.001, max_steps=100),
                         progress=False)
    result = loop.run()
    rates = [record["lr"] for record in read_loop_log(tmp_path / "run") if "eval_accuracy" in record]
    assert rates[:5] == pytest.approx([0.1, 0.1, 0.02, 0.004, 0.0008])
    assert result["stopped_early"] and result["steps"] == 20
    assert result["best"] == 0.6


def test_warmup_then_linear_decay() -> None:
    schedule = LoopConfig(lr=1.0, schedule="linear", warmup_steps=4, max_steps=14, final_lr=0.0)
    assert [scheduled_lr(schedule, step, 1.0) for step in (0, 3, 4, 9, 14)] == pytest.approx([0.25, 1, 1, 0.5, 0])


def test_bad_settings_and_states_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="loop.optimizer"):
        ObjectiveLoop(LinearProbe(), config(tmp_path, optimizer="lbfgs"), progress=False)
    with pytest.raises(InputError, match="no 'f1'"):
        ObjectiveLoop(LinearProbe(), config(tmp_path, select="f1"), progress=False).run()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "loop_state.pt").write_bytes(b"not a state")
    with pytest.raises(InputError, match="cannot resume"):
        ObjectiveLoop(LinearProbe(), config(tmp_path, output_dir=str(broken)), progress=False).run()


def test_a_changed_recipe_is_refused_on_resume_naming_the_keys(tmp_path: Path) -> None:
    ObjectiveLoop(LinearProbe(), config(tmp_path, max_steps=10), progress=False).run()
    written = (tmp_path / "run" / "recipe.json").read_text()
    with pytest.raises(InputError, match="loop_state.pt was written by another recipe") as caught:
        ObjectiveLoop(LinearProbe(), config(tmp_path, max_steps=20, lr=0.2, seed=1), progress=False).run()
    assert "loop.lr: 0.1 -> 0.2" in str(caught.value) and "loop.seed: 0 -> 1" in str(caught.value)
    assert "max_steps" not in str(caught.value).split(";")[0], "max_steps may change: not named as a change"
    assert (tmp_path / "run" / "recipe.json").read_text() == written, "a refused resume leaves recipe.json alone"
    family = config(tmp_path / "family", max_steps=5)  # a family's recipe: every section counts, not only loop:
    ObjectiveLoop(LinearProbe(), family, recipe={"objective": {"margin": 0.5}, "loop": asdict(family)},
                  progress=False).run()
    with pytest.raises(InputError, match=r"objective.margin: 0.5 -> 1.0"):
        ObjectiveLoop(LinearProbe(), family, recipe={"objective": {"margin": 1.0}, "loop": asdict(family)},
                      progress=False).run()
    loop = ObjectiveLoop(LinearProbe(), config(tmp_path, max_steps=12, eval_every=1, log_every=2, save_every=1),
                         progress=False)
    assert loop.run()["steps"] == 12


class FailingSaveProbe(LinearProbe):
    """A probe whose save dies half-way: the weights are written, the manifest's folder does not exist."""

    def save(self, folder: Path) -> None:
        torch.save({"weight": torch.full((1, 4), 7.0)}, folder / "weights.pt")
        (folder / "missing" / "manifest.json").write_text("{}", encoding="utf-8")


def test_a_failed_best_write_keeps_the_previous_best(tmp_path: Path) -> None:
    ObjectiveLoop(LinearProbe(), config(tmp_path, max_steps=10), progress=False).run()
    best = tmp_path / "run" / "best" / "weights.pt"
    before = best.read_bytes()
    loop = ObjectiveLoop(FailingSaveProbe(evaluations=[2.0]), config(tmp_path, max_steps=10), progress=False)
    assert loop.load_state()
    with pytest.raises(FileNotFoundError):
        loop.evaluate_and_keep_best()  # a new best whose write fails
    assert best.read_bytes() == before
    assert sorted(path.name for path in (tmp_path / "run").iterdir() if path.name.startswith("best")) == ["best"]


def test_the_state_loads_with_weights_only_and_a_truncated_one_is_one_line(tmp_path: Path) -> None:
    ObjectiveLoop(LinearProbe(), config(tmp_path, max_steps=5), progress=False).run()
    path = tmp_path / "run" / "loop_state.pt"
    assert torch.load(path, weights_only=True)["step"] == 5
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(InputError) as caught:
        ObjectiveLoop(LinearProbe(), config(tmp_path), progress=False).run()
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
