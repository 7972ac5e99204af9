"""A third-party checkpoint pack never blocks this package's own names, and a pack that fails says so in one line.

A pack holding a folder named ``default`` used to stop every model from loading (``alias 'default' is also a
packaged checkpoint's name``), the package's own included; a pack sorting before the archive and holding another
copy of an archived name blocked that name (the error advised reinstalling the archive, which was intact); a pack
whose entry point failed was skipped with no output, although the CHANGELOG promised a warning. The packs here are
real folders; only the list of installed packs is replaced (the entry-point test registers a real dist-info).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import List

import coherence_metric_archive
import pytest

from coherence_metric.models import registry
from coherence_metric.models.checkpoint_config import CONFIG_NAME
from coherence_metric.models.registry import PACKAGED_CHECKPOINTS_DIR, read_alias_table, resolve_model

from ...conftest import REPO_DIR
from ..cli_helpers import invoke

ARCHIVE = coherence_metric_archive.CHECKPOINTS_DIR
ARCHIVED_NAME = "cm-minilm-2026.11"


def _pack_with(folder: Path, names: List[str]) -> Path:
    """A pack folder holding checkpoints named ``names`` (each a copy of an archived checkpoint's config, which is
    all a lookup reads)."""
    for name in names:
        (folder / name).mkdir(parents=True)
        shutil.copyfile(ARCHIVE / ARCHIVED_NAME / CONFIG_NAME, folder / name / CONFIG_NAME)
    return folder


def _install(monkeypatch, *packs: Path) -> None:
    monkeypatch.setattr(registry, "checkpoint_pack_folders", lambda: list(packs))


def _messages(caught: List[warnings.WarningMessage]) -> List[str]:
    return [str(warning.message) for warning in caught]


@pytest.mark.parametrize("name", ["default", "accurate", "cm-minilm-gpu-joint-2026.11"])
def test_a_pack_holding_one_of_the_package_names_is_ignored_with_a_warning(tmp_path, monkeypatch, runner, name):
    pack = _pack_with(tmp_path / "hostile", [name, "cm-other-2026.12"])
    _install(monkeypatch, pack, ARCHIVE)
    default = read_alias_table().aliases["default"]
    with pytest.warns(UserWarning) as caught:
        assert resolve_model("default").folder == PACKAGED_CHECKPOINTS_DIR / default
    assert resolve_model(name).folder.parent == PACKAGED_CHECKPOINTS_DIR  # the package's own meaning
    assert resolve_model("cm-other-2026.12").folder == pack / "cm-other-2026.12"  # the rest of the pack still works
    assert resolve_model(ARCHIVED_NAME).folder == ARCHIVE / ARCHIVED_NAME
    shadowing = [message for message in _messages(caught) if f"'{name}'" in message]
    assert len(shadowing) == 1 and str(pack) in shadowing[0] and "ignored" in shadowing[0]
    assert "\n" not in shadowing[0]
    result = invoke(runner, ["models"])
    assert result.exit_code == 0 and default in result.stdout


def test_a_pack_sorting_before_the_archive_cannot_block_an_archived_name(tmp_path, monkeypatch):
    pack = _pack_with(tmp_path / "aaa", [ARCHIVED_NAME])
    config = pack / ARCHIVED_NAME / CONFIG_NAME
    config.write_bytes(config.read_bytes().replace(b'"max_length": 256', b'"max_length": 128'))
    _install(monkeypatch, pack, ARCHIVE)
    with pytest.warns(UserWarning) as caught:
        assert resolve_model(ARCHIVED_NAME).folder == ARCHIVE / ARCHIVED_NAME
    passed_over = [message for message in _messages(caught) if str(pack / ARCHIVED_NAME) in message]
    assert len(passed_over) == 1 and "not the one its name was pinned to" in passed_over[0]


def test_a_pack_whose_entry_point_fails_warns_in_one_line_on_the_command_line(tmp_path):
    """A real installed distribution (a dist-info on the path) with two packs: one whose entry point names a module
    that does not exist, one holding ``default``. ``coherence-metric models`` still lists the package's checkpoints
    and says once, in one line each, what it passed over (every lookup lists the packs again)."""
    site = tmp_path / "site"
    dist_info = site / "broken_pack-0.1.dist-info"
    dist_info.mkdir(parents=True)
    hostile = _pack_with(tmp_path / "hostile", ["default"])
    (site / "hostile_pack_for_coherence_metric.py").write_text(f"FOLDER = {str(hostile)!r}\n", encoding="utf-8")
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-pack\nVersion: 0.1\n", encoding="utf-8")
    (dist_info / "entry_points.txt").write_text(
        "[coherence_metric.checkpoints]\nbroken = no_such_module_for_coherence_metric:FOLDER\n"
        "hostile = hostile_pack_for_coherence_metric:FOLDER\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(REPO_DIR)]))
    result = subprocess.run([sys.executable, "-m", "coherence_metric.cli.__main__", "models"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert read_alias_table().aliases["default"] in result.stdout
    lines = sorted(line for line in result.stderr.splitlines() if line.strip())
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith("coherence-metric: warning: checkpoint pack 'broken'") and "skipped" in lines[0]
    assert lines[1].startswith(f"coherence-metric: warning: checkpoint pack {hostile} holds 'default'")
