"""The installed layout: one top-level name, ``coherence_metric``, with training, benchmarks and research inside it.

Generic top-level packages (``training``, ``benchmarks``) shadowed and were shadowed by users' own folders: from a
folder holding its own ``benchmarks/__init__.py``, ``coherence-metric benchmark`` ran that folder's code. These
tests build the wheel from a copy of the checkout (no network: the venv's setuptools, no build isolation), read its
names, install it into a folder and run it from a folder full of shadowing packages, and check that the checkout's
folders cannot be imported a second time under their old names.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import List

import pytest

from ..conftest import REPO_DIR

pytestmark = pytest.mark.slow

RESEARCH_FOLDERS = ("research", "training", "benchmarks")
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "runs", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")


def _run(arguments: List[str], cwd: Path, **environment: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", **environment)
    return subprocess.run(arguments, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _build_wheel(tmp_path_factory, folder: Path, pattern: str) -> Path:
    """The wheel ``pip wheel`` builds from a copy of ``folder`` (the checkout itself gets no build/ folder)."""
    pytest.importorskip("setuptools")
    source = tmp_path_factory.mktemp("source") / folder.name
    shutil.copytree(folder, source, ignore=_NOT_SOURCE)
    out = tmp_path_factory.mktemp("wheel")
    done = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                 "-w", str(out), str(source)], cwd=out)
    assert done.returncode == 0, done.stderr[-3000:]
    (built,) = out.glob(pattern)
    return built


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """coherence-metric's wheel, built from this checkout."""
    return _build_wheel(tmp_path_factory, REPO_DIR, "coherence_metric-*.whl")


@pytest.fixture(scope="module")
def archive_wheel(tmp_path_factory) -> Path:
    """coherence-metric-archive's wheel (the past defaults), built from ``archive/``."""
    return _build_wheel(tmp_path_factory, REPO_DIR / "archive", "coherence_metric_archive-*.whl")


def test_the_wheel_has_one_top_level_name_and_ships_the_folders_inside_it(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        dist_info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA"))
        top_level = archive.read(f"{dist_info}/top_level.txt").decode().split()
        entry_points = configparser.ConfigParser()
        entry_points.read_string(archive.read(f"{dist_info}/entry_points.txt").decode())
    assert top_level == ["coherence_metric"]
    assert {name.split("/")[0] for name in names} == {"coherence_metric", dist_info}
    for folder in RESEARCH_FOLDERS:  # every module of the three folders, under the package's name
        expected = {f"coherence_metric/{folder}/{path.relative_to(REPO_DIR / folder).as_posix()}"
                    for path in (REPO_DIR / folder).rglob("*.py") if "__pycache__" not in path.parts}
        assert expected <= set(names), sorted(expected - set(names))[:5]
    assert "coherence_metric/training/configs/cpu-minilm-full.yaml" in names  # recipes keep shipping
    assert "coherence_metric/benchmarks/reporting/targets.toml" in names  # the release targets the checks read
    # The route to a lent GPU is a repository tool (tools/gpu_route/): neither it nor its old place ships.
    assert not [name for name in names if "gpu_route" in name or name.startswith(("tools/", "coherence_metric/tools/",
                                                                                   "coherence_metric/training/gpu/"))]
    assert {"coherence_metric/report/page.css", "coherence_metric/report/page.js"} <= set(names)  # the HTML report's
    assert any(name.startswith("coherence_metric/checkpoints/") and name.endswith(".safetensors") for name in names)
    shipped = REPO_DIR / "coherence_metric" / "transition_models"  # explain's fallback model, every file of it
    assert {f"coherence_metric/{path.relative_to(REPO_DIR / 'coherence_metric').as_posix()}"
            for path in shipped.rglob("*") if path.is_file()} <= set(names)
    trained = entry_points["coherence_metric.encoder_specs"]["trained"]
    assert trained == "coherence_metric.training.encoders:trained_encoder"
    assert entry_points["console_scripts"]["coherence-metric"] == "coherence_metric.cli:main"


#: PyPI refuses a file over 100 MB unless its project's limit is raised. Every default ever shipped must keep loading
#: (registry history), so each new packaged checkpoint (about 17 MB compressed) spends this budget: when the next one
#: would not fit, the oldest of this wheel's past defaults moves to the archive pack (a new archive version, or a
#: second pack once that one is full).
PYPI_FILE_LIMIT = 100 * 1000 * 1000


def test_both_wheels_stay_under_pypis_file_size_limit(wheel: Path, archive_wheel: Path) -> None:
    for built in (wheel, archive_wheel):
        size = built.stat().st_size
        assert size < PYPI_FILE_LIMIT, f"{built.name} is {size / 1e6:.1f} MB, over PyPI's 100 MB per file"


def test_the_wheels_hold_each_checkpoint_once(wheel: Path, archive_wheel: Path) -> None:
    def checkpoints(built: Path, prefix: str) -> set:
        with zipfile.ZipFile(built) as archive:
            return {name.split("/")[2] for name in archive.namelist()
                    if name.startswith(prefix) and name.endswith("/coherence_config.json")}

    own = checkpoints(wheel, "coherence_metric/checkpoints/")
    archived = checkpoints(archive_wheel, "coherence_metric_archive/checkpoints/")
    assert archived == {"cm-minilm-2026.11", "cm-minilm-joint-2026.11", "cm-minilm-pointwise-2026.11"}
    assert own and not own & archived


def test_the_installed_wheels_load_a_past_default_from_the_archives_entry_point(
        wheel: Path, archive_wheel: Path, tmp_path: Path) -> None:
    """Installed side by side, the archive wheel's own entry point (listed before the checkout's editable install,
    which is further down ``sys.path``) leads to the past default; an install without it is tested in-process."""
    target = tmp_path / "site"
    done = _run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target),
                 str(wheel), str(archive_wheel)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    code = ("from coherence_metric.models.registry import resolve_model; import coherence_metric; "
            "print(resolve_model('cm-minilm-2026.11').folder); print(coherence_metric.__file__)")
    done = _run([sys.executable, "-c", code], cwd=tmp_path, PYTHONPATH=str(target))
    assert done.returncode == 0, done.stderr[-3000:]
    folder, module = done.stdout.split()
    assert Path(module).is_relative_to(target)
    assert Path(folder) == target / "coherence_metric_archive" / "checkpoints" / "cm-minilm-2026.11"


def _shadowing_folder(root: Path) -> Path:
    """A user's project folder with its own ``training``, ``benchmarks`` and ``research`` packages."""
    for name in RESEARCH_FOLDERS:
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(f'raise SystemExit("the user\'s own {name} package was imported")\n')
    return root


def test_the_installed_wheel_runs_from_a_folder_with_shadowing_packages(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    done = _run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target),
                 str(wheel)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    project = _shadowing_folder(tmp_path / "project")
    code = ("import coherence_metric.training.trainer as t, coherence_metric.benchmarks.cli as b, "
            "coherence_metric.research.splits as r; print(t.__file__); print(b.__file__); print(r.__file__)")
    done = _run([sys.executable, "-c", code], cwd=project, PYTHONPATH=str(target))
    assert done.returncode == 0, done.stderr[-3000:]
    assert all(line.startswith(str(target / "coherence_metric")) for line in done.stdout.split())
    done = _run([sys.executable, "-m", "coherence_metric.cli", "benchmark", "--help"], cwd=project,
                PYTHONPATH=str(target))
    assert done.returncode == 0 and "summeval-correlation" in done.stdout, done.stdout + done.stderr


def test_the_editable_install_runs_from_a_folder_with_shadowing_packages(tmp_path: Path) -> None:
    project = _shadowing_folder(tmp_path)
    for command in ("benchmark", "train"):
        done = _run([sys.executable, "-m", "coherence_metric.cli", command, "--help"], cwd=project)
        assert done.returncode == 0 and "Usage: coherence-metric " + command in done.stdout, done.stdout + done.stderr
    done = _run([sys.executable, "-c", "import coherence_metric.benchmarks.cli as b; print(b.__file__)"], cwd=project)
    assert done.stdout.strip() == str(REPO_DIR / "benchmarks" / "cli.py"), done.stderr[-2000:]


@pytest.mark.parametrize("name", RESEARCH_FOLDERS)
def test_a_checkouts_folder_is_not_a_second_copy_under_its_old_name(name: str) -> None:
    """From the checkout's root the folders are importable by path; they refuse, naming the right import."""
    done = _run([sys.executable, "-c", f"import {name}"], cwd=REPO_DIR)
    assert done.returncode != 0
    assert f"ImportError: import coherence_metric.{name}, not {name}" in done.stderr
