"""``coherence_config.json`` is checked for size before it is read, and its format fields
against what it holds.

A 1.5 GB sparse config used 3.3 GB of memory before it was refused; ``format_version: -3`` loaded; a reference
checkpoint claiming format 4 (which has no reference flavour) loaded; a reference's own pooling, max_length and
hidden_size were accepted and ignored, so the config said one thing and the scores did another.
"""

from __future__ import annotations

import json
import shutil

import pytest

from coherence_metric import CheckpointError, load_checkpoint
from coherence_metric.models.checkpoint_config import CONFIG_NAME, MAX_CONFIG_BYTES, read_checkpoint_config
from coherence_metric.models.registry import PACKAGED_CHECKPOINTS_DIR

from ..cli_helpers import assert_one_line_error, invoke

WITH_TERM = "cm-minilm-joint-long-tm-2026.11"


def _edit(folder, **changes):
    data = json.loads((folder / CONFIG_NAME).read_text(encoding="utf-8"))
    data.update(changes)
    (folder / CONFIG_NAME).write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_an_oversized_config_is_refused_before_it_is_read(bert_checkpoint, corrupt_copy, runner, tmp_path):
    folder = corrupt_copy(bert_checkpoint)
    path = folder / CONFIG_NAME
    with open(path, "r+b") as handle:  # sparse: 1.5 GB on paper, nothing on disk
        handle.truncate(1_500_000_000)
    with pytest.raises(CheckpointError) as caught:
        read_checkpoint_config(folder)
    message = str(caught.value)
    assert message.startswith(f"{path} is 1500000000 bytes") and f"at most {MAX_CONFIG_BYTES}" in message
    text = tmp_path / "t.txt"
    text.write_text("One text. Two sentences.\n", encoding="utf-8")
    assert_one_line_error(invoke(runner, ["score", str(text), "--model", str(folder)]), str(path), "bytes")


@pytest.mark.parametrize("version", [-3, 0])
def test_a_format_version_below_1_is_refused(bert_checkpoint, corrupt_copy, version):
    folder = _edit(corrupt_copy(bert_checkpoint), format_version=version)
    with pytest.raises(CheckpointError, match=f"format_version must be at least 1, got {version}"):
        read_checkpoint_config(folder)


@pytest.fixture
def reference(tmp_path):
    folder = tmp_path / "reference"
    shutil.copytree(PACKAGED_CHECKPOINTS_DIR / WITH_TERM, folder)
    return folder


@pytest.mark.parametrize("version", [4, 2])
def test_a_reference_claiming_a_format_before_references_is_refused(reference, version):
    _edit(reference, format_version=version)
    with pytest.raises(CheckpointError) as caught:
        read_checkpoint_config(reference)
    assert f"format_version {version}" in str(caught.value) and "reference" in str(caught.value)
    assert "needs format_version 5" in str(caught.value)


@pytest.mark.parametrize("changes", [{"pooling": "cls"}, {"max_length": 64}, {"hidden_size": 768}])
def test_a_reference_whose_settings_differ_from_its_base_is_refused(reference, changes):
    """The base's model does the scoring: a reference that says otherwise is refused rather than ignored."""
    _edit(reference, **changes)
    key, value = next(iter(changes.items()))
    with pytest.raises(CheckpointError) as caught:
        load_checkpoint(reference)
    message = str(caught.value)
    assert f"{key} {value!r}" in message and "its base" in message and "\n" not in message
