"""Fixtures of the package's own tests (the tiny checkpoints live in ``tests/conftest.py``)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner


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
