"""The GPU speed measurement (issue 56 item 4), rehearsed on the CPU with a tiny model: the call a lent GPU runs
writes its report after every measurement, and the docs' table is that report's (``make tables``)."""

from __future__ import annotations

import json
import shutil

import pytest

from coherence_metric.benchmarks import gpu_speed
from coherence_metric.benchmarks.reporting import landing

from .report_copies import REPORTS

SENTENCES = [f"Sentence number {index} says something about the weather in the town." for index in range(60)]


def _inputs(tmp_path, tiny_bert_dir):
    inputs = tmp_path / "inputs"
    shutil.copytree(tiny_bert_dir, inputs / "default")
    (inputs / "sentences.json").write_text(json.dumps(SENTENCES), encoding="utf-8")
    return inputs


def test_a_cpu_rehearsal_measures_every_planned_row_and_writes_the_report(tmp_path, tiny_bert_dir):
    out = tmp_path / "out"
    out.mkdir()
    report = gpu_speed.run(_inputs(tmp_path, tiny_bert_dir), out, seconds=0.01, tiers=["default"], device="cpu",
                           probe=8, lengths=(32, 64, 96), sweep=(16, 64), texts_per_length=24)
    assert [(row["tokens"], row["batch"], row["dtype"]) for row in report["rows"]] == [
        (32, 64, "fp32"), (64, 64, "fp32"), (96, 64, "fp32"), (64, 16, "fp32")]
    assert all(row["texts"] >= 8 and row["texts_per_second"] > 0 and row["peak_gpu_mb"] is None
               for row in report["rows"])
    assert json.loads((out / gpu_speed.REPORT_NAME).read_text(encoding="utf-8")) == report
    lines = gpu_speed.table(report).splitlines()
    assert len(lines) == 2 + 3 and "fastest at 64 tokens" in lines[0]
    fastest = max(row["texts_per_second"] for row in report["rows"] if row["tokens"] == 64)
    assert f"{fastest:,.0f} (" in lines[3] and lines[3].startswith("| default (`cm-minilm-gpu-joint-2026.11`) | 64 |")


def test_the_docs_table_is_the_newest_reports(tmp_path):
    reports = tmp_path / "reports"
    shutil.copytree(REPORTS / landing.GPU_SPEED, reports / landing.GPU_SPEED)
    newest = sorted((reports / landing.GPU_SPEED).glob("*.json"))[-1]
    report = json.loads(newest.read_text(encoding="utf-8"))
    report["rows"][0]["texts_per_second"] = 12345.0
    (reports / landing.GPU_SPEED / "zz-later.json").write_text(json.dumps(report), encoding="utf-8")
    assert "12,345" in landing.gpu_speed_table(landing.Reports(reports))
    assert "12,345" not in landing.gpu_speed_table(landing.Reports(REPORTS))


def test_no_report_is_one_line_naming_the_folder_and_the_command(tmp_path):
    with pytest.raises(landing.LandingError, match=r"gpu-speed: no report \(run python -m "
                                                    r"coherence_metric.benchmarks.gpu_speed on a GPU\)"):
        landing.gpu_speed_table(landing.Reports(tmp_path))
