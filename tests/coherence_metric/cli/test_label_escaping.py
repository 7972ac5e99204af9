"""A file name cannot add a row to a Markdown table or a text line to ``explain``'s output.

A file named ``x<NEWLINE>| injected | 9.9999 |`` used to add a row ``| injected | 9.9999 |`` to the Markdown table
of ``score -f markdown`` and ``compare`` (systems), and a line to ``explain``'s text output; text and TSV output
already escaped labels (``\\n``). Each test runs the real command on real files with such names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..cli_helpers import invoke

HOSTILE = "x\n| injected | 9.9999 |"
TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Everyone agreed to build a wall. The town held a meeting.",
         "She trained for a year. In May she ran her first marathon."]


def _hostile_file(tmp_path: Path, name: str = HOSTILE) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    return path


def _table_rows(output: str):
    return [line for line in output.splitlines() if line.startswith("|")]


def test_score_markdown_keeps_one_row_per_text(runner, bert_checkpoint, tmp_path):
    path = _hostile_file(tmp_path)
    result = invoke(runner, ["score", str(path), "-i", "lines", "-f", "markdown", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    rows = _table_rows(result.stdout)
    assert len(rows) == 2 + len(TEXTS) + 1  # header, rule, one per text, the system score
    assert not any(row.startswith("| injected") for row in rows)
    assert all(row.count(" | ") == 1 for row in rows[2:])  # two cells each: a pipe in a label is escaped
    assert "x\\n\\| injected \\| 9.9999 \\|" in rows[2]


def test_compare_markdown_keeps_one_row_per_system_and_pair(runner, bert_checkpoint, tmp_path):
    hostile = _hostile_file(tmp_path)
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(reversed(TEXTS)) + "\n", encoding="utf-8")
    third = tmp_path / "third.txt"
    third.write_text("\n".join(TEXTS[1:] + TEXTS[:1]) + "\n", encoding="utf-8")
    result = invoke(runner, ["compare", str(hostile), str(plain), str(third), "-i", "lines", "-f", "markdown",
                             "--model", str(bert_checkpoint), "--bootstrap", "100", "--trials", "100"])
    assert result.exit_code == 0, result.output
    rows = _table_rows(result.stdout)
    assert len(rows) == (2 + 3) + (2 + 3)  # systems table and pairs table, header and rule each
    assert not any(row.startswith("| injected") for row in rows)
    assert sum("\\| injected \\|" in row for row in rows) == 1 + 2  # its systems row and its two pairs


def test_explain_text_names_the_file_on_one_line(runner, bert_checkpoint, tmp_path):
    path = _hostile_file(tmp_path)
    result = invoke(runner, ["explain", str(path), "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    headers = [line for line in lines if line.startswith("== ")]
    assert len(headers) == len(TEXTS)
    assert not any(line.startswith("| injected") for line in lines)
    assert headers[0].startswith("== " + str(tmp_path) + "/x\\n| injected | 9.9999 |:1  score ")


@pytest.mark.parametrize("name, expected", [
    ("a|b", "a\\|b"),
    ("a\\b", "a\\\\b"),
    ("tab\there\r\nnext", "tab\\there\\r\\nnext"),
])
def test_markdown_cells_escape_pipes_line_breaks_and_backslashes(name, expected):
    from coherence_metric.cli.tables import markdown_cell

    assert markdown_cell(name) == expected
