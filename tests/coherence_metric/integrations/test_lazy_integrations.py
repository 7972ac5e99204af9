"""``import coherence_metric`` stays free of the integration libraries (and of torch): each loads on use."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ...conftest import REPO_DIR

HEAVY = ("torch", "transformers", "evaluate", "datasets", "torchmetrics", "pandas", "ray", "pyarrow", "tqdm")


def _imported_after(statement: str) -> list:
    code = (f"import sys\n{statement}\n"
            f"print(','.join(name for name in {HEAVY!r} if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_DIR, check=True)
    return [name for name in done.stdout.strip().split(",") if name]


def test_importing_the_package_and_its_integrations_package_imports_none_of_them():
    assert _imported_after("import coherence_metric, coherence_metric.integrations\n"
                           "import coherence_metric.distributed, coherence_metric.cli.score\n"
                           "from coherence_metric.integrations import hf_evaluate") == []


@pytest.mark.slow  # a subprocess that imports torch: 7-10 s on a 2-core AMD EPYC (AVX2)
def test_the_check_sees_an_import_when_there_is_one():
    assert "torchmetrics" in _imported_after("import coherence_metric\nimport torchmetrics")


@pytest.mark.slow  # a subprocess that imports torch: 7-10 s on 2 cores
def test_importing_score_loads_torch_but_not_transformers():
    """``from coherence_metric import score`` in an evaluation script: torch (the scorer's tensors), nothing else
    heavy; transformers (seconds of import) comes with the first model or dtype probe."""
    code = ("import sys\nfrom coherence_metric import score, CoherenceScorer\n"
            "print(','.join(sorted(name for name in sys.modules if name in ('transformers', 'torch', 'pandas'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_DIR, check=True)
    assert done.stdout.strip() == "torch"
