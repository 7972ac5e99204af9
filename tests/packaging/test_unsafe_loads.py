"""No source file loads data in a way that can run code: a pickle (``pickle.load``, ``joblib.load``, a pandas
pickle), ``torch.load`` without ``weights_only=True``, or ``numpy.load`` allowing pickles. Unpickling calls whatever
the file names, and the files read come from other machines and from downloads. The one unpickler allowed is a
``pickle.Unpickler`` subclass that defines ``find_class`` (the released test sets' restricted one). Read from the
source with ``ast`` (imports under another name followed), so a new unsafe load anywhere fails this test.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, Optional

import pytest

from ..conftest import REPO_DIR

#: The folders whose Python code ships or runs the project's commands (``tools/``: the GPU route, which reads what
#: another machine wrote).
SOURCE_FOLDERS = ("coherence_metric", "training", "benchmarks", "research", "tools")
#: Modules whose load functions unpickle whatever the file names.
PICKLING_MODULES = ("pickle", "_pickle", "cPickle", "dill", "cloudpickle", "joblib", "shelve", "marshal")
#: Their functions that unpickle (``shelve.open`` too).
UNPICKLING_FUNCTIONS = ("load", "loads", "Unpickler", "open")


def _aliases(tree: ast.AST) -> Dict[str, str]:
    """Local name -> the dotted name it was imported as (``np`` -> ``numpy``, ``tload`` -> ``torch.load``)."""
    names: Dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(
                    ".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST, aliases: Dict[str, str]) -> Optional[str]:
    """The full dotted name a Name/Attribute chain calls (its first name resolved through the imports), or None."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    return None


def _keyword_is(call: ast.Call, name: str, value: object) -> bool:
    return any(keyword.arg == name and isinstance(keyword.value, ast.Constant) and keyword.value.value is value
               for keyword in call.keywords)


def _call_problem(call: ast.Call, aliases: Dict[str, str]) -> Optional[str]:
    """Why a call can run code from the data it loads, or None."""
    name = _dotted(call.func, aliases) or ""
    module, _, function = name.rpartition(".")
    if module in PICKLING_MODULES and function in UNPICKLING_FUNCTIONS:
        return f"{name}() unpickles"
    if name == "pandas.read_pickle":
        return f"{name}() unpickles"
    if name == "torch.load" and not _keyword_is(call, "weights_only", True):
        return "torch.load() without weights_only=True unpickles any object"
    if name == "numpy.load" and any(keyword.arg == "allow_pickle" for keyword in call.keywords) \
            and not _keyword_is(call, "allow_pickle", False):
        return "numpy.load() with allow_pickle unpickles object arrays"
    return None


def unsafe_loads_in(path: Path) -> Iterator[str]:
    """``file:line: why`` for every load in ``path`` that can run code."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    aliases = _aliases(tree)
    where = path.relative_to(REPO_DIR) if path.is_relative_to(REPO_DIR) else path
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            problem = _call_problem(node, aliases)
            if problem:
                yield f"{where}:{node.lineno}: {problem}"
        elif isinstance(node, ast.ClassDef) and any(_dotted(base, aliases) == "pickle.Unpickler"
                                                    for base in node.bases):
            if not any(isinstance(item, ast.FunctionDef) and item.name == "find_class" for item in node.body):
                yield f"{where}:{node.lineno}: {node.name} subclasses pickle.Unpickler without a find_class"


def test_no_source_file_loads_data_that_can_run_code() -> None:
    found = [problem for folder in SOURCE_FOLDERS for path in sorted((REPO_DIR / folder).rglob("*.py"))
             for problem in unsafe_loads_in(path)]
    assert found == []


@pytest.mark.parametrize("source", [
    "import pickle\nwith open('x', 'rb') as f:\n    data = pickle.load(f)\n",
    "import pickle as p\ndata = p.loads(b'')\n",
    "from pickle import loads\ndata = loads(b'')\n",
    "from pickle import Unpickler as U\ndata = U(open('x', 'rb')).load()\n",
    "import joblib\nmodel = joblib.load('m.joblib')\n",
    "import shelve\nstore = shelve.open('s')\n",
    "import torch\nstate = torch.load('w.pt')\n",
    "from torch import load\nstate = load('w.pt', weights_only=False)\n",
    "import numpy as np\narray = np.load('a.npy', allow_pickle=True)\n",
    "import pandas as pd\nframe = pd.read_pickle('f.pkl')\n",
    "import pickle\nclass Open(pickle.Unpickler):\n    pass\n",
])
def test_the_scan_finds_each_kind_of_unsafe_load(tmp_path: Path, source: str) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert len(list(unsafe_loads_in(path))) == 1


def test_the_safe_forms_pass_the_scan(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text("import pickle\nimport numpy as np\nimport torch\n"
                    "state = torch.load('w.pt', map_location='cpu', weights_only=True)\n"
                    "array = np.load('a.npy', allow_pickle=False)\n"
                    "other = np.load('b.npy')\n"
                    "class Restricted(pickle.Unpickler):\n"
                    "    def find_class(self, module, name):\n"
                    "        raise pickle.UnpicklingError(name)\n"
                    "data = Restricted(open('x', 'rb')).load()\n", encoding="utf-8")
    assert list(unsafe_loads_in(path)) == []
