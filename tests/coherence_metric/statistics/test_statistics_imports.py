"""The statistics modules import one another in one direction only: the tie rule lives in a leaf module
(``coherence_metric.statistics.ties``), so ``results -> significance -> bootstrap -> results`` is no longer a circle
that only a function-level import kept from failing. The whole package's circles and layers are checked in
``tests/packaging/test_import_cycles.py``; here, that each module imports on its own."""

from __future__ import annotations

import subprocess
import sys

from ...packaging.test_import_cycles import import_graph


def test_the_tie_rule_is_a_leaf_module():
    assert import_graph()["coherence_metric.statistics.ties"] == set()


def test_the_statistics_modules_import_only_base_modules_and_each_other():
    graph = import_graph()
    for module in ("bootstrap", "significance", "ties", "p_values"):
        targets = graph[f"coherence_metric.statistics.{module}"]
        assert all(target.startswith("coherence_metric.statistics.") or target == "coherence_metric.errors"
                   for target in targets), (module, targets)


def test_each_statistics_module_imports_first_in_a_fresh_interpreter():
    for name in ("statistics.bootstrap", "statistics.significance", "statistics.p_values", "results", "systems"):
        subprocess.run([sys.executable, "-c", f"import coherence_metric.{name}"], check=True)
