"""``coherence-metric explain``: sentences with transition scores, JSON, and one-line errors."""

from __future__ import annotations

import json

import pytest

from ...conftest import EXAMPLES_DIR
from ..cli_helpers import assert_one_line_error, invoke

SHUFFLED = str(EXAMPLES_DIR / "shuffled.txt")


def test_text_output_lists_sentences_marks_flags_with_their_kind_and_names_the_mechanism(runner, bert_checkpoint):
    result = invoke(runner, ["explain", SHUFFLED, "--model", str(bert_checkpoint), "--flag", "6"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"== {SHUFFLED}  score ") and lines[0].endswith("(6 sentences)")
    assert lines[1].startswith("  1  The first of them will start running in March.")
    marks = [line for line in lines if "  <- " in line]
    assert all(line.split("  <- ")[1].split(":")[0] in ("cohesion", "duplication", "relevance") for line in marks)
    assert len(marks) < 6 and (marks or "  (no break found)" in lines)  # a cap, not a quota
    assert lines[-3].startswith("transitions: transition-cosine (the shipped transition model's logit ")
    # A checkpoint no calibration was set with says its flags rest on the default's thresholds.
    assert lines[-2].startswith("flags: uncalibrated for this checkpoint (thresholds set with "
                                "cm-minilm-gpu-joint-2026.11, ")
    assert lines[-1].startswith("signature: ") and "|trans:transition-cosine:tm-minilm-2026.11@" in lines[-1]


def test_json_output_matches_the_api(runner, bert_checkpoint, tmp_path):
    from coherence_metric import CoherenceScorer

    path = tmp_path / "texts.txt"
    path.write_text("One sentence only.\nThe river rose. The fields flooded. The farmers left.\n", encoding="utf-8")
    result = invoke(runner, ["explain", str(path), "-i", "lines", "-f", "json", "--model", str(bert_checkpoint),
                             "--dtype", "fp32"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    expected = CoherenceScorer(str(bert_checkpoint), dtype="fp32").explain(
        ["One sentence only.", "The river rose. The fields flooded. The farmers left."])
    assert [entry["label"] for entry in data["texts"]] == [f"{path}:1", f"{path}:2"]
    assert data["texts"][0]["transitions"] == [] and "no transitions" in data["texts"][0]["note"]
    assert data["texts"][1]["transitions"] == pytest.approx(expected.texts[1].transitions, abs=1e-5)
    assert data["mechanism"] == "transition-cosine" and data["signature"] == str(expected.signature)
    per_sentence = data["texts"][1]["per_sentence"]
    assert len(per_sentence) == 3 and per_sentence[0]["evidence"]["cohesion"] is None
    assert [entry["kind"] for entry in per_sentence] == expected.texts[1].kinds


def test_a_text_of_one_sentence_in_text_output_says_so(runner, bert_checkpoint, tmp_path):
    path = tmp_path / "texts.txt"
    path.write_text("Alone here.\nThe river rose. The fields flooded.\n", encoding="utf-8")
    result = invoke(runner, ["explain", str(path), "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    assert "  (one sentence: no transitions to score)" in result.stdout.splitlines()


@pytest.mark.parametrize("content, args, fragments", [
    ("Just one sentence here.", [], ["the text has one sentence", "no transitions"]),
    ("One.\nTwo.\n", ["-i", "lines"], ["all 2 texts have one sentence"]),
])
def test_nothing_to_explain_is_one_line_exit_2(runner, bert_checkpoint, tmp_path, content, args, fragments):
    path = tmp_path / "short.txt"
    path.write_text(content, encoding="utf-8")
    result = invoke(runner, ["explain", str(path), *args, "--model", str(bert_checkpoint)])
    assert_one_line_error(result, str(path), *fragments)


def test_a_missing_file_and_a_bad_mechanism_are_one_line(runner, bert_checkpoint, tmp_path):
    assert_one_line_error(invoke(runner, ["explain", str(tmp_path / "nope.txt")]), "no such file")
    result = invoke(runner, ["explain", SHUFFLED, "--mechanism", "magic", "--model", str(bert_checkpoint)])
    assert_one_line_error(result, "--mechanism")


@pytest.mark.parametrize("command", ["explain", "diagnose", "score", "compare"])
def test_every_output_format_the_help_names_is_accepted(runner, command):
    """Every table format ``explain --help`` names (markdown and latex included) is accepted by ``-f``."""
    from coherence_metric.cli import (
        cli,
        commands,  # noqa: F401  (registers every command)
    )

    option = next(param for param in cli.commands[command].params if param.name == "output_format")
    accepted = set(option.type.choices)
    assert "text" in accepted and "json" in accepted
    for named in ("markdown", "latex", "tsv"):
        assert (named in option.help) <= (named in accepted), f"{command} -f help names {named}: {option.help}"
    shown = " ".join(invoke(runner, [command, "--help"]).stdout.split())
    for named in ("markdown", "latex"):
        assert (f"{named} and" in shown or f"{named}:" in shown) <= (named in accepted), shown


def test_a_text_too_long_to_explain_is_refused_before_any_model_runs(runner, bert_checkpoint, tmp_path):
    """explain's cost grows with the square of a text's sentences (every prefix scored, every pair compared): a
    3,000-sentence text grew past 8 GB; past the limit it is one line naming the file, at once."""
    from coherence_metric.analysis.explain import MAX_EXPLAIN_SENTENCES

    path = tmp_path / "long.txt"
    path.write_text(" ".join(f"Sentence number {n} is here." for n in range(MAX_EXPLAIN_SENTENCES + 1)),
                    encoding="utf-8")
    result = invoke(runner, ["explain", str(path), "--model", str(bert_checkpoint)])
    assert_one_line_error(result, str(path), f"has {MAX_EXPLAIN_SENTENCES + 1} sentences",
                          f"at most {MAX_EXPLAIN_SENTENCES}")
