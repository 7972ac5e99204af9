"""No circle of imports inside the package (issue 57): read from the source, imports inside functions included.

A circle made a module's import order matter and hid imports inside functions to dodge it: scoring passed through
explain's module (checkpoint -> model -> transition term -> explain's mechanisms -> transition model -> checkpoint),
and every command module imported the root group from the package that imports them.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Set

from ..conftest import REPO_DIR

PACKAGE = REPO_DIR / "coherence_metric"


def _module_name(path: Path, root: Path) -> str:
    parts = ["coherence_metric", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(path: Path, module: str, known: Set[str]) -> Iterator[str]:
    """The package's modules that ``path`` imports. ``from package import submodule`` is an arrow to the submodule
    alone (importing a submodule loads its package first, which is no arrow back up)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            submodules = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
            names = submodules if len(submodules) == len(node.names) else [target, *submodules]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                yield name


def import_graph(root: Path = PACKAGE) -> Dict[str, Set[str]]:
    """Module -> the package's modules it imports, for every module under ``root``."""
    paths = {_module_name(path, root): path for path in root.rglob("*.py")}
    return {module: set(_targets(path, module, set(paths))) for module, path in paths.items()}


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_circle():
    assert circles(import_graph()) == []


def test_the_check_finds_a_circle_hidden_inside_a_function(tmp_path):
    package = tmp_path / "coherence_metric"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import thing\n")
    (package / "b.py").write_text("def thing():\n    from .c import other\n")
    (package / "c.py").write_text("from . import a\n")
    assert circles(import_graph(package)) == [["coherence_metric.a", "coherence_metric.b", "coherence_metric.c"]]
