"""The install path a user without a clone takes works as printed: the wheels `make dist` builds install
into a clean virtual environment and score the README's demo to its printed digits (with the default's backbone, fetched
once into the backbone store under ``$HOME``, which the clean environment shares: the test skips without it).

The clean environment gets its dependencies (torch, transformers, ...) from this checkout's ``.venv`` through a
folder of links that leaves out coherence-metric's own editable install, so what is imported and scored is the
installed wheel alone (tested: ``coherence_metric.__file__`` lies inside the new environment). Building the wheels
and the venv takes about a minute: slow.
"""

from __future__ import annotations

import re
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from ..conftest import REPO_DIR, require_store_backbone
from .test_wheel import _build_wheel, _run

pytestmark = pytest.mark.slow

#: What coherence-metric's own install put into the checkout's site-packages: never visible to the clean venv.
_OWN = re.compile(r"^(coherence_metric|__editable__|_?_editable_)", re.IGNORECASE)


def _readme_demo() -> tuple[list[str], list[str]]:
    """The README's demo command (after ``$``) and the lines it prints, up to the signature."""
    readme = (REPO_DIR / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- runnable -->\n```console\n", 1)[1].split("```", 1)[0].splitlines()
    command = block[0].removeprefix("$ ").split()
    return command, block[1:]


def _clean_venv(root: Path) -> Path:
    """A venv without pip whose dependencies are links to the checkout venv's, coherence-metric's own left out."""
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    done = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=root)
    purelib = Path(done.stdout.strip())
    links = root / "dependencies"
    links.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not _OWN.match(entry.name) and not entry.name.endswith(".pth"):
            (links / entry.name).symlink_to(entry)
    (purelib / "dependencies.pth").write_text(f"{links}\n", encoding="utf-8")
    return python


def test_the_built_wheels_install_in_a_clean_venv_and_score_the_readme_demo(tmp_path_factory, tmp_path):
    require_store_backbone("sentence-transformers/all-mpnet-base-v2")  # the default's, as `make demo` fetches it
    wheel = _build_wheel(tmp_path_factory, REPO_DIR, "coherence_metric-*.whl")
    archive = _build_wheel(tmp_path_factory, REPO_DIR / "archive", "coherence_metric_archive-*.whl")
    python = _clean_venv(tmp_path / "venv")
    done = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                 str(archive), str(wheel)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]

    done = _run([str(python), "-c", "import coherence_metric; print(coherence_metric.__file__)"], cwd=tmp_path)
    assert Path(done.stdout.strip()).is_relative_to(tmp_path / "venv"), done.stdout + done.stderr

    command, printed = _readme_demo()
    assert command[:2] == ["coherence-metric", "compare"] and "--dtype" in command
    work = tmp_path / "work"
    (work / "examples").mkdir(parents=True)
    for name in ("coherent.txt", "shuffled.txt"):
        (work / "examples" / name).write_bytes((REPO_DIR / "examples" / name).read_bytes())
    done = _run([str(tmp_path / "venv" / "bin" / "coherence-metric"), *command[1:]], cwd=work,
                COHERENCE_METRIC_DTYPE="auto")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[:3] == printed[:3]  # the scores and the winner, to the printed digit
    assert lines[3].split("|transformers:")[0] == printed[3].split("|transformers:")[0]
