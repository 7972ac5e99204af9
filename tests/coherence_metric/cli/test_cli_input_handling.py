"""The command line's input handling: devices, stdin twice, one file under two spellings, scorer errors
naming file and line, and labels that cannot break the TSV or text output."""

from __future__ import annotations

import os
import subprocess
import sys

from ...conftest import REPO_DIR
from ..cli_helpers import assert_one_line_error, invoke

COHERENT_LINES = ("The river rose slowly through the night. By morning the lower fields were under water.\n"
                  "Everyone agreed to build a wall. The town held a meeting.\n")


def test_score_dev_zero_is_refused_at_once():
    """It read until memory ran out; the console script, in a subprocess with a time limit."""
    script = os.path.join(os.path.dirname(sys.executable), "coherence-metric")
    result = subprocess.run([script, "score", "/dev/zero"], capture_output=True, text=True, cwd=REPO_DIR, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == ("coherence-metric: error: /dev/zero is not a regular file (a device or socket): "
                                     "save the text to a file, or pipe it to - (stdin)")


def test_compare_stdin_twice_says_given_twice(runner, bert_checkpoint):
    result = invoke(runner, ["compare", "-", "-", "--model", str(bert_checkpoint)], input="One text. Two.\n")
    assert_one_line_error(result, "<stdin> is given twice", "stdin can be read once")


def test_one_file_under_two_spellings_is_one_system(runner, bert_checkpoint, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("a.txt", "c.txt"):
        (tmp_path / name).write_text(COHERENT_LINES, encoding="utf-8")
    os.symlink("a.txt", tmp_path / "link.txt")
    for spelling in ("./a.txt", str(tmp_path / "a.txt"), "link.txt", "../" + tmp_path.name + "/a.txt"):
        result = invoke(runner, ["compare", "a.txt", spelling, "c.txt", "-i", "lines",
                                 "--model", str(bert_checkpoint)])
        assert_one_line_error(result, f"a.txt and {spelling} are the same file", "name each system's file once")


def test_scorer_errors_name_the_file_and_line(runner, bert_checkpoint, tmp_path):
    """A text the reader accepts but the scorer refuses (it tokenises to nothing; it is too long under
    --truncation error) is named as file:line, like the reader's own errors, not as "text 1"."""
    path = tmp_path / "lines.txt"
    path.write_text("A fine text. It goes on.\n\u0301\u0301\u0301\n", encoding="utf-8")
    result = invoke(runner, ["score", str(path), "-i", "lines", "--model", str(bert_checkpoint)])
    assert_one_line_error(result, f"{path}:2 tokenises to special tokens only")
    assert "text 1" not in result.stderr

    long_path = tmp_path / "long.txt"
    long_path.write_text("Short one. Fine.\n" + "A long sentence goes on and on. " * 20 + "\n", encoding="utf-8")
    result = invoke(runner, ["score", str(long_path), "-i", "lines", "--truncation", "error", "--max-length", "16",
                             "--model", str(bert_checkpoint)])
    assert_one_line_error(result, f"({long_path}:2 has", "exceed max_length=16")

    other = tmp_path / "other.txt"
    other.write_text("A fine text. It goes on.\nAnother fine text.\n", encoding="utf-8")
    result = invoke(runner, ["compare", str(other), str(path), "-i", "lines", "--model", str(bert_checkpoint)])
    assert_one_line_error(result, f"{path}:2 tokenises to special tokens only")
    third = tmp_path / "third.txt"
    third.write_text("A fine text. It goes on.\nAnother.\n", encoding="utf-8")
    result = invoke(runner, ["compare", str(other), str(third), str(path), "-i", "lines",
                             "--model", str(bert_checkpoint)])
    assert_one_line_error(result, f"{path}:2 tokenises to special tokens only")


def test_labels_with_tabs_and_newlines_cannot_inject_rows(runner, bert_checkpoint, tmp_path):
    name = tmp_path / "evil\tname\nfake_row\t99.000000.txt"
    name.write_text(COHERENT_LINES, encoding="utf-8")
    result = invoke(runner, ["score", str(name), "-i", "lines", "--format", "tsv", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    rows = result.stdout.splitlines()
    assert rows[0] == "label\tscore" and len(rows) == 3
    assert all(len(row.split("\t")) == 2 for row in rows)
    assert rows[1].startswith(str(tmp_path) + "/evil\\tname\\nfake_row\\t99.000000.txt:1\t")

    result = invoke(runner, ["score", str(name), "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 2 + 2  # two texts, the system score, the signature
    assert "evil\\tname\\nfake_row" in result.stdout

    result = invoke(runner, ["compare", str(name), str(name), "-i", "lines", "--format", "tsv",
                             "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    assert all(len(row.split("\t")) == 3 for row in result.stdout.splitlines())
    result = invoke(runner, ["compare", str(name), str(name), "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 8, result.output


def test_an_error_naming_a_path_with_a_newline_stays_one_line(runner, tmp_path):
    result = invoke(runner, ["score", str(tmp_path / "no\nsuch\tfile.txt")])
    assert_one_line_error(result, "no\\nsuch\tfile.txt: no such file")
