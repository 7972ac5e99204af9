"""End to end: run_discoeval with a tiny random BERT on a few tasks, limit 40, twice (the second from cache)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coherence_metric.benchmarks.discoeval import GROUPS, run_discoeval

from .fakes import HashEncoder

TASKS = ["SP/wiki", "DC/chat", "PDTB-E"]


def test_tiny_encoder_end_to_end(discoeval_dir: Path, tiny_encoder_dir: Path, tmp_path: Path,
                                 one_torch_thread: None) -> None:
    spec = f"hf:{tiny_encoder_dir}:pool=mean"
    first = run_discoeval(spec, tasks=TASKS, limit=40, out_dir=tmp_path / "out", seed=3, data_dir=discoeval_dir,
                          cache_dir=tmp_path / "cache")
    assert list(first["tasks"]) == TASKS
    sp, dc, pdtb = (first["tasks"][name] for name in TASKS)
    assert sp["trained_on_valid"] and sp["n_train"] is None and (sp["n_valid"], sp["n_test"]) == (40, 40)
    assert (sp["n_fit"], sp["n_tune"]) == (40, 8) and sp["feature_dim"] == 5 * 32
    assert not dc["trained_on_valid"] and dc["feature_dim"] == 6 * 32 and "epochs" in dc["chosen"]
    assert pdtb["num_labels"] == 12 and pdtb["feature_dim"] == 4 * 32 and pdtb["ldc_derived"]
    assert all(0.0 <= row["test_accuracy"] <= 100.0 for row in first["tasks"].values())
    assert first["groups"]["PDTB-E"] == pdtb["test_accuracy"]
    assert first["domains"] == {"SP": {"wiki": sp["test_accuracy"]}, "DC": {"chat": dc["test_accuracy"]},
                                "PDTB-E": {"wsj": pdtb["test_accuracy"]}}
    assert first["groups"]["SP"] is None and first["groups"]["avg"] is None  # SP/arxiv and others did not run
    assert first["flags"] == {"trained_on_valid": ["SP/wiki"], "limited": True,
                              "incomplete_groups": [g for g in GROUPS if g != "PDTB-E"]}
    assert first["cache"]["hits"] == 0 and first["cache"]["misses"] == 8  # 2 + 3 + 3 splits

    second = run_discoeval(spec, tasks=TASKS, limit=40, seed=3, data_dir=discoeval_dir,
                           cache_dir=tmp_path / "cache")
    assert second["cache"]["hits"] == 8 and second["cache"]["misses"] == 0
    assert {n: r["test_accuracy"] for n, r in second["tasks"].items()} == {
        n: r["test_accuracy"] for n, r in first["tasks"].items()}

    markdown = Path(first["outputs"]["markdown"]).read_text(encoding="utf-8")
    assert "| BERT-Base | Iter et al. 2020 (CONPONO), Table 1 | 53.1 | 68.5 | 58.9 | 80.3 | 41.9 | 42.4 | 58.8 |" \
        in markdown
    assert "| CONPONO (k=2) | Iter et al. 2020 (CONPONO), Table 1 | 60.7 | 76.8 | 72.9 | 80.4 | 42.9 | 44.9 |" \
        in markdown
    assert "| BERT-Base | Chen et al. 2019, Table 2 | 49.1 | 68.1 | 58.9 | 80.6 | 44.0 | 42.5 | 58.7 | 57.4 |" \
        in markdown
    assert "| SP/wiki |" in markdown and "yes †" in markdown
    assert Path(first["outputs"]["png"]).is_file() and Path(first["outputs"]["json"]).is_file()


def test_every_task_runs_with_a_fake_encoder(discoeval_dir: Path, tmp_path: Path) -> None:
    result = run_discoeval(HashEncoder(4), limit=30, data_dir=discoeval_dir, cache_dir=tmp_path, use_cache=False)
    assert set(result["groups"]) == set(GROUPS) | {"avg"}
    assert result["groups"]["avg"] is not None and result["flags"]["incomplete_groups"] == []
    assert sorted(result["flags"]["trained_on_valid"]) == ["DC/wiki", "SP/arxiv", "SP/wiki"]
    assert not list(tmp_path.rglob("*.npy"))


def test_unknown_task_fails_before_any_work(discoeval_dir: Path) -> None:
    from coherence_metric.errors import InputError

    with pytest.raises(InputError, match="unknown DiscoEval task"):
        run_discoeval(HashEncoder(), tasks=["SP/klingon"], data_dir=discoeval_dir)


def test_an_interrupted_run_resumes_its_finished_tasks(discoeval_dir: Path, tmp_path: Path) -> None:
    from coherence_metric.errors import InputError

    data = tmp_path / "data"
    (data / "SP").mkdir(parents=True)
    (data / "SP" / "wiki").symlink_to(discoeval_dir / "SP" / "wiki")
    out, cache, tasks = tmp_path / "out", tmp_path / "cache", ["SP/wiki", "SSP"]

    def interrupted_run() -> None:  # SSP's data is missing: the run dies after SP/wiki finished
        with pytest.raises(InputError, match="SSP"):
            run_discoeval(HashEncoder(4), tasks=tasks, limit=30, out_dir=out, data_dir=data, cache_dir=cache)
        assert [path.name for path in (out / "partial").iterdir()] == ["SP_wiki.json"]
        (data / "SSP").symlink_to(discoeval_dir / "SSP")

    interrupted_run()
    other_seed = run_discoeval(HashEncoder(4), tasks=tasks, limit=30, seed=5, out_dir=out, data_dir=data,
                               cache_dir=cache)
    assert other_seed["resumed"]["tasks"] == []  # computed under another key: not reused
    assert not (out / "partial").exists()  # the full report replaces the partial results

    (data / "SSP").unlink()
    interrupted_run()
    resumed = run_discoeval(HashEncoder(4), tasks=tasks, limit=30, out_dir=out, data_dir=data, cache_dir=cache)
    fresh = run_discoeval(HashEncoder(4), tasks=tasks, limit=30, data_dir=data, cache_dir=cache, use_cache=False)
    assert resumed["resumed"]["tasks"] == ["SP/wiki"] and fresh["resumed"]["tasks"] == []
    timings = ("seconds_encoding", "seconds_classifier")
    assert ({name: {k: v for k, v in row.items() if k not in timings} for name, row in resumed["tasks"].items()}
            == {name: {k: v for k, v in row.items() if k not in timings} for name, row in fresh["tasks"].items()})
    assert not (out / "partial").exists()
    markdown = Path(resumed["outputs"]["markdown"]).read_text(encoding="utf-8")
    assert "in 1 task(s) resumed from an interrupted run (SP/wiki)" in markdown
