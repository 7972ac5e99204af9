"""``-o/--output``: every command that lists it writes to it. ``score -o FILE`` writes the bytes ``score`` prints,
in every ``-f`` format, and refuses, before any model loads, a path it cannot or must not write."""

from __future__ import annotations

import pytest

from ..cli_helpers import TEXTS, assert_one_line_error, invoke


@pytest.fixture
def lines_file(tmp_path):
    path = tmp_path / "outputs.txt"
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("output_format", ["text", "json", "tsv", "markdown", "latex"])
def test_score_output_file_holds_what_stdout_would(runner, bert_checkpoint, lines_file, tmp_path, output_format):
    args = ["score", str(lines_file), "-i", "lines", "-f", output_format, "--model", str(bert_checkpoint)]
    printed = invoke(runner, args)
    target = tmp_path / "scores.out"
    written = invoke(runner, [*args, "-o", str(target)])
    assert printed.exit_code == 0 and written.exit_code == 0, written.output
    assert target.read_bytes() == printed.stdout_bytes and written.stdout == ""
    assert written.stderr == printed.stderr  # TSV's signature still goes to stderr, not into the table
    assert sorted(path.name for path in tmp_path.iterdir()) == ["outputs.txt", "scores.out"]  # no temporary left


def test_score_output_replaces_an_old_file_whole(runner, bert_checkpoint, lines_file, tmp_path):
    target = tmp_path / "scores.tsv"
    target.write_text("old\n" * 1000, encoding="utf-8")
    args = ["score", str(lines_file), "-i", "lines", "-f", "tsv", "--model", str(bert_checkpoint)]
    assert invoke(runner, [*args, "--output", str(target)]).exit_code == 0
    assert target.read_text(encoding="utf-8") == invoke(runner, args).stdout


def test_score_output_under_on_empty_nan_keeps_the_nan_rows(runner, bert_checkpoint, tmp_path):
    source = tmp_path / "outputs.txt"
    source.write_text(f"{TEXTS[0]}\n\n{TEXTS[1]}\n", encoding="utf-8")
    target = tmp_path / "scores.tsv"
    args = ["score", str(source), "-i", "lines", "-f", "tsv", "--on-empty", "nan", "--model", str(bert_checkpoint)]
    with pytest.warns(UserWarning, match="1 empty text reported as NaN"):
        assert invoke(runner, [*args, "-o", str(target)]).exit_code == 0
    rows = target.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "label\tscore" and rows[2] == f"{source}:2\tnan" and len(rows) == 4


@pytest.mark.parametrize("target, fragments", [
    ("input", ["is one of the inputs", "write the scores to another file"]),
    ("folder", ["is a folder: -o names the file to write the scores to (a folder only with --ray)"]),
    ("missing/scores.tsv", ["cannot write the scores: folder", "does not exist"]),
])
def test_score_refuses_an_output_it_must_not_or_cannot_write_before_any_model_loads(runner, lines_file, tmp_path,
                                                                                      target, fragments):
    (tmp_path / "folder").mkdir()
    path = lines_file if target == "input" else tmp_path / target
    before = lines_file.read_bytes()
    result = invoke(runner, ["score", str(lines_file), "-i", "lines", "-o", str(path),
                             "--model", "no-such-org/no-such-checkpoint"])  # a model lookup would fail otherwise
    assert_one_line_error(result, *fragments)
    assert lines_file.read_bytes() == before and sorted(item.name for item in tmp_path.iterdir()) == [
        "folder", "outputs.txt"]


def test_every_command_listing_output_writes_it(runner):
    """Only ``compare``, ``score`` and ``report`` take -o; report's is required (the page goes nowhere else),
    score's is tested above, compare's in test_saved_scores.py. A command gaining -o must gain a test."""
    from coherence_metric.cli import cli

    takes_output = sorted(name for name, command in cli.commands.items()
                          if any("--output" in getattr(parameter, "opts", ()) for parameter in command.params))
    assert takes_output == ["compare", "report", "score"]
    report_output = next(parameter for parameter in cli.commands["report"].params if parameter.name == "output")
    assert report_output.required
