"""Where the shared research data lives (../shared/data beside the checkout), for training and benchmarks.

Data is read in place, never copied into the repository. Set ``COHERENCE_METRIC_DATA`` to point elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from coherence_metric.errors import InputError

ENV_VAR = "COHERENCE_METRIC_DATA"


def _candidates() -> list:
    here = Path(__file__).resolve().parent.parent
    return [here / ".." / "shared" / "data", Path.cwd() / ".." / "shared" / "data"]


def find_shared_data_dir() -> Optional[Path]:
    """Return the shared data folder, or None when there is none on this machine."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        path = Path(configured).expanduser()
        return path.resolve() if path.is_dir() else None
    for candidate in _candidates():
        if candidate.is_dir():
            return candidate.resolve()
    return None


def shared_data_dir() -> Path:
    """Return the shared data folder or raise an InputError that says how to point at it."""
    found = find_shared_data_dir()
    if found is None:
        where = os.environ.get(ENV_VAR) or "../shared/data beside the checkout"
        raise InputError(f"shared data folder not found at {where}: set {ENV_VAR} to the folder holding the test sets")
    return found
