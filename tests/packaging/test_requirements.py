"""What ``pip install coherence-metric`` pulls: only what scoring needs; the research extras carry the rest.

scipy and krippendorff are used by the benchmarks (correlations, Krippendorff's alpha, tf-idf intruders) and by
training's intrusion negatives, never by scoring, so the core requirements must not name them, and a scorer must
run in an environment where they cannot be imported.
"""

from __future__ import annotations

import configparser
import math
import os
import subprocess
import sys
import textwrap
from typing import Dict, List

import pytest

from ..conftest import EXAMPLES_DIR, REPO_DIR

RESEARCH_ONLY = ("scipy", "krippendorff")


def _requirements() -> Dict[str, List[str]]:
    """``install_requires`` (key ``core``) and every extra of setup.cfg, as lists of project names."""
    parser = configparser.ConfigParser()
    parser.read(REPO_DIR / "setup.cfg", encoding="utf-8")

    def names(text: str) -> List[str]:
        return [line.split(";")[0].replace(">", "=").replace("<", "=").split("=")[0].strip().lower()
                for line in text.splitlines() if line.strip()]

    found = {"core": names(parser.get("options", "install_requires"))}
    found.update({extra: names(parser.get("options.extras_require", extra))
                  for extra in parser.options("options.extras_require")})
    return found


def test_scipy_and_krippendorff_are_not_core_requirements_but_come_with_the_extras_that_use_them() -> None:
    requirements = _requirements()
    for name in RESEARCH_ONLY:
        assert name not in requirements["core"], f"{name} is a core requirement"
        assert name in requirements["bench"], f"{name} missing from the bench extra"
    assert "scipy" in requirements["train"]  # training's intrusion negatives build tf-idf matrices


@pytest.mark.slow
def test_import_and_score_work_where_scipy_and_krippendorff_cannot_be_imported(tmp_path) -> None:
    """A ``None`` in ``sys.modules`` makes ``import x`` fail and ``find_spec(x)`` answer None: as if uninstalled."""
    script = textwrap.dedent(f"""
        import sys
        for name in {RESEARCH_ONLY!r}:
            sys.modules[name] = None
        import coherence_metric
        result = coherence_metric.score([open({str(EXAMPLES_DIR / 'coherent.txt')!r}).read()], device="cpu")
        assert len(result.scores) == 1, result
        loaded = sorted(name for name in sys.modules if name.split(".")[0] in {RESEARCH_ONLY!r}
                        and sys.modules[name] is not None)
        print("loaded:", loaded)
        print("score:", result.scores[0])
    """)
    environment = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=environment, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "loaded: []" in done.stdout
    assert math.isfinite(float(done.stdout.split("score:")[1]))
