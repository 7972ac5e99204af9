"""``experiments/``: the scripts behind MODELS.md's "Tried, not shipped" numbers stay importable, linted and runnable.

They use the research packages' internals, so a refactor that moves a module breaks them silently unless a test
imports and runs them: every module imports, every script documents its ``python -m`` command and has ``main``,
ruff passes, and two scripts run end to end on a real probe set with a tiny checkpoint (``score_sets`` fills the
benchmark cache, ``significance`` reads it back).
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coherence_metric.models.checkpoint_config import read_checkpoint_config
from coherence_metric.research.data_dir import find_shared_data_dir

from ..conftest import REPO_DIR

EXPERIMENTS_DIR = REPO_DIR / "experiments"
MODULES = sorted(".".join(path.relative_to(REPO_DIR).with_suffix("").parts) for path in EXPERIMENTS_DIR.rglob("*.py")
                 if path.name != "__init__.py")
#: Modules of helpers the scripts share (no command of their own).
HELPERS = {"experiments.insted.cached", "experiments.insted.cropping"}
PROBE = "PROBE-to_negation"


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports_and_every_script_documents_its_command(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__, f"{name} has no docstring"
    if name not in HELPERS:
        assert callable(getattr(module, "main", None)), f"{name} has no main()"
        documented = module.__doc__ + (EXPERIMENTS_DIR / "README.md").read_text(encoding="utf-8")
        assert f"python -m {name}" in documented, f"{name}: no 'python -m {name}' line in its docstring or README"


def test_the_folder_is_linted() -> None:
    if importlib.util.find_spec("ruff") is None and shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (the dev extra)")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "experiments"], cwd=REPO_DIR, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-3000:]


def test_windows_and_clusters_are_what_the_scripts_read() -> None:
    from experiments.insted.windows import windows_of
    from experiments.significance import cluster_of

    assert windows_of([["a", "b", "c"], ["d"]], 2) == ([["a", "b"], ["b", "c"], ["d"]], [0, 0, 1])
    assert cluster_of("doc-7/3") == "doc-7" and cluster_of("12") == "12"


def test_the_boundary_head_reads_each_sentence_s_own_tokens_of_one_pass(bert_checkpoint: Path) -> None:
    from coherence_metric import CoherenceScorer
    from experiments.boundary_head_dev import boundary_features, sentence_token_ids, sentence_vectors

    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    story = ["A cat sat on the mat.", "It purred, then slept!", "Dawn came."]
    ids, owners = sentence_token_ids(scorer.tokenizer, story, 512)
    assert ids == list(scorer.tokenizer(" ".join(story))["input_ids"])  # the scorer's own ids for the text
    assert owners[0] == owners[-1] == -1 and owners[1:-1] == sorted(owners[1:-1]) and set(owners[1:-1]) == {0, 1, 2}
    cut_ids, cut_owners = sentence_token_ids(scorer.tokenizer, story, 8)  # cut at max_length: a prefix of sentences
    assert len(cut_ids) == 8 and max(cut_owners) < 2
    width = 2 * scorer.model.hidden_size  # a middle layer's states beside the last one's
    vectors = sentence_vectors(scorer, [story, ["Alone."]], layers=(1, -1))
    assert [tuple(value.shape) for value in vectors] == [(3, width), (1, width)]
    assert boundary_features(vectors[0]).shape == (2, 4 * width)
    assert boundary_features(vectors[1]).shape[0] == 0  # one sentence: no boundary, nothing invented


def test_score_sets_fills_the_cache_that_significance_reads(bert_checkpoint: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    if find_shared_data_dir() is None:
        pytest.skip("shared data folder not found (set COHERENCE_METRIC_DATA)")
    from experiments import score_sets, significance

    monkeypatch.setenv("COHERENCE_METRIC_CACHE", str(tmp_path / "cache"))
    score_sets.main([PROBE, str(bert_checkpoint)])
    assert "'accuracy'" in capsys.readouterr().out
    assert list((tmp_path / "cache" / "scores").glob(f"{PROBE}-*.json"))
    needle = "@" + read_checkpoint_config(bert_checkpoint).fingerprint()
    significance.main([PROBE, needle, needle])
    printed = capsys.readouterr().out
    assert "'A - B': 0.0" in printed and "'pairs': 100" in printed, printed
    with pytest.raises(SystemExit, match="no cached full-set scores of @nothing"):
        significance.main([PROBE, "@nothing", needle])


class _RunsCode:
    """A pickle that runs code when loaded (a file dropped in a downloaded run folder)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "ran"))


def test_dev_kinds_reads_run_files_without_running_code(tmp_path: Path) -> None:
    """``experiments/insted/dev_kinds.py`` loaded a run's state.pt with ``weights_only=False`` (issue 39 item 30)."""
    import torch

    from coherence_metric.errors import InputError
    from experiments.insted import dev_kinds

    marker = tmp_path / "ran.txt"
    torch.save({"recipe": {"data": {}}, "payload": _RunsCode(marker)}, tmp_path / "state.pt")
    with pytest.raises(InputError, match="state.pt: cannot resume from this file"):
        dev_kinds.main(str(tmp_path))
    assert not marker.exists()
    offenders = [str(path.relative_to(REPO_DIR)) for folder in ("experiments", "research", "benchmarks")
                 for path in (REPO_DIR / folder).rglob("*.py") if "weights_only=False" in path.read_text("utf-8")]
    assert offenders == []


def test_weight_average_of_a_checkpoint_with_itself_scores_the_same(bert_checkpoint: Path, tmp_path: Path) -> None:
    from coherence_metric import CoherenceScorer
    from experiments.weight_average import main

    main([str(bert_checkpoint), str(bert_checkpoint), "--weights", "0.25,0.75", "--out", str(tmp_path / "soup")])
    texts = [["The cat sat.", "It purred."], ["Rain fell.", "The market rose.", "She laughed."]]
    expected = CoherenceScorer(str(bert_checkpoint), dtype="fp32").score(texts).scores
    averaged = CoherenceScorer(str(tmp_path / "soup"), dtype="fp32").score(texts).scores
    assert averaged == pytest.approx(expected, abs=1e-5)
    recorded = read_checkpoint_config(tmp_path / "soup").training["weight_average"]
    assert recorded["weights"] == [0.25, 0.75] and len(recorded["fingerprints"]) == 2
    with pytest.raises(SystemExit, match="one per checkpoint, summing to 1"):
        main([str(bert_checkpoint), str(bert_checkpoint), "--weights", "0.5,0.6", "--out", str(tmp_path / "bad")])
