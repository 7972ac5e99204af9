"""No circle of imports inside the package: read from the source, imports inside functions included.

A circle made a module's import order matter and hid imports inside functions to dodge it: scoring passed through
explain's module (checkpoint -> model -> transition term -> explain's mechanisms -> transition model -> checkpoint),
and every command module imported the root group from the package that imports them.

The circle and lazy-import checks read the scoring package and the three folders installed inside it (``research``,
``training``, ``benchmarks``: setup.py maps them); the layers are those of the scoring package. A name imported from a
face that loads its names on first use (``coherence_metric`` itself, ``coherence_metric.toolkit``: a ``_LAZY`` table)
counts as an import of the module the table names.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

from ..conftest import REPO_DIR

PACKAGE = REPO_DIR / "coherence_metric"
#: (folder, the module prefix it is imported under) of every package read.
Roots = Sequence[Tuple[Path, str]]
#: The scoring package alone: what the layers are checked on.
PACKAGE_ROOTS: Roots = ((PACKAGE, "coherence_metric"),)
#: The scoring package and the folders installed inside it.
ALL_ROOTS: Roots = PACKAGE_ROOTS + tuple((REPO_DIR / name, f"coherence_metric.{name}")
                                         for name in ("research", "training", "benchmarks"))
#: Name -> the module it loads, per face (module) that loads its names on first use.
Faces = Mapping[str, Mapping[str, str]]


def _roots(roots: Union[Path, Roots]) -> Roots:
    """A package folder alone (the checks' own tests build one under tmp_path) reads as ``coherence_metric``."""
    return ((roots, "coherence_metric"),) if isinstance(roots, Path) else roots


def _module_name(path: Path, root: Path, prefix: str = "coherence_metric") -> str:
    parts = [prefix, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_paths(roots: Union[Path, Roots] = ALL_ROOTS) -> Dict[str, Path]:
    """Module name -> its file, for every module under the roots."""
    return {_module_name(path, folder, prefix): path
            for folder, prefix in _roots(roots) for path in sorted(folder.rglob("*.py"))}


def lazy_tables(paths: Mapping[str, Path]) -> Dict[str, Dict[str, str]]:
    """Face -> (name -> the module under ``coherence_metric`` that defines it), read from each module's ``_LAZY``
    table of names loaded on first use (``importlib.import_module(f".{module}", "coherence_metric")``)."""
    tables: Dict[str, Dict[str, str]] = {}
    for module, path in paths.items():
        for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
            if isinstance(target, ast.Name) and target.id == "_LAZY" and isinstance(node.value, ast.Dict):
                tables[module] = {key.value: f"coherence_metric.{value.value}"
                                  for key, value in zip(node.value.keys, node.value.values)
                                  if isinstance(key, ast.Constant) and isinstance(value, ast.Constant)}
    return tables


def _package_of(path: Path, module: str) -> str:
    """The package a module's relative imports start from: the module itself for an ``__init__.py``."""
    return module if path.name == "__init__.py" else module.rsplit(".", 1)[0]


def _from_targets(node: ast.ImportFrom, package: str, known: Set[str], faces: Optional[Faces] = None) -> List[str]:
    """The modules a ``from ... import`` names, relative ones resolved from ``package``. ``from package import
    submodule`` is the submodule alone (importing a submodule loads its package first, which is no arrow back up); a
    name of a face's ``_LAZY`` table is the face and the module the table names."""
    base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
    target = ".".join(base + ([node.module] if node.module else []))
    submodules = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
    table = (faces or {}).get(target, {})
    loaded = [table[alias.name] for alias in node.names if alias.name in table]
    if submodules and len(submodules) == len(node.names):
        return submodules
    return [target, *submodules, *dict.fromkeys(loaded)]


def _targets(path: Path, module: str, known: Set[str], faces: Optional[Faces] = None) -> Iterator[str]:
    """The package's modules that ``path`` imports, anywhere in it."""
    package = _package_of(path, module)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = _from_targets(node, package, known, faces)
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                yield name


def import_graph(roots: Union[Path, Roots] = PACKAGE) -> Dict[str, Set[str]]:
    """Module -> the modules under the roots it imports, for every module under them."""
    paths = module_paths(roots)
    faces = lazy_tables(paths)
    return {module: set(_targets(path, module, set(paths), faces)) for module, path in paths.items()}


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


def test_no_import_circle_runs_through_research_training_or_benchmarks():
    assert circles(import_graph(ALL_ROOTS)) == []


def subpackage_graph(graph: Mapping[str, Set[str]], roots: Roots = ALL_ROOTS) -> Dict[str, Set[str]]:
    """The import graph with every module folded into the subpackage of its root that holds it (a module at a
    root's top stays itself): ``coherence_metric.benchmarks.paper.runner`` is ``coherence_metric.benchmarks.paper``."""
    prefixes = sorted((prefix for _, prefix in roots), key=len, reverse=True)

    def fold(module: str) -> str:
        prefix = next(prefix for prefix in prefixes if module == prefix or module.startswith(prefix + "."))
        rest = module[len(prefix) + 1:].split(".")[0] if module != prefix else ""
        return f"{prefix}.{rest}" if rest else prefix

    folded: Dict[str, Set[str]] = {}
    for module, targets in graph.items():
        folded.setdefault(fold(module), set()).update(fold(target) for target in targets)
    return {module: targets - {module} for module, targets in folded.items()}




def test_no_circle_among_the_subpackages():
    """A subpackage is a part with one job (benchmarks' ``speed``, ``agreement``, ``localisation``, ``paper``, the
    ``harness`` they are made of and the ``reporting`` they write with): two that import each other, even through
    different modules, are one part in two folders."""
    assert circles(subpackage_graph(import_graph(ALL_ROOTS))) == []


BENCHMARKS = "coherence_metric.benchmarks"
#: What the benchmarks measure, each in its subpackage, and what they are built from: a run's harness (settings,
#: systems, cached scores, bootstrap draws, the facts a report records) and the report writers.
BENCHMARK_GROUPS = ("paper", "agreement", "localisation", "speed", "discoeval")
BENCHMARK_BASES = ("harness", "reporting")


def benchmark_arrows(graph: Mapping[str, Set[str]]) -> Dict[str, Set[str]]:
    """Benchmarks subpackage -> the benchmarks subpackages it imports (``cli``, at the top, left out)."""
    folded = subpackage_graph(graph)
    return {module[len(BENCHMARKS) + 1:]: {target[len(BENCHMARKS) + 1:] for target in targets
                                           if target.startswith(BENCHMARKS + ".")}
            for module, targets in folded.items() if module.startswith(BENCHMARKS + ".")}


def test_each_benchmark_group_builds_on_the_harness_and_the_reporting_never_on_another_group():
    """A group measures one thing; what two groups share lives in the harness or the report writers, which import
    no group (the command line, ``benchmarks.cli``, imports them all)."""
    arrows = benchmark_arrows(import_graph(ALL_ROOTS))
    assert {group: arrows[group] - set(BENCHMARK_BASES) for group in BENCHMARK_GROUPS} == {
        group: set() for group in BENCHMARK_GROUPS}
    assert {base: arrows[base] for base in BENCHMARK_BASES} == {base: set() for base in BENCHMARK_BASES}


def test_the_subpackage_check_finds_a_circle_through_different_modules(tmp_path):
    package = tmp_path / "coherence_metric"
    for folder in ("speed", "reporting"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "speed" / "suite.py").write_text("from ..reporting.files import write\n")
    (package / "reporting" / "files.py").write_text("")
    (package / "reporting" / "landing.py").write_text("def table():\n    from ..speed import gpu\n")
    (package / "speed" / "gpu.py").write_text("")
    graph = import_graph(package)
    assert circles(graph) == []
    assert circles(subpackage_graph(graph, ((package, "coherence_metric"),))) == [
        ["coherence_metric.reporting", "coherence_metric.speed"]]


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
#: what is built on it; and the front ends that call it: the command line, the integrations, and the toolkit that
#: hands training and benchmarks the pieces they build on.
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
    ("coherence_metric.cli", "coherence_metric.integrations", "coherence_metric.toolkit"),
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
#: run without torch, and the Ray and Hub paths only load when called. The benchmark and training command lines
#: start without the ``bench`` and ``train`` extras' heavy parts too: matplotlib (the charts), krippendorff
#: (LMVLM's alpha) and spacy (DisSent's parser).
HEAVY = {"torch", "transformers", "ray", "pyarrow", "peft", "safetensors", "huggingface_hub", "datasets", "tqdm",
         "sentencex", "pandas", "evaluate", "torchmetrics", "numpy", "scipy", "sklearn", "matplotlib", "krippendorff",
         "spacy"}


def _top_level_imports(path: Path, module: str, known: Set[str], faces: Optional[Faces] = None) -> Iterator[str]:
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
                yield from _from_targets(sub, package, known, faces)


def _packages_of(module: str) -> List[str]:
    """The packages above ``module``, outermost first: ``a.b.c`` -> ``a``, ``a.b``."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


def heavy_reach(roots: Union[Path, Roots] = ALL_ROOTS) -> Dict[str, Set[str]]:
    """Module -> the HEAVY packages its import loads (module-level imports, followed through the packages)."""
    paths = module_paths(roots)
    faces = lazy_tables(paths)
    direct = {module: set(_top_level_imports(path, module, set(paths), faces)) for module, path in paths.items()}
    for module, names in direct.items():  # a module's packages load before it
        names.update(package for package in _packages_of(module) if package in paths)
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


def _own_modules(names: Sequence[str], known: Set[str]) -> List[str]:
    """The modules under the roots among ``names`` (a name inside a module counts as the module)."""
    found = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            found.append(name)
    return list(dict.fromkeys(found))


def needless_lazy_imports(roots: Union[Path, Roots] = ALL_ROOTS) -> List[str]:
    """Imports of the packages' own modules inside functions that load nothing heavy the importing module has not
    loaded already: they belong at the top."""
    paths = module_paths(roots)
    faces = lazy_tables(paths)
    reach = heavy_reach(roots)
    known = set(paths)
    found = []
    for module, path in sorted(paths.items()):
        package = _package_of(path, module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom):
                    targets = _own_modules(_from_targets(sub, package, known, faces), known)
                elif isinstance(sub, ast.Import):
                    targets = _own_modules([alias.name for alias in sub.names], known)
                else:
                    continue
                if targets and all(reach.get(name, set()) <= reach[module] for name in targets):
                    found.append(f"{module}:{sub.lineno} imports {', '.join(targets)} inside a function")
    return sorted(set(found))


def test_imports_inside_functions_are_only_of_heavy_modules():
    """Imports belong at the top of a module; inside a function only where the imported module loads torch, Ray or
    another heavy package the importing module does not, so that ``coherence-metric --help``, ``coherence-metric
    benchmark --help`` and ``train --help`` and the numpy-only parts stay quick. Read in the package and in research,
    training and benchmarks."""
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


def test_the_lazy_import_check_reads_absolute_imports_and_names_a_face_loads_on_first_use(tmp_path):
    """``from coherence_metric.toolkit import NAME`` inside a function loads the module the toolkit's table names for
    NAME: heavy for ``CoherenceScorer``'s module, light for a helper's; an absolute import of a light module is as
    needless as a relative one."""
    package = tmp_path / "coherence_metric"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "toolkit.py").write_text('_LAZY = {"light_name": "light", "heavy_name": "heavy"}\n')
    (package / "light.py").write_text("import json\n")
    (package / "heavy.py").write_text("import torch\n")
    (package / "bench.py").write_text(
        "def f():\n    from coherence_metric.toolkit import light_name\n\n"
        "def g():\n    from coherence_metric.toolkit import heavy_name\n\n"
        "def h():\n    import coherence_metric.light\n")
    assert needless_lazy_imports(package) == [
        "coherence_metric.bench:2 imports coherence_metric.toolkit, coherence_metric.light inside a function",
        "coherence_metric.bench:8 imports coherence_metric.light inside a function"]
    assert heavy_reach(package)["coherence_metric.toolkit"] == set()
