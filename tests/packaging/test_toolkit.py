"""``coherence_metric.toolkit``: the one face of the scoring package's insides that research, training, benchmarks and
the repository tools import (test_import_layers.py holds them to it). Its table must say the truth, stay small and stay
light."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from typing import Dict, Set

import pytest

import coherence_metric
from coherence_metric import toolkit

from ..conftest import REPO_DIR

SOURCE = REPO_DIR / "coherence_metric" / "toolkit.py"


def _type_checking_imports() -> Dict[str, str]:
    """Name -> module under ``coherence_metric`` of the imports the type checker reads."""
    found: Dict[str, str] = {}
    for node in ast.parse(SOURCE.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom):
                    found.update({alias.name: sub.module or "" for alias in sub.names})
    return found


def _toolkit_names_used() -> Set[str]:
    """The names research, training, benchmarks and the repository tools import from the toolkit."""
    used: Set[str] = set()
    for folder in ("research", "training", "benchmarks", "tools"):
        for path in (REPO_DIR / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "coherence_metric.toolkit":
                    used.update(alias.name for alias in node.names)
    return used


def test_every_name_is_the_public_object_of_the_module_its_table_names():
    for name, module_name in toolkit._LAZY.items():
        assert not name.startswith("_"), name
        module = importlib.import_module(f"coherence_metric.{module_name}")
        assert getattr(toolkit, name) is getattr(module, name), name


def test_the_table_the_type_checker_and_all_agree():
    assert toolkit.__all__ == sorted(toolkit._LAZY)
    assert _type_checking_imports() == toolkit._LAZY


def test_nothing_the_user_api_offers_is_repeated_here():
    """``CoherenceScorer``, ``load_checkpoint``, ``__version__``: training and benchmarks take those from the user API,
    like everyone else."""
    assert set(toolkit.__all__) & set(coherence_metric.__all__) == set()


def test_every_name_is_used_by_research_training_benchmarks_or_the_tools():
    """A name nothing imports is surface to keep stable for no one: it goes."""
    assert set(toolkit.__all__) - _toolkit_names_used() == set()


def test_importing_the_toolkit_loads_neither_torch_nor_numpy():
    """The benchmark and training command lines import it at startup; a name loads its module on first use."""
    code = ("import sys, coherence_metric.toolkit; "
            "print(sorted(m for m in ('torch', 'numpy', 'transformers') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_name_it_does_not_list_is_an_attribute_error():
    with pytest.raises(AttributeError, match="coherence_metric.toolkit"):
        toolkit.CoherenceScorer  # noqa: B018 - the user API's, not the toolkit's
