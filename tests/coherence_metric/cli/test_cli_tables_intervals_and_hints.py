"""The command line as a new user meets it: tables for a paper, intervals, p-values at their floor, systems
from one JSONL file, hints for two multi-line files and for bf16, consistent option names (old ones kept)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from coherence_metric.cli.commands import cli
from coherence_metric.cli.options import bf16_hint
from coherence_metric.statistics.p_values import format_p_value

from ...conftest import EXAMPLES_DIR, REPO_DIR
from ..cli_helpers import TEXTS
from ..cli_helpers import invoke_as_main as _invoke


def _systems_jsonl(tmp_path, counts=(4, 4, 4)):
    path = tmp_path / "outputs.jsonl"
    lines = []
    for name, count in zip(("base", "ft", "rl"), counts):
        for number, text in enumerate(TEXTS[:count]):
            lines.append(json.dumps({"system": name, "id": number, "text": text if name == "base" else
                                     " ".join(reversed(text.split(". "))) + ("" if name == "ft" else " Yes.")}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _system_files(tmp_path):
    records = [json.loads(line) for line in _systems_jsonl(tmp_path).read_text(encoding="utf-8").splitlines()]
    paths = []
    for name in ("base", "ft", "rl"):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(r["text"] for r in records if r["system"] == name) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("p_value, count, shown", [
    (1 / 1001, 1000, "<0.001"), (1 / 10001, 10000, "<0.0001"), (2 / 1001, 1000, "0.0020"), (0.5, 1000, "0.5000"),
    (1.0, 10000, "1.0000"), (1 / 16, 15, "<0.1")])
def test_a_p_value_at_its_floor_is_printed_as_a_bound(p_value, count, shown):
    assert format_p_value(p_value, count) == shown


def test_group_by_compares_the_systems_of_one_jsonl_file_as_separate_files_would(tmp_path, bert_checkpoint):
    grouped = _invoke(["compare", str(_systems_jsonl(tmp_path)), "--group-by", "system", "-f", "json",
                       "--model", str(bert_checkpoint)])
    files = _invoke(["compare", *_system_files(tmp_path), "-i", "lines", "-f", "json", "--model", str(bert_checkpoint)])
    assert grouped.exit_code == 0, grouped.output
    by_group, by_file = json.loads(grouped.stdout), json.loads(files.stdout)
    assert set(by_group["systems"]) == {"base", "ft", "rl"}
    for name in ("base", "ft", "rl"):
        file_label = next(label for label in by_file["systems"] if label.endswith(f"{name}.txt"))
        assert by_group["systems"][name]["scores"] == pytest.approx(by_file["systems"][file_label]["scores"], abs=1e-5)
    assert by_group["systems"]["ft"]["labels"] == [f"{tmp_path / 'outputs.jsonl'}:{n}" for n in (5, 6, 7, 8)]


def test_group_by_two_systems_is_the_paired_comparison(tmp_path, bert_checkpoint):
    path = _systems_jsonl(tmp_path, counts=(4, 4, 0))
    result = _invoke(["compare", str(path), "--group-by", "system", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("A  base  system score ") and "\nB  ft  system score " in result.stdout
    assert "A win rate: " in result.stdout and "(95% CI " in result.stdout.splitlines()[0]


@pytest.mark.parametrize("counts, message", [
    ((4, 3, 4), "different numbers of texts (base 4, ft 3, rl 4)"),
    ((4, 0, 0), "names 1 system in field 'system'")])
def test_group_by_refuses_unpaired_systems_in_one_line(tmp_path, counts, message):
    result = CliRunner().invoke(cli, ["compare", str(_systems_jsonl(tmp_path, counts)), "--group-by", "system"])
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_group_by_names_the_line_without_the_field(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"system": "a", "text": "One."}\n{"text": "Two."}\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["compare", str(path), "--group-by", "system"])
    assert result.exit_code == 2 and f"{path} line 2 has no field 'system'" in result.stderr


@pytest.mark.parametrize("output_format, first_line, row", [
    ("markdown", "| rank | system | coherence | 95% CI |", "| A | B | mean diff |"),
    ("latex", "% requires \\usepackage{booktabs}", "\\begin{tabular}{llrlrlrr}")])
def test_tables_for_a_paper_hold_every_system_and_pair(tmp_path, bert_checkpoint, output_format, first_line, row):
    files = _system_files(tmp_path)
    result = _invoke(["compare", *files, "-i", "lines", "-f", output_format, "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == first_line and row in result.stdout
    for path in files:
        name = path.replace("_", "\\_")  # both escape it: emphasis in Markdown, a subscript in LaTeX
        assert sum(name in line for line in lines) >= 3  # its system row and its two pair rows
    assert "coherence-metric:" in result.stdout  # the signature travels with the table
    two = _invoke(["compare", *files[:2], "-i", "lines", "-f", output_format, "--model", str(bert_checkpoint)])
    assert two.exit_code == 0 and row in two.stdout


def test_a_table_of_two_single_texts_is_refused_with_the_fix(bert_checkpoint):
    result = CliRunner().invoke(cli, ["compare", str(EXAMPLES_DIR / "coherent.txt"), str(EXAMPLES_DIR / "shuffled.txt"),
                                      "-f", "markdown", "--model", str(bert_checkpoint)])
    assert result.exit_code == 2 and "-i lines" in result.stderr


def test_two_multi_line_files_compared_whole_get_a_one_line_hint(bert_checkpoint):
    files = [str(EXAMPLES_DIR / "sysA.txt"), str(EXAMPLES_DIR / "sysB.txt")]
    whole = _invoke(["compare", *files, "--model", str(bert_checkpoint)])
    hints = [line for line in whole.stderr.splitlines() if "one text per line? pass -i lines" in line]
    assert len(hints) == 1 and "sysA.txt has 6 lines" in hints[0]
    assert "one text per line" not in _invoke(["compare", *files, "-i", "lines", "--model",
                                              str(bert_checkpoint)]).stderr
    assert _invoke(["compare", *files, "--quiet", "--model", str(bert_checkpoint)]).stderr == ""


def test_the_bf16_hint_appears_only_when_auto_chose_bf16(monkeypatch):
    monkeypatch.delenv("COHERENCE_METRIC_DTYPE", raising=False)
    assert "--dtype fp32" in bf16_hint("auto", "bf16")
    assert bf16_hint("auto", "fp32") is None and bf16_hint("bf16", "bf16") is None
    monkeypatch.setenv("COHERENCE_METRIC_DTYPE", "bf16")
    assert bf16_hint("auto", "bf16") is None  # chosen by the user through the environment


def test_score_prints_the_system_score_with_its_interval_and_counts_in_words(tmp_path, bert_checkpoint):
    one = _invoke(["score", str(EXAMPLES_DIR / "coherent.txt"), "--model", str(bert_checkpoint)])
    assert "(mean of 1 text)" in one.stdout and "bootstrap:" not in one.stdout
    many = _invoke(["score", str(EXAMPLES_DIR / "sysA.txt"), "-i", "lines", "--model", str(bert_checkpoint)])
    summary = next(line for line in many.stdout.splitlines() if line.startswith("system score: "))
    assert "(mean of 6 texts; 95% CI " in summary and "|bootstrap:1000|seed:12345|" in many.stdout
    data = json.loads(_invoke(["score", str(EXAMPLES_DIR / "sysA.txt"), "-i", "lines", "-f", "json", "--bootstrap",
                               "0", "--model", str(bert_checkpoint)]).stdout)
    assert "system_score_interval" not in data and "bootstrap:" not in data["signature"]
    table = _invoke(["score", str(EXAMPLES_DIR / "sysA.txt"), "-i", "lines", "-f", "markdown", "--model",
                     str(bert_checkpoint)]).stdout
    assert table.startswith("| text | coherence |") and "**system score** (mean of 6)" in table


def test_two_file_tsv_names_its_systems_as_the_n_system_tsv_does(bert_checkpoint):
    files = [str(EXAMPLES_DIR / "sysA.txt"), str(EXAMPLES_DIR / "sysB.txt")]
    result = _invoke(["compare", *files, "-i", "lines", "-f", "tsv", "--model", str(bert_checkpoint)])
    lines = result.stdout.splitlines()
    assert lines[0] == "system\tlabel\tscore"
    assert lines[1].startswith(f"{files[0]}\t{files[0]}:1\t") and lines[7].startswith(f"{files[1]}\t{files[1]}:1\t")


def test_benchmark_takes_the_shared_spellings_and_not_the_old_ones(monkeypatch, tmp_path):
    from coherence_metric.benchmarks import cli as benchmark_cli

    seen = []
    monkeypatch.setattr(benchmark_cli, "_suite", lambda *args: seen.append(args))
    for args in (["-o", str(tmp_path / "a"), "--quiet"], ["--output", str(tmp_path / "c"), "--progress"]):
        assert CliRunner().invoke(cli, ["benchmark", "probes", "--model", "m", *args]).exit_code == 0
    assert [settings.out_dir.name for _, settings in seen] == ["a", "c"]
    assert [settings.progress for _, settings in seen] == [False, True]
    for old in (["--out", str(tmp_path / "b")], ["--no-progress"]):
        gone = CliRunner().invoke(cli, ["benchmark", "probes", "--model", "m", *old])
        assert gone.exit_code == 2 and f"No such option '{old[0]}'" in gone.stderr
    refused = CliRunner().invoke(cli, ["benchmark", "paper", "--dtype", "fp64"])
    assert refused.exit_code == 2 and "'fp64' is not one of" in refused.stderr


def test_models_says_what_every_packaged_checkpoint_is_for():
    from coherence_metric.cli.models import packaged_descriptions
    from coherence_metric.models.registry import packaged_checkpoints

    descriptions = packaged_descriptions()
    missing = [name for name in packaged_checkpoints() if not descriptions.get(name)]
    assert not missing, f"add a line for {missing} to coherence_metric/checkpoints/descriptions.json"
    output = _invoke(["models"]).stdout
    for name in packaged_checkpoints():
        assert descriptions[name] in output
    assert json.loads(_invoke(["models", "-f", "json"]).stdout)["packaged"][0]["description"]


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--field", "--text-field"])
def test_the_example_script_takes_the_clis_field_option_and_its_old_name(tmp_path, bert_checkpoint, option):
    path = tmp_path / "outputs.jsonl"
    path.write_text('{"system": "a", "output": "One text. It goes on."}\n'
                    '{"system": "b", "output": "Another text. It ends."}\n', encoding="utf-8")
    completed = subprocess.run([sys.executable, str(REPO_DIR / "examples" / "score_system_outputs.py"), str(path),
                                option, "output", "--model", str(bert_checkpoint)],
                               capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr
    assert sorted(line.split("\t")[0] for line in completed.stdout.splitlines()[:2]) == ["a", "b"]


def test_the_model_descriptions_type_no_measured_number():
    """A number typed into a description drifts from the report that measured it: `coherence-metric
    models` says what each checkpoint is for in words and points to MODELS.md for its numbers."""
    import re

    from coherence_metric.cli.models import packaged_descriptions

    measured = re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])|\d+(?:\.\d+)?\s*%")
    typed = {name: measured.findall(text) for name, text in packaged_descriptions().items() if measured.findall(text)}
    assert typed == {}
