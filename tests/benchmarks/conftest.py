"""Fixtures for the benchmark tests: the shared data folder (skip cleanly when absent) and cached test sets."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from coherence_metric.research.data_dir import ENV_VAR, find_shared_data_dir


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data folder; data tests skip with the reason when this machine has none."""
    found = find_shared_data_dir()
    if found is None:
        pytest.skip(f"shared data folder not found (../shared/data beside the checkout): set {ENV_VAR} to run these")
    return found


@pytest.fixture(scope="session")
def require_data(shared_data: Path) -> Callable[[str], Path]:
    """Return a function giving the path of a file in the shared data folder, skipping the test when it is missing."""

    def require(relative: str) -> Path:
        path = shared_data / relative
        if not path.exists():
            pytest.skip(f"{path} is missing from the shared data folder")
        return path

    return require


@pytest.fixture(scope="session")
def load_cached(shared_data: Path):
    """Return a loader of registered test sets that loads each (name, seed) once per session."""
    from coherence_metric.research.datasets import load_test_set

    cache: dict = {}

    def load(name: str, seed: int = 0):
        if (name, seed) not in cache:
            cache[name, seed] = load_test_set(name, seed=seed, data_dir=shared_data)
        return cache[name, seed]

    return load
