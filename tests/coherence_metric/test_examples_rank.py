"""The shipped examples show what the shipped default does: an ordered text above its shuffle, as README,
`make demo` and examples/score_system_outputs.py present it. If a future default stops doing this, the examples (or
the default) must change, not the claim. (`make demo`'s two texts: tests/coherence_metric/models/test_accurate_model.py.
The default since 0.9.0 scores with a backbone fetched once: without it in the store the test skips.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import require_store_backbone

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.slow
def test_score_system_outputs_ranks_ordered_above_shuffled():
    require_store_backbone("sentence-transformers/all-mpnet-base-v2")  # `--model default`, the accurate tier's
    completed = subprocess.run([sys.executable, str(EXAMPLES / "score_system_outputs.py"),
                                str(EXAMPLES / "system_outputs.jsonl")], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    ranking = [line.split("\t")[0] for line in completed.stdout.splitlines() if "\t" in line]
    assert ranking == ["ordered", "shuffled"], completed.stdout
