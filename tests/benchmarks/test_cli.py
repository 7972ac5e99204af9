"""``coherence-metric benchmark``: mistakes are one line and exit status 2; a run prints the report and writes files."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from coherence_metric.cli import cli


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["benchmark", *args])


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_an_unknown_suite_is_one_line_naming_the_choices():
    line = _one_line_error(_invoke("--suite", "papers", "--model", "whatever"))
    assert "'papers' is not one of" in line
    for name in ("paper", "probes", "all", "summeval-correlation", "human-dev", "speed", "discoeval", "localisation"):
        assert f"'{name}'" in line


def test_a_missing_model_is_the_scorers_one_line_error(tmp_path):
    line = _one_line_error(_invoke("--model", str(tmp_path / "no-such-checkpoint"), "--limit", "2"))
    assert "no-such-checkpoint" in line


def test_an_install_without_the_default_model_is_one_line(monkeypatch, tmp_path):
    from coherence_metric.models import registry

    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", tmp_path)
    assert "default checkpoint has not shipped" in _one_line_error(_invoke("--suite", "probes"))


@pytest.mark.parametrize("option, value, message", [("--limit", "0", "--limit"), ("--batch-size", "0", "--batch-size")])
def test_bad_numbers_are_one_line(option, value, message):
    assert message in _one_line_error(_invoke(option, value))


def test_discoeval_without_an_encoder_says_what_to_pass(monkeypatch):
    import coherence_metric.benchmarks.discoeval as discoeval

    monkeypatch.setattr(discoeval, "registered_prefixes", lambda: ["hf", "minilm"])
    assert "--encoder" in _one_line_error(_invoke("--suite", "discoeval"))


def test_discoeval_options_are_passed_through_to_its_runner(monkeypatch, tmp_path):
    import coherence_metric.benchmarks.discoeval as discoeval

    calls = []

    def fake_run(encoder, **settings):
        calls.append((encoder, settings))
        return {"outputs": {"json": str(tmp_path / "d.json")}}

    monkeypatch.setattr(discoeval, "run_discoeval", fake_run)
    monkeypatch.setattr(discoeval, "render_markdown", lambda result: "## DiscoEval: fake")
    result = _invoke("--suite", "discoeval", "--encoder", "minilm", "--tasks", "SP, BSO", "--limit", "7",
                     "--out", str(tmp_path), "--no-cache")
    assert result.exit_code == 0, result.output
    assert "## DiscoEval: fake" in result.stdout
    encoder, settings = calls[0]
    assert encoder == "minilm" and settings["tasks"] == ["SP", "BSO"] and settings["limit"] == 7
    assert settings["out_dir"] == tmp_path and settings["use_cache"] is False and "seed" not in settings


def test_the_probes_suite_prints_the_table_and_writes_the_reports(bert_checkpoint, shared_data, tmp_path):
    result = _invoke("--model", str(bert_checkpoint), "--suite", "probes", "--limit", "2", "--no-baselines",
                     "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--no-progress")
    assert result.exit_code == 0, result.output
    assert "## Benchmark `probes`" in result.stdout
    assert "| PROBE-to_negation (Negation) | 2 | accuracy % |" in result.stdout and "| 78.00 |" in result.stdout
    data = json.loads((tmp_path / "out" / "probes_limit2.json").read_text(encoding="utf-8"))
    assert len(data["test_sets"]) == 8 and [s["name"] for s in data["systems"]] == [data["model"]["label"]]
    assert (tmp_path / "out" / "probes_limit2.png").is_file() and (tmp_path / "out" / "probes_limit2.md").is_file()


def test_a_run_resumed_from_an_earlier_report_takes_its_sets_and_says_so(bert_checkpoint, shared_data, tmp_path):
    common = ["--model", str(bert_checkpoint), "--suite", "probes", "--limit", "2", "--no-baselines", "--quiet"]
    assert _invoke(*common, "--out", str(tmp_path / "one"), "--cache-dir", str(tmp_path / "cache-1")).exit_code == 0
    earlier = tmp_path / "one" / "probes_limit2.json"
    again = _invoke(*common, "--out", str(tmp_path / "two"), "--cache-dir", str(tmp_path / "cache-2"),
                    "--resume-from", str(earlier))
    assert again.exit_code == 0, again.output
    assert f"8 test set(s) taken from earlier runs' reports (`{earlier}`)" in again.stdout
    first, second = (json.loads((tmp_path / name / "probes_limit2.json").read_text(encoding="utf-8"))
                     for name in ("one", "two"))
    assert second["test_sets"] == first["test_sets"] and second["cache"]["misses"] == 0


def test_resume_from_is_refused_where_there_are_no_test_sets_and_needs_an_existing_file(tmp_path):
    report = tmp_path / "all.json"
    report.write_text("{}", encoding="utf-8")
    assert "--resume-from is for --suite paper, probes, all" in _one_line_error(
        _invoke("--suite", "speed", "--resume-from", str(report)))
    line = _one_line_error(_invoke("--suite", "all", "--resume-from", str(tmp_path / "gone.json")))
    assert "--resume-from" in line and "gone.json" in line and "does not exist" in line


def test_a_run_without_a_terminal_logs_each_finished_set_unless_quiet(bert_checkpoint, shared_data, tmp_path):
    """Under nohup or in a job log there is no bar: without --quiet the run logs each set as --verbose does, so a
    suite hours long is not silent until it ends."""
    common = ["--model", str(bert_checkpoint), "--suite", "probes", "--limit", "2", "--no-baselines",
              "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache")]
    logged = _invoke(*common)  # CliRunner's stderr is not a terminal
    assert logged.exit_code == 0, logged.output
    lines = [line for line in logged.stderr.splitlines() if "PROBE-to_negation |" in line]
    assert len(lines) == 1 and re.match(r"\d\d:\d\d:\d\d PROBE-to_negation \| ", lines[0]), logged.stderr
    quiet = _invoke(*common, "--quiet")
    assert quiet.exit_code == 0 and "PROBE-" not in quiet.stderr, quiet.stderr
    assert "| PROBE-to_negation (Negation) | 2 | accuracy % |" in quiet.stdout  # the report is printed either way


@pytest.mark.slow
def test_the_speed_suite_runs_from_the_command_line(bert_checkpoint, tmp_path, monkeypatch):
    from coherence_metric.benchmarks import speed

    from .test_speed import SENTENCES, TINY_XLNET

    monkeypatch.setattr(speed, "XLNET_BASE", TINY_XLNET)
    monkeypatch.setattr(speed, "news_sentences", lambda data_dir=None: SENTENCES)
    result = _invoke("--model", str(bert_checkpoint), "--suite", "speed", "--limit", "2", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "## Speed:" in result.stdout and "speed-up ours" in result.stdout
    assert (tmp_path / "speed_limit2.json").is_file()


@pytest.mark.parametrize("suite, expected", [("speed", "auto"), ("paper", "fp32"), ("human-dev", "fp32")])
def test_the_benchmarks_dtype_is_auto_for_speed_and_fp32_for_numbers_compared_across_machines(monkeypatch, tmp_path,
                                                                                            suite, expected):
    from coherence_metric.benchmarks import cli as benchmark_cli
    from coherence_metric.benchmarks.run_settings import RunSettings

    seen = {}

    def record(*args, **kwargs):
        seen["dtype"] = next(value.dtype for value in args if isinstance(value, RunSettings))
        raise SystemExit(0)

    for name in ("_speed", "_suite", "_rated"):
        monkeypatch.setattr(benchmark_cli, name, record)
    assert _invoke("--suite", suite, "--model", "m", "-o", str(tmp_path)).exit_code == 0
    assert seen["dtype"] == expected
    _invoke("--suite", suite, "--model", "m", "-o", str(tmp_path), "--dtype", "bf16")
    assert seen["dtype"] == "bf16"
