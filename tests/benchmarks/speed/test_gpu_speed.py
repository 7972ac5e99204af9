"""The GPU speed measurement, rehearsed on the CPU with a tiny model: the call a lent GPU runs
writes its report after every measurement, and the docs' table is that report's (``make tables``)."""

from __future__ import annotations

import json
import shutil

import pytest

from coherence_metric.benchmarks.reporting import landing
from coherence_metric.benchmarks.reporting.gpu_speed_markdown import (
    render_gpu_speed_markdown,
    render_host_ceiling_markdown,
)
from coherence_metric.benchmarks.reporting.report_reader import FAST, tier_label
from coherence_metric.benchmarks.speed import gpu_speed

from ..report_copies import REPORTS

SENTENCES = [f"Sentence number {index} says something about the weather in the town." for index in range(60)]


def _inputs(tmp_path, tiny_bert_dir):
    inputs = tmp_path / "inputs"
    shutil.copytree(tiny_bert_dir, inputs / "fast")
    (inputs / "sentences.json").write_text(json.dumps(SENTENCES), encoding="utf-8")
    return inputs


def test_a_cpu_rehearsal_measures_every_planned_row_and_writes_the_report(tmp_path, tiny_bert_dir):
    out = tmp_path / "out"
    out.mkdir()
    report = gpu_speed.run(_inputs(tmp_path, tiny_bert_dir), out, seconds=0.01, tiers=["fast"], device="cpu",
                           probe=8, lengths=(32, 64, 96), sweep=(16, 64), texts_per_length=24)
    assert [(row["tokens"], row["batch"], row["dtype"]) for row in report["rows"]] == [
        (32, 64, "fp32"), (64, 64, "fp32"), (96, 64, "fp32"), (64, 16, "fp32")]
    assert all(row["texts"] >= 8 and row["texts_per_second"] > 0 and row["peak_gpu_mb"] is None
               for row in report["rows"])
    assert json.loads((out / gpu_speed.REPORT_NAME).read_text(encoding="utf-8")) == report
    assert [(row["tokens"], row["batch"], row["repeats"]) for row in report["host_ceiling"]] == [
        (32, 64, 3), (64, 64, 3), (96, 64, 3)]
    assert all(row["texts_per_second"] > 0 and 0 < row["tokenise_share"] < 1 for row in report["host_ceiling"])
    lines = render_gpu_speed_markdown(report).splitlines()
    assert len(lines) == 2 + 3 and "fastest at 64 tokens" in lines[0]
    fastest = max(row["texts_per_second"] for row in report["rows"] if row["tokens"] == 64)
    assert f"{fastest:,.0f} (" in lines[3] and lines[3].startswith(f"| {tier_label(FAST)} (`{FAST}`) | 64 |")


#: Each generated speed table: its reports' folder, the key of the rows it reads, and the function that writes it.
TABLES = [(landing.GPU_SPEED, "rows", landing.gpu_speed_table),
          (landing.HOST_CEILING, "host_ceiling", landing.host_ceiling_table)]


@pytest.mark.parametrize(("folder", "key", "write"), TABLES)
def test_the_docs_table_is_the_newest_reports(tmp_path, folder, key, write):
    reports = tmp_path / "reports"
    shutil.copytree(REPORTS / folder, reports / folder)
    newest = sorted((reports / folder).glob("*.json"))[-1]
    report = json.loads(newest.read_text(encoding="utf-8"))
    report[key][0]["texts_per_second"] = 12345.0
    (reports / folder / "zz-later.json").write_text(json.dumps(report), encoding="utf-8")
    assert "12,345" in write(landing.Reports(reports))
    assert "12,345" not in write(landing.Reports(REPORTS))


@pytest.mark.parametrize(("write", "command"), [
    (landing.gpu_speed_table,
     r"gpu-speed: no report \(run python -m coherence_metric.benchmarks.speed.gpu_speed on a GPU\)"),
    (landing.host_ceiling_table, r"host-ceiling: no report \(run python -m coherence_metric.benchmarks.speed.gpu_speed "
                                 r"--host-only --device cpu\)")])
def test_no_report_is_one_line_naming_the_folder_and_the_command(tmp_path, write, command):
    with pytest.raises(landing.LandingError, match=command):
        write(landing.Reports(tmp_path))


def test_host_only_measures_the_ceilings_alone_and_their_table_names_the_machine(tmp_path, tiny_bert_dir):
    out = tmp_path / "out"
    out.mkdir()
    report = gpu_speed.run(_inputs(tmp_path, tiny_bert_dir), out, seconds=0.01, tiers=["fast"], device="cpu",
                           probe=8, lengths=(32, 64), texts_per_length=24, host_only=True)
    assert report["rows"] == [] and len(report["host_ceiling"]) == 2
    assert report["cpu_threads"] >= 1 and report["cpu"]
    lines = render_host_ceiling_markdown(report).splitlines()
    where = f"{report['cpu']}, {report['cpu_threads']} torch threads, model on cpu"
    assert lines[0].startswith(f"| host ceiling ({where})")
    share = round(100 * report["host_ceiling"][1]["tokenise_share"])
    assert lines[3].startswith(f"| {tier_label(FAST)} (`{FAST}`) | 64 | ")
    assert lines[3].endswith(f"| {share}% |")
