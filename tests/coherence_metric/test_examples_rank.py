"""The shipped examples show what the shipped default does: an ordered text above its shuffle, as README,
`make demo` and examples/score_system_outputs.py present it. If a future default stops doing this, the examples (or
the default) must change, not the claim. (`make demo`'s two texts:
tests/coherence_metric/models/test_default_model.py.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.slow
def test_score_system_outputs_ranks_ordered_above_shuffled():
    completed = subprocess.run([sys.executable, str(EXAMPLES / "score_system_outputs.py"),
                                str(EXAMPLES / "system_outputs.jsonl")], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    ranking = [line.split("\t")[0] for line in completed.stdout.splitlines() if "\t" in line]
    assert ranking == ["ordered", "shuffled"], completed.stdout
