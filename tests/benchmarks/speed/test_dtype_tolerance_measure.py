"""The measurement behind the bf16 tolerance (``python -m coherence_metric.benchmarks.speed.dtype_tolerance``):
deviations, kept winners and accuracies by hand, and a run on a probe set with a tiny checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coherence_metric.benchmarks.speed.dtype_tolerance import main, summarise, winner
from coherence_metric.research.data_dir import find_shared_data_dir


def test_a_tie_within_1e_5_is_nobodys_win_and_the_numbers_are_counted_by_hand() -> None:
    assert winner(1.0, 0.5) == 1 and winner(0.5, 1.0) == -1 and winner(1.0, 1.0 + 5e-6) == 0
    fp32 = [(1.0, 0.0), (0.2, 0.3), (0.5, 0.5)]
    bf16 = [(1.01, 0.0), (0.31, 0.3), (0.5, 0.5)]  # the second pair changes winner
    result = summarise(fp32, bf16)
    assert result["pairs"] == 3 and result["max_abs"] == pytest.approx(0.11)
    assert result["mean_abs"] == pytest.approx(0.12 / 6, abs=1e-6)
    assert result["same_winner"] == pytest.approx(2 / 3, abs=1e-5)
    assert result["accuracy_fp32"] == pytest.approx(1 / 3, abs=1e-4)
    assert result["accuracy_bf16"] == pytest.approx(2 / 3, abs=1e-4)


def test_a_run_on_a_probe_set_writes_the_json_the_docs_cite(bert_checkpoint: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if find_shared_data_dir() is None:
        pytest.skip("shared data folder not found (set COHERENCE_METRIC_DATA)")
    monkeypatch.setenv("COHERENCE_METRIC_CACHE", str(tmp_path / "cache"))
    main([str(bert_checkpoint), "--limit", "4", "--sets", "PROBE-to_negation", "--out", str(tmp_path / "d.json")])
    written = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    ((key, measured),) = written["models"].items()
    # keyed by the checkpoint it loaded (the name its signature gives), with the name it was given beside it
    assert key == measured["checkpoint"] and f"|model:{key}@" in measured["signature_fp32"]
    assert measured["spec"] == str(bert_checkpoint)
    assert written["limit"] == 4 and set(measured["sets"]) == {"PROBE-to_negation"}
    assert measured["all"]["pairs"] == 4 and 0.0 <= measured["all"]["max_abs"] < 1.0
    assert "dtype:fp32" in measured["signature_fp32"]
