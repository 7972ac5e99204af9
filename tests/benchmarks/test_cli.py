"""``coherence-metric benchmark SUITE``: mistakes are one line and exit status 2; a run prints the report and writes
files; each suite takes only its own options."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from coherence_metric.cli import cli
from coherence_metric.research.catalogue import ALL_SUITE_NAMES


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["benchmark", *args])


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_an_unknown_suite_is_one_line_naming_the_choices():
    line = _one_line_error(_invoke("papers", "--model", "whatever"))
    assert "unknown suite 'papers': choose one of " + ", ".join(ALL_SUITE_NAMES) in line


def test_the_help_lists_every_suite_and_each_suite_has_its_own():
    listed = _invoke("--help")
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout[listed.stdout.index("Commands:"):].splitlines()[1:]
    assert [line.split()[0] for line in lines if line.strip()] == list(ALL_SUITE_NAMES)
    for name in ALL_SUITE_NAMES:
        own = _invoke(name, "--help")
        assert own.exit_code == 0 and f"Usage: benchmark {name} [OPTIONS]" in own.stdout.replace("cli ", ""), name


def test_options_before_the_suite_are_one_line_saying_where_they_go():
    line = _one_line_error(_invoke("--model", "m", "paper"))
    assert "--model goes after the suite: coherence-metric benchmark SUITE [OPTIONS]" in line


@pytest.mark.parametrize("suite, option, value, owners", [
    ("speed", "--resume-from", "x.json", "paper, probes, all"),
    ("probes", "--split", "dev", "localisation"),
    ("paper", "--mechanisms", "window", "localisation"),
    ("localisation", "--encoder", "minilm", "discoeval"),
    ("human-dev", "--tasks", "SP", "discoeval"),
    ("discoeval", "--dtype", "fp32", "paper, probes, all, summeval-correlation, human-dev, speed, localisation, "
                                     "cohesentia-dev"),
    ("paper", "--bootstrap", "10", "summeval-correlation, human-dev"),
    ("speed", "--no-cache", None, "paper, probes, all, summeval-correlation, human-dev, discoeval, localisation, "
                                  "cohesentia-dev"),
    ("cohesentia-dev", "--baselines", None, "paper, probes, all, summeval-correlation, human-dev, localisation"),
])
def test_each_suite_refuses_another_suites_option_naming_it(suite, option, value, owners):
    """Nothing is ignored: an option the suite has no use for is click's usage error, before anything loads."""
    line = _one_line_error(_invoke(suite, "--model", "m", option, *([value] if value else [])))
    assert line.startswith(f"coherence-metric: error: {option} is an option of benchmark {owners}, not of benchmark "
                           f"{suite} (see '")
    assert line.endswith(f"benchmark {suite} --help')")


@pytest.mark.parametrize("option", ["--out", "--no-progress"])
def test_the_old_hidden_spellings_are_gone(option):
    line = _one_line_error(_invoke("probes", option, "x"))
    assert f"No such option '{option}'" in line


def test_a_missing_model_is_the_scorers_one_line_error(tmp_path):
    line = _one_line_error(_invoke("paper", "--model", str(tmp_path / "no-such-checkpoint"), "--limit", "2"))
    assert "no-such-checkpoint" in line


def test_an_install_without_the_default_model_is_one_line(monkeypatch, tmp_path):
    from coherence_metric.models import registry

    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", tmp_path)
    assert "default checkpoint has not shipped" in _one_line_error(_invoke("probes"))


@pytest.mark.parametrize("option, value, message", [("--limit", "0", "--limit"), ("--batch-size", "0", "--batch-size")])
def test_bad_numbers_are_one_line(option, value, message):
    assert message in _one_line_error(_invoke("paper", option, value))


def test_discoeval_without_an_encoder_says_what_to_pass(monkeypatch):
    import coherence_metric.benchmarks.discoeval as discoeval

    monkeypatch.setattr(discoeval, "registered_prefixes", lambda: ["hf", "minilm"])
    assert "--encoder" in _one_line_error(_invoke("discoeval"))


def test_discoeval_options_are_passed_through_to_its_runner(monkeypatch, tmp_path):
    import coherence_metric.benchmarks.discoeval as discoeval

    calls = []

    def fake_run(encoder, **settings):
        calls.append((encoder, settings))
        return {"outputs": {"json": str(tmp_path / "d.json")}}

    monkeypatch.setattr(discoeval, "run_discoeval", fake_run)
    monkeypatch.setattr(discoeval, "render_markdown", lambda result: "## DiscoEval: fake")
    result = _invoke("discoeval", "--encoder", "minilm", "--tasks", "SP, BSO", "--limit", "7",
                     "--output", str(tmp_path), "--no-cache")
    assert result.exit_code == 0, result.output
    assert "## DiscoEval: fake" in result.stdout
    encoder, settings = calls[0]
    assert encoder == "minilm" and settings["tasks"] == ["SP", "BSO"] and settings["limit"] == 7
    assert settings["out_dir"] == tmp_path and settings["use_cache"] is False and "seed" not in settings


def test_the_probes_suite_prints_the_table_and_writes_the_reports(bert_checkpoint, shared_data, tmp_path):
    result = _invoke("probes", "--model", str(bert_checkpoint), "--limit", "2", "--no-baselines",
                     "--output", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--quiet")
    assert result.exit_code == 0, result.output
    assert "## Benchmark `probes`" in result.stdout
    assert "| PROBE-to_negation (Negation) | 2 | accuracy % |" in result.stdout and "| 78.00 |" in result.stdout
    data = json.loads((tmp_path / "out" / "probes_limit2.json").read_text(encoding="utf-8"))
    assert len(data["test_sets"]) == 8 and [s["name"] for s in data["systems"]] == [data["model"]["label"]]
    assert (tmp_path / "out" / "probes_limit2.png").is_file() and (tmp_path / "out" / "probes_limit2.md").is_file()


def test_a_run_resumed_from_an_earlier_report_takes_its_sets_and_says_so(bert_checkpoint, shared_data, tmp_path):
    common = ["probes", "--model", str(bert_checkpoint), "--limit", "2", "--no-baselines", "--quiet"]
    assert _invoke(*common, "-o", str(tmp_path / "one"), "--cache-dir", str(tmp_path / "cache-1")).exit_code == 0
    earlier = tmp_path / "one" / "probes_limit2.json"
    again = _invoke(*common, "-o", str(tmp_path / "two"), "--cache-dir", str(tmp_path / "cache-2"),
                    "--resume-from", str(earlier))
    assert again.exit_code == 0, again.output
    assert f"8 test set(s) taken from earlier runs' reports (`{earlier}`)" in again.stdout
    first, second = (json.loads((tmp_path / name / "probes_limit2.json").read_text(encoding="utf-8"))
                     for name in ("one", "two"))
    assert second["test_sets"] == first["test_sets"] and second["cache"]["misses"] == 0


def test_resume_from_is_refused_where_there_are_no_test_sets_and_needs_an_existing_file(tmp_path):
    report = tmp_path / "all.json"
    report.write_text("{}", encoding="utf-8")
    assert "--resume-from is an option of benchmark paper, probes, all, not of benchmark speed" in _one_line_error(
        _invoke("speed", "--resume-from", str(report)))
    line = _one_line_error(_invoke("all", "--resume-from", str(tmp_path / "gone.json")))
    assert "--resume-from" in line and "gone.json" in line and "does not exist" in line


def test_a_run_without_a_terminal_logs_each_finished_set_unless_quiet(bert_checkpoint, shared_data, tmp_path):
    """Under nohup or in a job log there is no bar: without --quiet the run logs each set as --verbose does, so a
    suite hours long is not silent until it ends."""
    common = ["probes", "--model", str(bert_checkpoint), "--limit", "2", "--no-baselines",
              "--output", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache")]
    logged = _invoke(*common)  # CliRunner's stderr is not a terminal
    assert logged.exit_code == 0, logged.output
    lines = [line for line in logged.stderr.splitlines() if "PROBE-to_negation |" in line]
    assert len(lines) == 1 and re.match(r"\d\d:\d\d:\d\d PROBE-to_negation \| ", lines[0]), logged.stderr
    quiet = _invoke(*common, "--quiet")
    assert quiet.exit_code == 0 and "PROBE-" not in quiet.stderr, quiet.stderr
    assert "| PROBE-to_negation (Negation) | 2 | accuracy % |" in quiet.stdout  # the report is printed either way


@pytest.mark.slow
def test_the_speed_suite_runs_from_the_command_line(bert_checkpoint, tmp_path, monkeypatch):
    from coherence_metric.benchmarks.speed import cpu_speed as speed

    from .speed.test_cpu_speed import SENTENCES, TINY_XLNET

    monkeypatch.setattr(speed, "XLNET_BASE", TINY_XLNET)
    monkeypatch.setattr(speed, "news_sentences", lambda data_dir=None: SENTENCES)
    result = _invoke("speed", "--model", str(bert_checkpoint), "--limit", "2", "--output", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "## Speed:" in result.stdout and "speed-up ours" in result.stdout
    assert (tmp_path / "speed_limit2.json").is_file()


@pytest.mark.parametrize("suite, expected", [("speed", "auto"), ("paper", "fp32"), ("human-dev", "fp32")])
def test_the_benchmarks_dtype_is_auto_for_speed_and_fp32_for_numbers_compared_across_machines(monkeypatch, tmp_path,
                                                                                            suite, expected):
    from coherence_metric.benchmarks import cli as benchmark_cli
    from coherence_metric.benchmarks.harness.settings import RunSettings

    seen = {}

    def record(*args, **kwargs):
        seen["dtype"] = next(value.dtype for value in args if isinstance(value, RunSettings))
        raise SystemExit(0)

    for name in ("_speed", "_suite", "_rated"):
        monkeypatch.setattr(benchmark_cli, name, record)
    assert _invoke(suite, "--model", "m", "-o", str(tmp_path)).exit_code == 0
    assert seen["dtype"] == expected
    _invoke(suite, "--model", "m", "-o", str(tmp_path), "--dtype", "bf16")
    assert seen["dtype"] == "bf16"


def test_the_old_suite_option_is_one_line_saying_the_suite_comes_first():
    for old in (["--model", "m", "--suite", "probes"], ["--suite=probes"], ["-s", "probes", "--limit", "3"]):
        line = _one_line_error(_invoke(*old))
        assert "benchmark --suite was removed after 0.9.0: the suite is the first argument: coherence-metric " \
               "benchmark SUITE [OPTIONS], SUITE one of " + ", ".join(ALL_SUITE_NAMES) in line, old
