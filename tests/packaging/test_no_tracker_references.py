"""Source and docs state a rule and its reason, not the tracker item it came from: a reader has the code, not the
tracker, so "issue 52" tells them nothing. Nor do they point into the removed ``experiments/`` folder; a dev result
lives under training/ablation/reports/ and a benchmark's under benchmarks/reports/.

CHANGELOG.md is a history by nature and benchmarks/reports/ holds records, so neither is read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Iterator, List

from ..conftest import REPO_DIR

#: Where a reader meets the project's own words: the code and recipes of these folders, and the docs pages.
SOURCE_FOLDERS = ("coherence_metric", "training", "benchmarks", "research", "archive", "tools")
SOURCE_SUFFIXES = (".py", ".yaml", ".yml")
DOC_PAGES = ("README.md", "MODELS.md")
#: Records, not prose: committed benchmark reports; CHANGELOG.md is never listed.
EXCLUDED = ("benchmarks/reports/",)
#: Built or installed trees that hold no source of ours.
SKIPPED_PARTS = {".venv", "__pycache__", "build", "dist", ".git"}

PATTERNS = {
    "a tracker reference": re.compile(r"\b[Ii]ssues? \d+\b"),
    "a pointer into the removed experiments/ folder": re.compile(r"experiments/"),
}


def scanned_files(root: Path = REPO_DIR) -> List[Path]:
    """The files the rule covers, relative to ``root``'s layout, sorted."""
    files = [root / "Makefile"] + [root / page for page in DOC_PAGES] + sorted((root / "docs").glob("*.md"))
    for folder in SOURCE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root).as_posix()
            if (path.is_file() and (path.suffix in SOURCE_SUFFIXES or path.name == "Makefile")
                    and not SKIPPED_PARTS.intersection(path.relative_to(root).parts)
                    and not relative.endswith(".egg-info") and ".egg-info/" not in relative
                    and not relative.startswith(EXCLUDED)):
                files.append(path)
    return [path for path in files if path.is_file() and path.name != "CHANGELOG.md"]


def references(paths: Iterable[Path], root: Path = REPO_DIR) -> Iterator[str]:
    """``file:line: what`` for each tracker reference or ``experiments/`` pointer in ``paths``."""
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), start=1):
            for what, pattern in PATTERNS.items():
                match = pattern.search(line)
                if match:
                    yield f"{path.relative_to(root).as_posix()}:{number}: {what} ({match.group(0)!r})"


def test_the_scan_covers_code_recipes_and_docs():
    names = {path.relative_to(REPO_DIR).as_posix() for path in scanned_files()}
    assert {"Makefile", "README.md", "MODELS.md", "docs/training.md",
            "benchmarks/reporting/model_cards.py", "training/configs/cpu-minilm-joint.yaml",
            "tools/gpu_route/inputs.py"} <= names
    assert not any(name.startswith("benchmarks/reports/") or name.endswith("CHANGELOG.md") for name in names)


def test_no_tracker_references_or_experiments_pointers():
    found = list(references(scanned_files()))
    assert found == [], "state the rule and its reason instead:\n" + "\n".join(found)


def test_the_scanner_finds_a_planted_reference(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "benchmarks" / "reports").mkdir(parents=True)
    (tmp_path / "training" / "configs").mkdir(parents=True)
    (tmp_path / "Makefile").write_text("all:\n\t# see issue 12\n")
    (tmp_path / "README.md").write_text("Fine.\n")
    (tmp_path / "docs" / "page.md").write_text("One line.\nRun `git show abc:experiments/README.md`.\n")
    (tmp_path / "training" / "configs" / "recipe.yaml").write_text("# family: pointwise (Issue 41)\nsteps: 3\n")
    (tmp_path / "benchmarks" / "reports" / "old.py").write_text("# issue 9: a record, not read\n")
    (tmp_path / "CHANGELOG.md").write_text("- Fixed issue 3.\n")
    found = list(references(scanned_files(tmp_path), tmp_path))
    assert found == [
        "Makefile:2: a tracker reference ('issue 12')",
        "docs/page.md:2: a pointer into the removed experiments/ folder ('experiments/')",
        "training/configs/recipe.yaml:1: a tracker reference ('Issue 41')",
    ]
