"""No circle of imports inside the package: read from the source, imports inside functions included.

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


def _package_of(path: Path, module: str) -> str:
    """The package a module's relative imports start from: the module itself for an ``__init__.py``."""
    return module if path.name == "__init__.py" else module.rsplit(".", 1)[0]


def _from_targets(node: ast.ImportFrom, package: str, known: Set[str]) -> List[str]:
    """The modules a ``from ... import`` names, relative ones resolved from ``package``. ``from package import
    submodule`` is the submodule alone (importing a submodule loads its package first, which is no arrow back up)."""
    base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
    target = ".".join(base + ([node.module] if node.module else []))
    submodules = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
    return submodules if len(submodules) == len(node.names) else [target, *submodules]


def _targets(path: Path, module: str, known: Set[str]) -> Iterator[str]:
    """The package's modules that ``path`` imports, anywhere in it."""
    package = _package_of(path, module)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = _from_targets(node, package, known)
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


#: The package's layers, lowest first: a module may import its own layer or one below, never one above. Base
#: modules every layer may use; the parts (inputs and statistics, then models, scoring, analysis); the scorer and
#: what is built on it; and the front ends that call it.
LAYERS = (
    ("coherence_metric.errors", "coherence_metric.version", "coherence_metric.signature",
     "coherence_metric.atomic_write", "coherence_metric.install_hints", "coherence_metric.safe_json",
     "coherence_metric.file_names"),
    ("coherence_metric.inputs", "coherence_metric.statistics"),
    ("coherence_metric.models",),
    ("coherence_metric.scoring",),
    ("coherence_metric.analysis",),
    ("coherence_metric.results", "coherence_metric.systems", "coherence_metric.report", "coherence_metric.scorer",
     "coherence_metric.settings", "coherence_metric.dataframe", "coherence_metric.diagnostics",
     "coherence_metric.distributed", "coherence_metric"),
    ("coherence_metric.cli", "coherence_metric.integrations"),
)


def layer_of(module: str) -> int:
    """The layer of ``module``: that of the longest prefix listed in :data:`LAYERS`."""
    best = (-1, -1)
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best[0]:
                best = (len(prefix), rank)
    assert best[1] >= 0, f"{module} is in no layer of LAYERS: add it"
    return best[1]


def arrows_up(graph: Dict[str, Set[str]]) -> List[str]:
    """Every import from a module to a module of a higher layer."""
    return sorted(f"{module} -> {target}" for module, targets in graph.items() for target in targets
                  if layer_of(target) > layer_of(module))


def test_no_import_points_up_a_layer():
    assert arrows_up(import_graph()) == []


def test_the_layer_check_finds_a_part_that_imports_the_scorer(tmp_path):
    package = tmp_path / "coherence_metric"
    (package / "models").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "scorer.py").write_text("")
    (package / "models" / "__init__.py").write_text("")
    (package / "models" / "model.py").write_text("def load():\n    from ..scorer import get_scorer\n")
    assert arrows_up(import_graph(package)) == ["coherence_metric.models.model -> coherence_metric.scorer"]


#: Third-party packages slow or optional enough to import only where used: the CLI's ``--help`` and error messages
#: run without torch, and the Ray and Hub paths only load when called.
HEAVY = {"torch", "transformers", "ray", "pyarrow", "peft", "safetensors", "huggingface_hub", "datasets", "tqdm",
         "sentencex", "pandas", "evaluate", "torchmetrics", "numpy", "scipy", "sklearn"}


def _top_level_imports(path: Path, module: str, known: Set[str]) -> Iterator[str]:
    """Names (the package's modules, or third-party top-level packages) ``path`` imports outside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _package_of(path, module)
    for node in tree.body:
        nodes = [node] if isinstance(node, (ast.Import, ast.ImportFrom)) else [
            sub for sub in ast.walk(node) if isinstance(sub, (ast.Import, ast.ImportFrom))
            and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in nodes:
            if isinstance(sub, ast.Import):
                yield from (alias.name.split(".")[0] for alias in sub.names)
            else:
                yield from _from_targets(sub, package, known)


def heavy_reach(root: Path = PACKAGE) -> Dict[str, Set[str]]:
    """Module -> the HEAVY packages its import loads (module-level imports, followed through the package)."""
    paths = {_module_name(path, root): path for path in root.rglob("*.py")}
    direct = {module: set(_top_level_imports(path, module, set(paths))) for module, path in paths.items()}
    reach: Dict[str, Set[str]] = {module: {name.split(".")[0] for name in names if name.split(".")[0] in HEAVY}
                                  for module, names in direct.items()}
    changed = True
    while changed:
        changed = False
        for module, names in direct.items():
            for name in names:
                if name in reach and not reach[name] <= reach[module]:
                    reach[module] |= reach[name]
                    changed = True
    return reach


def needless_lazy_imports(root: Path = PACKAGE) -> List[str]:
    """Imports of the package's own modules inside functions that load nothing heavy the importing module has not
    loaded already: they belong at the top."""
    paths = {_module_name(path, root): path for path in root.rglob("*.py")}
    reach = heavy_reach(root)
    known = set(paths)
    found = []
    for module, path in sorted(paths.items()):
        package = _package_of(path, module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for sub in ast.walk(node):
                if not isinstance(sub, ast.ImportFrom) or not sub.level:
                    continue
                targets = _from_targets(sub, package, known)
                if all(reach.get(name, set()) <= reach[module] for name in targets):
                    found.append(f"{module}:{sub.lineno} imports {', '.join(targets)} inside a function")
    return sorted(set(found))


def test_imports_inside_functions_are_only_of_heavy_modules():
    """Imports belong at the top of a module; inside a function only where the imported module loads torch, Ray or
    another heavy package the importing module does not, so that ``coherence-metric --help`` and the numpy-only
    parts stay quick."""
    assert needless_lazy_imports() == []


def test_the_lazy_import_check_tells_heavy_from_light(tmp_path):
    package = tmp_path / "coherence_metric"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "light.py").write_text("import json\n")
    (package / "heavy.py").write_text("import torch\n")
    (package / "user.py").write_text("def f():\n    from .light import x\n\ndef g():\n    from .heavy import y\n")
    (package / "torch_user.py").write_text("import torch\n\ndef g():\n    from .heavy import y\n")
    assert needless_lazy_imports(package) == [
        "coherence_metric.torch_user:4 imports coherence_metric.heavy inside a function",
        "coherence_metric.user:2 imports coherence_metric.light inside a function"]
