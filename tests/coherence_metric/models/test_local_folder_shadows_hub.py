"""A relative folder spelled like a Hub repo id (``acme/coherence-x``) is used, but with a one-line warning naming
both readings and how to pick the other, since a stray folder otherwise silently replaces the Hub checkpoint."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from coherence_metric.models.registry import resolve_model


@pytest.fixture
def shadowing_folder(bert_checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding a real checkpoint at ``acme/coherence-x``."""
    folder = tmp_path / "acme" / "coherence-x"
    shutil.copytree(bert_checkpoint, folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return folder


def test_folder_that_is_also_a_hub_id_warns(shadowing_folder: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resolved = resolve_model("acme/coherence-x")
    assert resolved.folder == shadowing_folder.resolve()
    assert resolved.source == "local"
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1, messages
    message = messages[0]
    assert "\n" not in message
    assert "acme/coherence-x" in message and "Hub" in message
    assert "./acme/coherence-x" in message
    assert "folder" in message


def test_explicit_relative_path_does_not_warn(shadowing_folder: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resolved = resolve_model("./acme/coherence-x")
    assert resolved.folder == shadowing_folder.resolve()
    assert [str(w.message) for w in caught if "Hub" in str(w.message)] == []
