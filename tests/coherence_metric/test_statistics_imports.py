"""The statistics modules import one another in one direction only: the tie rule lives in a leaf module
(``coherence_metric.ties``), so ``results -> significance -> bootstrap -> results`` is no longer a circle that only
a function-level import kept from failing (issue 39)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import coherence_metric

PACKAGE_DIR = Path(coherence_metric.__file__).resolve().parent
MODULES = ("results", "bootstrap", "significance", "systems", "ties", "signature", "errors")


def _imported_siblings(name: str) -> set[str]:
    """The package modules ``name`` imports anywhere in its file (in functions too), as bare module names."""
    tree = ast.parse((PACKAGE_DIR / f"{name}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module.split(".")[0]] if node.module else [alias.name for alias in node.names])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("coherence_metric."):
            found.add(node.module.split(".")[1])
    return found & set(MODULES)


def test_the_statistics_modules_import_each_other_without_a_circle():
    graph = {name: _imported_siblings(name) for name in MODULES}
    assert graph["ties"] == set(), "the tie rule must stay a leaf module"

    def reaches(start: str, target: str, seen: frozenset = frozenset()) -> bool:
        return any(step == target or (step not in seen and reaches(step, target, seen | {step}))
                   for step in graph[start])

    circular = [name for name in MODULES if reaches(name, name)]
    assert circular == [], f"import circle through {circular}"


def test_each_statistics_module_imports_first_in_a_fresh_interpreter():
    for name in ("bootstrap", "significance", "results", "systems"):
        subprocess.run([sys.executable, "-c", f"import coherence_metric.{name}"], check=True)
