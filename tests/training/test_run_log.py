"""``log.jsonl`` after a SIGKILL and a resume, strict JSON, and no orphan temporary files.

The run that gets killed is a real process killed with SIGKILL between two saved states, as a session ending or an
out-of-memory kill does it; the resumed run is this process, as a user restarting the same command."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest
import torch

from coherence_metric.training.loop import LOG_FILE, STATE_FILE, LoopConfig, ObjectiveLoop
from coherence_metric.training.run_log import cut_log_after_step

from .test_loop import LinearProbe

KILLED_RUN = """
import os, signal, sys
sys.path.insert(0, {repo!r})
from tests.training.test_loop import LinearProbe
from coherence_metric.training.loop import LoopConfig, ObjectiveLoop

class KilledProbe(LinearProbe):
    def batch(self, position):
        if position == {kill_at}:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().batch(position)

ObjectiveLoop(KilledProbe(), LoopConfig(**{config!r}), progress=False).run()
"""


def _config(output: Path) -> Dict[str, Any]:
    return {"output_dir": str(output), "max_steps": 20, "lr": 0.1, "eval_every": 10, "log_every": 1}


def _strict_records(path: Path) -> List[Dict[str, Any]]:
    """The log read by a strict JSON parser (bare NaN / Infinity are refused, as jq and JavaScript refuse them)."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{path} holds a bare {constant}: not JSON")

    return [json.loads(line, parse_constant=refuse) for line in path.read_text(encoding="utf-8").splitlines()]


def _without_timing(records: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [{key: value for key, value in record.items() if key != "seconds_per_step"} for record in records]


@pytest.mark.slow
def test_a_run_killed_and_resumed_logs_each_step_once(tmp_path: Path) -> None:
    whole_probe = LinearProbe()
    ObjectiveLoop(whole_probe, LoopConfig(**_config(tmp_path / "whole")), progress=False).run()
    killed = tmp_path / "killed"
    script = KILLED_RUN.format(repo=str(Path(__file__).resolve().parents[2]), kill_at=16, config=_config(killed))
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert process.returncode == -signal.SIGKILL, process.stderr  # killed during step 17, state saved at step 10
    assert max(record["step"] for record in _strict_records(killed / LOG_FILE)) == 16

    ObjectiveLoop(LinearProbe(), LoopConfig(**_config(killed)), progress=False).run()
    records = _strict_records(killed / LOG_FILE)
    steps = [record["step"] for record in records if "loss" in record]
    assert steps == list(range(1, 21))  # each step once, in order (37-45 duplicates were seen)
    assert _without_timing(records) == _without_timing(_strict_records(tmp_path / "whole" / LOG_FILE))


def test_orphan_temporary_state_files_are_removed_when_a_run_starts(tmp_path: Path) -> None:
    """SIGKILL during the atomic write leaves ``loop_state.pt.tmp-<pid>`` (an exception removes its own file)."""
    output = tmp_path / "run"
    ObjectiveLoop(LinearProbe(), LoopConfig(**{**_config(output), "max_steps": 10}), progress=False).run()
    orphans = [output / f"{STATE_FILE}.tmp-999999", output / "recipe.json.tmp-999998", output / f"{LOG_FILE}.tmp-1"]
    for orphan in orphans:
        orphan.write_bytes(b"PK\x03\x04 half a zip")
    keep = output / "notes.tmp-1"  # not a file the loop writes
    keep.write_text("mine")
    ObjectiveLoop(LinearProbe(), LoopConfig(**_config(output)), progress=False).run()
    assert not any(orphan.exists() for orphan in orphans)
    assert keep.read_text() == "mine"
    assert torch.load(output / STATE_FILE, weights_only=True)["step"] == 20


class NaNProbe(LinearProbe):
    """An objective that logs a number that is not finite (a ratio over an empty batch, say)."""

    def loss(self, batch: torch.Tensor):
        loss, numbers = super().loss(batch)
        return loss, {**numbers, "ratio": float("nan"), "scale": float("inf")}

    def evaluate(self) -> Dict[str, float]:
        return {**super().evaluate(), "recall": float("nan")}


def test_the_log_is_strict_json_with_null_for_nan(tmp_path: Path) -> None:
    ObjectiveLoop(NaNProbe(), LoopConfig(**{**_config(tmp_path / "run"), "max_steps": 4}), progress=False).run()
    records = _strict_records(tmp_path / "run" / LOG_FILE)
    trains = [record for record in records if "loss" in record]
    assert trains and all(record["ratio"] is None and record["scale"] is None for record in trains)
    assert all(math.isfinite(record["loss"]) for record in trains)
    assert [record["eval_recall"] for record in records if "eval_accuracy" in record] == [None, None]


def test_cutting_the_log_keeps_other_lines_and_drops_a_torn_one(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    path.write_text('{"step": 0, "eval_accuracy": 0.5}\n{"step": 5, "loss": 1.0}\n{"note": "data"}\n'
                    '{"step": 10, "loss": 0.5}\n{"step": 11, "lo', encoding="utf-8")
    assert cut_log_after_step(path, 5) == 2
    assert path.read_text(encoding="utf-8") == '{"step": 0, "eval_accuracy": 0.5}\n{"step": 5, "loss": 1.0}\n' \
                                               '{"note": "data"}\n'
    assert not [name for name in os.listdir(tmp_path) if ".tmp-" in name]
