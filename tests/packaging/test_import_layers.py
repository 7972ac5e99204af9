"""The import arrows between the repository's packages, read from the source (every import, also inside functions).

``coherence_metric`` is the scoring package: it imports none of the research packages, so ``pip install
coherence-metric`` scores without them and research plumbing (where the shared data lives) stays out of it.
``training`` and ``benchmarks`` both import ``research`` (corpora, splits, intruders, test sets, encoders) and never
each other, in either direction, so neither needs the other to import and no import hides in a function to dodge a
cycle; ``research`` imports neither. ``tools`` (repository tools, run from a checkout and never installed) may import
any of them, and none of them imports ``tools``: an installed package would not find it.

``research``, ``training``, ``benchmarks`` and ``tools`` reach the scoring package through three faces only: the user
API (``from coherence_metric import ...``), its errors, and ``coherence_metric.toolkit``, the named pieces they build
on. The modules behind them may move without touching the research code or the repository tools.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..conftest import REPO_DIR

#: Layer name -> the folder holding its source and the module prefix it is imported under (setup.py maps the folders).
LAYERS: Dict[str, Tuple[Path, str]] = {
    "coherence_metric": (REPO_DIR / "coherence_metric", "coherence_metric"),
    "research": (REPO_DIR / "research", "coherence_metric.research"),
    "training": (REPO_DIR / "training", "coherence_metric.training"),
    "benchmarks": (REPO_DIR / "benchmarks", "coherence_metric.benchmarks"),
    "tools": (REPO_DIR / "tools", "tools"),
}
#: Layer -> the layers it must never import.
FORBIDDEN: Dict[str, Tuple[str, ...]] = {
    "coherence_metric": ("research", "training", "benchmarks", "tools"),
    "research": ("training", "benchmarks", "tools"),
    "training": ("benchmarks", "tools"),
    "benchmarks": ("training", "tools"),
}


def _module_name(path: Path, folder: Path, prefix: str) -> str:
    parts = list(path.relative_to(folder).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([prefix, *parts])


def _imports(path: Path, module: str) -> Iterator[Tuple[int, str]]:
    """(line, absolute module name) of every import in the file, relative ones resolved against ``module``."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield node.lineno, target
            for alias in node.names:  # ``from package import module`` imports the module
                yield node.lineno, f"{target}.{alias.name}"


def layer_of(module: str) -> Optional[str]:
    """The layer a module name belongs to (the longest matching prefix), None for third-party modules."""
    best: Optional[str] = None
    for name, (_, prefix) in LAYERS.items():
        if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > len(LAYERS[best][1])):
            best = name
    return best


def forbidden_imports() -> List[str]:
    """``file:line imports module`` for every import that crosses a forbidden arrow."""
    found = []
    for layer, (folder, prefix) in LAYERS.items():
        for path in sorted(folder.rglob("*.py")):
            module = _module_name(path, folder, prefix)
            for line, target in _imports(path, module):
                if layer_of(target) in FORBIDDEN.get(layer, ()):
                    found.append(f"{path.relative_to(REPO_DIR)}:{line} imports {target}")
    return found


def test_no_import_crosses_a_forbidden_arrow() -> None:
    assert forbidden_imports() == []


def test_the_check_sees_imports_hidden_inside_functions(tmp_path) -> None:
    """The check must fail on the kind of import it exists to catch: one tucked inside a function body."""
    source = tmp_path / "hidden.py"
    source.write_text("def f():\n    from coherence_metric.training.data import splits\n"
                      "    from .. import benchmarks\n")
    assert [target for _, target in _imports(source, "coherence_metric.cli.hidden")] == [
        "coherence_metric.training.data", "coherence_metric.training.data.splits", "coherence_metric",
        "coherence_metric.benchmarks"]
    assert layer_of("coherence_metric.training.data.splits") == "training" and layer_of("numpy") is None
    assert layer_of("coherence_metric.scorer") == "coherence_metric"
    assert layer_of("tools.gpu_route.inputs") == "tools" and "tools" in FORBIDDEN["training"]


def test_the_layers_still_import_each_other_where_allowed() -> None:
    """The check reads real imports: both research packages do import ``research`` (else it would prove nothing)."""
    seen = {layer: set() for layer in LAYERS}
    for layer, (folder, prefix) in LAYERS.items():
        for path in folder.rglob("*.py"):
            seen[layer].update(layer_of(target) for _, target in _imports(path, _module_name(path, folder, prefix)))
    assert "research" in seen["training"] and "research" in seen["benchmarks"]
    assert "coherence_metric" in seen["research"]
    assert "training" in seen["tools"]  # the GPU route imports training's public pieces


#: The modules of the scoring package that ``research``, ``training``, ``benchmarks`` and ``tools`` may import.
CORE_FACES = ("coherence_metric", "coherence_metric.errors", "coherence_metric.toolkit")
#: The layers held to them.
FACED = ("research", "training", "benchmarks", "tools")


def core_modules(folder: Path = LAYERS["coherence_metric"][0]) -> Set[str]:
    """Every module of the scoring package, by name (a name imported from a module is not one)."""
    return {_module_name(path, folder, "coherence_metric") for path in folder.rglob("*.py")}


def deep_core_imports(folders: Optional[Dict[str, Tuple[Path, str]]] = None,
                      core: Optional[Set[str]] = None) -> List[str]:
    """``file:line imports module`` for every import of a scoring-package module other than its faces, anywhere in
    ``research``, ``training``, ``benchmarks`` and ``tools`` (inside functions too)."""
    core = core_modules() if core is None else core
    found = []
    for folder, prefix in (folders or {name: LAYERS[name] for name in FACED}).values():
        for path in sorted(folder.rglob("*.py")):
            for line, target in _imports(path, _module_name(path, folder, prefix)):
                if target in core and layer_of(target) == "coherence_metric" and target not in CORE_FACES:
                    found.append(f"{path.relative_to(folder.parent)}:{line} imports {target}")
    return found


def test_research_training_benchmarks_and_tools_reach_the_core_only_through_its_faces() -> None:
    """Not ``coherence_metric.models.registry`` or ``coherence_metric.scoring.runtime``: the toolkit names what they
    use, so the scoring package's insides may move."""
    assert deep_core_imports() == []


def test_the_face_check_finds_a_deep_import_hidden_in_a_function(tmp_path) -> None:
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "speed.py").write_text("from coherence_metric import CoherenceScorer\n"
                                     "from coherence_metric.toolkit import cpu_description\n\n"
                                     "def f():\n    from coherence_metric.scoring import runtime\n"
                                     "    import coherence_metric.models.registry\n")
    core = {"coherence_metric", "coherence_metric.toolkit", "coherence_metric.scoring",
            "coherence_metric.scoring.runtime", "coherence_metric.models", "coherence_metric.models.registry"}
    assert deep_core_imports({"benchmarks": (folder, "coherence_metric.benchmarks")}, core) == [
        "benchmarks/speed.py:5 imports coherence_metric.scoring",
        "benchmarks/speed.py:5 imports coherence_metric.scoring.runtime",
        "benchmarks/speed.py:6 imports coherence_metric.models.registry"]


def test_nothing_imports_the_folders_under_their_old_top_level_names() -> None:
    """``training``, ``benchmarks`` and ``research`` import only as ``coherence_metric.<name>``: a bare name would load
    a second copy of the same files from a checkout's root (and fails there, see test_wheel.py)."""
    old = {"training", "benchmarks", "research"}
    found = []
    roots = {folder: prefix for folder, prefix in LAYERS.values()}
    roots.update({REPO_DIR / name: name for name in ("tests", "examples")})
    for folder, prefix in roots.items():
        for path in sorted(folder.rglob("*.py")) if folder.is_dir() else []:
            imports = _imports(path, _module_name(path, folder, prefix))
            found += [f"{path.relative_to(REPO_DIR)}:{line} imports {target}" for line, target in imports
                      if target.split(".")[0] in old]
    assert found == []
