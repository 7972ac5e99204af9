"""Files a user points the package at, taken as they may be: JSON nested a hundred thousand levels deep or holding
an integer of thousands of digits (Python's json raises RecursionError or ValueError on them) is one line naming the
file; an output path that is a FIFO, a folder or a link to one is refused, never replaced by the file written."""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from coherence_metric import CoherenceScorer
from coherence_metric.atomic_write import write_atomically
from coherence_metric.errors import CheckpointError, InputError
from coherence_metric.inputs.files import read_texts
from coherence_metric.models.checkpoint_config import CONFIG_NAME, hash_folder_files, read_checkpoint_config
from coherence_metric.safe_json import MAX_DEPTH, nesting_depth, parse_json

from .cli_helpers import TEXTS, assert_one_line_error, invoke

DEEP = "[" * 100_000 + "]" * 100_000
LONG_INTEGER = "7" * 5_000


# ------------------------------------------------------------------------------------------ JSON inputs


@pytest.mark.parametrize("line, reason", [
    (f'{{"text": "A line.", "meta": {DEEP}}}', f"nested deeper than {MAX_DEPTH} levels"),
    (f'{{"text": "A line.", "count": {LONG_INTEGER}}}', "Exceeds the limit (4300 digits)"),
])
def test_a_jsonl_line_too_deep_or_with_too_long_an_integer_is_one_line_naming_it(tmp_path: Path, line: str,
                                                                                   reason: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "Fine."}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(f"rows.jsonl line 2 is not valid JSON ({reason}")) as raised:
        read_texts(str(path), "jsonl")
    assert "\n" not in str(raised.value)


def test_the_score_command_says_so_in_one_line(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(f'{{"text": {DEEP}}}\n', encoding="utf-8")
    done = invoke(runner, ["score", str(path), "-i", "jsonl"])
    assert_one_line_error(done, "rows.jsonl line 1 is not valid JSON (nested deeper than")


@pytest.mark.parametrize("content", [DEEP, f'{{"format_version": {LONG_INTEGER}}}'])
def test_a_checkpoint_config_too_deep_or_with_too_long_an_integer_is_corrupt_in_one_line(
        tmp_path: Path, content: str) -> None:
    (tmp_path / CONFIG_NAME).write_text(content, encoding="utf-8")
    with pytest.raises(CheckpointError, match=rf"{CONFIG_NAME} is corrupt: not valid JSON \("):
        read_checkpoint_config(tmp_path)


@pytest.mark.parametrize("content", [DEEP, f'{{"model_max_length": {LONG_INTEGER}}}'])
def test_a_checkpoint_holding_json_no_loader_can_read_is_refused_in_one_line(bert_checkpoint: Path, tmp_path: Path,
                                                                              content: str) -> None:
    folder = shutil.copytree(bert_checkpoint, tmp_path / "checkpoint")
    next(folder.rglob("tokenizer_config.json")).write_text(content, encoding="utf-8")
    config = read_checkpoint_config(folder)
    config.files = hash_folder_files(folder)  # rehashed: the file is listed, and refused for what it holds
    config.write(folder)
    with pytest.raises(CheckpointError, match=r"is refused: tokenizer/tokenizer_config.json is not valid JSON \("):
        CoherenceScorer(str(folder))


def test_json_nested_just_within_the_limit_reads_and_one_level_more_does_not() -> None:
    assert nesting_depth(parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, "x")) == MAX_DEPTH
    with pytest.raises(InputError, match=r"^x is not valid JSON \(nested deeper than"):
        parse_json("{\"a\": " * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1), "x")
    with pytest.raises(InputError, match=r"^x is not valid JSON \(not UTF-8 at byte 1\)"):
        parse_json(b'"\xff"', "x")


# ----------------------------------------------------------------------------------- what -o may replace


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind, made", [
    ("a FIFO (named pipe)", lambda folder: _fifo(folder / "pipe")),
    ("a folder", lambda folder: (folder / "dir").mkdir() or folder / "dir"),
    ("a FIFO (named pipe)", lambda folder: (folder / "link").symlink_to(_fifo(folder / "pipe")) or folder / "link"),
])
def test_the_atomic_writer_refuses_what_is_not_a_regular_file_and_leaves_it(tmp_path: Path, kind: str,
                                                                              made) -> None:
    target = made(tmp_path)
    mode = os.lstat(target).st_mode
    with pytest.raises(InputError, match=f"^{re.escape(f'{target} is {kind}, not a regular file: cannot write')}"):
        write_atomically(target, "<html>", what="the report")
    assert os.lstat(target).st_mode == mode
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")) == []


def test_a_regular_file_and_a_link_to_one_are_still_replaced(tmp_path: Path) -> None:
    (tmp_path / "old.html").write_text("old", encoding="utf-8")
    (tmp_path / "link.html").symlink_to(tmp_path / "old.html")
    for name in ("old.html", "link.html"):
        write_atomically(tmp_path / name, "new", what="the report")
        assert stat.S_ISREG(os.lstat(tmp_path / name).st_mode) and (tmp_path / name).read_text() == "new"


def test_report_refuses_a_fifo_as_its_output_before_any_scoring(runner: CliRunner, tmp_path: Path) -> None:
    for name, texts in (("a.txt", TEXTS), ("b.txt", TEXTS[::-1])):
        (tmp_path / name).write_text("\n".join(texts) + "\n", encoding="utf-8")
    pipe = _fifo(tmp_path / "report.html")
    done = invoke(runner, ["report", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "-o", str(pipe)])
    assert_one_line_error(done, f"{pipe} is a FIFO (named pipe), not a regular file")
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
