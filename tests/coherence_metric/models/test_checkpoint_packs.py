"""Past defaults ship in a checkpoint pack (``coherence-metric-archive``), pinned by the sha256 of their config.

PyPI takes files of at most 100 MB and every default ever shipped must keep loading under its name, so the defaults
that are no longer current live in a distribution of their own, found through the ``coherence_metric.checkpoints``
entry point. These tests try to break that promise: an install without the pack, a pack whose bytes changed, a pack
that tries to replace one of this package's checkpoints, a pack whose entry point does not load.
"""

from __future__ import annotations

import shutil
from importlib import metadata
from pathlib import Path

import coherence_metric_archive
import pytest

from coherence_metric import CheckpointError, CoherenceScorer, ModelNotFoundError
from coherence_metric.models import registry
from coherence_metric.models.checkpoint_config import CONFIG_NAME
from coherence_metric.models.registry import (
    PACKAGED_CHECKPOINTS_DIR,
    PACKS_GROUP,
    config_sha256,
    packaged_checkpoint_folders,
    read_alias_table,
    resolve_model,
)

from ...conftest import EXAMPLES_DIR
from ..cli_helpers import assert_one_line_error, invoke

#: The defaults of 0.1.0, 0.2.0 and 0.3.0: what the archive pack holds.
ARCHIVED = ("cm-minilm-2026.11", "cm-minilm-joint-2026.11", "cm-minilm-pointwise-2026.11")
INSTALL_HINT = "pip install ./archive (in a clone of the coherence-metric repository)"


@pytest.fixture
def no_packs(monkeypatch):
    """An install of coherence-metric alone (``pip install --no-deps``): no checkpoint pack registered."""
    monkeypatch.setattr(registry, "checkpoint_pack_folders", lambda: [])


@pytest.fixture
def pack_copy(tmp_path, monkeypatch) -> Path:
    """A copy of the archive pack's folder, registered in its place, for tampering with."""
    copy = tmp_path / "pack"
    shutil.copytree(coherence_metric_archive.CHECKPOINTS_DIR, copy)
    monkeypatch.setattr(registry, "checkpoint_pack_folders", lambda: [copy])
    return copy


def test_every_past_default_is_installed_and_the_archived_ones_match_their_pins():
    table = read_alias_table()
    folders = packaged_checkpoint_folders()
    assert set(table.history.values()) <= set(folders)  # every name `default` ever meant loads
    assert sorted(table.archived) == list(ARCHIVED)
    for name in ARCHIVED:
        assert folders[name].parent == coherence_metric_archive.CHECKPOINTS_DIR
        assert config_sha256(folders[name]) == table.archived[name]
        assert resolve_model(name).folder == folders[name]
    assert resolve_model("default").folder.parent == PACKAGED_CHECKPOINTS_DIR  # the current one is in this package


def test_the_archive_is_found_through_its_entry_point():
    (entry,) = [entry for entry in metadata.entry_points(group=PACKS_GROUP) if entry.name == "archive"]
    assert Path(entry.load()) == coherence_metric_archive.CHECKPOINTS_DIR
    assert coherence_metric_archive.CHECKPOINTS_DIR in registry.checkpoint_pack_folders()


def test_without_the_archive_an_old_name_says_which_package_to_install(no_packs):
    with pytest.raises(ModelNotFoundError) as caught:
        CoherenceScorer("cm-minilm-2026.11")
    message = str(caught.value)
    assert "'cm-minilm-2026.11' is archived" in message and INSTALL_HINT in message
    assert len(message.splitlines()) == 1
    assert resolve_model("default").label == read_alias_table().aliases["default"]  # the rest keeps working


def test_without_the_archive_the_cli_gives_one_line_and_models_lists_what_is_missing(runner, no_packs):
    result = invoke(runner, ["score", "--model", "cm-minilm-pointwise-2026.11", str(EXAMPLES_DIR / "coherent.txt")])
    assert_one_line_error(result, "'cm-minilm-pointwise-2026.11' is archived", INSTALL_HINT)
    lines = invoke(runner, ["models"]).stdout.splitlines()
    start = lines.index(f"archived, not installed ({INSTALL_HINT}):")
    assert lines[start + 1:start + 4] == [f"  {name}" for name in ARCHIVED]


def test_a_pack_whose_config_changed_is_refused_in_one_line(pack_copy):
    config = pack_copy / "cm-minilm-2026.11" / CONFIG_NAME
    config.write_bytes(config.read_bytes().replace(b'"max_length": 256', b'"max_length": 128'))
    with pytest.raises(CheckpointError) as caught:
        CoherenceScorer("cm-minilm-2026.11")
    message = str(caught.value)
    assert str(config) in message and "is not the one its name was pinned to" in message and "reinstall" in message
    assert len(message.splitlines()) == 1


def test_a_pack_whose_weights_changed_is_refused_at_load(pack_copy):
    weights = pack_copy / "cm-minilm-pointwise-2026.11" / "head.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF  # one byte of the head's weights; the config (and so the pin) is untouched
    weights.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="head.safetensors"):
        CoherenceScorer("cm-minilm-pointwise-2026.11")


def test_a_pack_cannot_replace_a_checkpoint_of_this_package(tmp_path, monkeypatch):
    default = read_alias_table().aliases["default"]
    impostor = tmp_path / "impostor"
    shutil.copytree(coherence_metric_archive.CHECKPOINTS_DIR / "cm-minilm-pointwise-2026.11", impostor / default)
    packs = [impostor, coherence_metric_archive.CHECKPOINTS_DIR]
    monkeypatch.setattr(registry, "checkpoint_pack_folders", lambda: packs)
    assert resolve_model("default").folder == PACKAGED_CHECKPOINTS_DIR / default
    assert resolve_model(default).folder == PACKAGED_CHECKPOINTS_DIR / default


def test_a_pack_that_does_not_load_is_skipped_with_a_warning(monkeypatch):
    """A warning users see (a ``UserWarning``, one line on the command line), not a record on a logger that has
    no handler."""
    entries = [
        metadata.EntryPoint(name="broken", value="no_such_module_for_coherence_metric:FOLDER", group=PACKS_GROUP),
        metadata.EntryPoint(name="not-a-folder", value="coherence_metric_archive:__version__", group=PACKS_GROUP),
        metadata.EntryPoint(name="archive", value="coherence_metric_archive:CHECKPOINTS_DIR", group=PACKS_GROUP),
    ]
    monkeypatch.setattr(registry.metadata, "entry_points", lambda group: entries if group == PACKS_GROUP else [])
    registry.checkpoint_pack_folders.cache_clear()
    try:
        with pytest.warns(UserWarning) as caught:
            assert registry.checkpoint_pack_folders() == [coherence_metric_archive.CHECKPOINTS_DIR]
    finally:
        registry.checkpoint_pack_folders.cache_clear()
    warnings = [str(warning.message) for warning in caught]
    assert all("\n" not in message for message in warnings), warnings
    assert any(message.startswith("checkpoint pack 'broken'") and "does not load, skipped" in message
               for message in warnings), warnings
    assert any(message.startswith("checkpoint pack 'not-a-folder'") and "not a folder" in message
               for message in warnings), warnings
