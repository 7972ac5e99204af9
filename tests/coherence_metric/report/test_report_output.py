"""``report -o``: never over one of its own inputs, and never a half-written page in place of the old one.

``report a.txt b.txt -i lines -o a.txt`` used to replace the input a.txt with HTML; a disk that filled up during
the write left a truncated page where the previous report had been.
"""

from __future__ import annotations

import errno
import os
import pathlib
import stat

import pytest

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.report import build_report

from ..cli_helpers import assert_one_line_error, invoke

ORDERED = ["The council met on Tuesday. It discussed the bus routes. It approved three new lines.",
           "The river rose in the night. By morning the fields were flooded.",
           "A storm reached the coast at dawn. Boats stayed in the harbour.",
           "The bakery opened early. Its first loaves sold out by eight.",
           "She trained for a year. In May she ran her first marathon.",
           "The museum closed for repairs. It reopened with a new wing.",
           "The team lost the first game. They won the next three.",
           "Snow fell all night. The schools stayed closed on Monday.",
           "He planted tomatoes in April. By August the vines were heavy.",
           "The bridge was built in 1890. It still carries the main road."]
SHUFFLED = [" ".join(reversed(text.split(". "))) for text in ORDERED]
OLD_PAGE = "<!doctype html><title>last week's report</title>\n"


def _write_lines(path: pathlib.Path, texts) -> pathlib.Path:
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def report(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    return build_report(scorer, {"ordered": ORDERED, "shuffled": SHUFFLED}, explain_rows=1, bootstrap_resamples=100,
                        randomization_trials=100)


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink", "hardlink"])
def test_an_output_that_is_one_of_the_inputs_is_refused_in_one_line(runner, tmp_path, monkeypatch, spelling):
    a = _write_lines(tmp_path / "a.txt", ORDERED)
    b = _write_lines(tmp_path / "b.txt", SHUFFLED)
    (tmp_path / "sub").mkdir()
    if spelling == "same":
        output = str(a)
    elif spelling == "dotted":
        monkeypatch.chdir(tmp_path / "sub")
        output = "../sub/../b.txt"
    elif spelling == "symlink":
        output = str(tmp_path / "out.html")
        os.symlink(a, output)
    else:
        output = str(tmp_path / "out.html")
        os.link(b, output)
    before = {path: path.read_bytes() for path in (a, b)}
    result = invoke(runner, ["report", str(a), str(b), "-i", "lines", "-o", output,
                             "--model", "no-such-model-is-loaded"])
    assert_one_line_error(result, output, "is one of the report's inputs")  # refused before the model is looked up
    assert {path: path.read_bytes() for path in (a, b)} == before


def test_a_write_that_fails_midway_leaves_the_old_report_intact(report, tmp_path, monkeypatch):
    """The disk fills up after half the page is written: the old report is still there, whole, and no partial
    file is left beside it; the error is one line naming the path."""
    target = tmp_path / "report.html"
    target.write_text(OLD_PAGE, encoding="utf-8")
    real_write_text = pathlib.Path.write_text

    def write_half_then_fail(self, data, *args, **kwargs):
        real_write_text(self, data[:len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pathlib.Path, "write_text", write_half_then_fail)
    with pytest.raises(InputError) as raised:
        report.write(target)
    message = str(raised.value)
    assert str(target) in message and "No space left on device" in message and "\n" not in message
    assert target.read_text(encoding="utf-8") == OLD_PAGE
    assert sorted(os.listdir(tmp_path)) == ["report.html"]


def test_a_rewrite_replaces_the_whole_page_and_keeps_the_file_mode(report, tmp_path):
    target = tmp_path / "report.html"
    target.write_text(OLD_PAGE, encoding="utf-8")
    target.chmod(0o640)
    assert report.write(target) == target
    assert target.read_text(encoding="utf-8") == report.to_html()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["report.html"]


def test_a_report_reads_every_system_from_one_jsonl_with_group_by(runner, bert_checkpoint, tmp_path):
    """Systems named by a field of one JSONL, as compare --group-by reads them; the page and the
    summary line name the systems by that field, not by file paths."""
    import json

    rows = [{"system": name, "id": f"q{index}", "text": text} for name, texts in (("ordered", ORDERED),
                                                                                   ("shuffled", SHUFFLED))
            for index, text in enumerate(texts)]
    source = tmp_path / "all.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    output = tmp_path / "report.html"
    result = invoke(runner, ["report", str(source), "--group-by", "system", "-i", "jsonl", "--id-field", "id",
                             "-o", str(output), "--model", str(bert_checkpoint), "--dtype", "fp32",
                             "--bootstrap", "100", "--trials", "100"])
    assert result.exit_code == 0, result.output
    ranking = result.stdout.split("ranking: ", 1)[1].split(")", 1)[0].split(", ")
    assert f"({len(ORDERED)} inputs, 2 systems; ranking: " in result.stdout and sorted(ranking) == ["ordered",
                                                                                                   "shuffled"]
    assert '"ordered"' in output.read_text(encoding="utf-8")


@pytest.mark.parametrize("arguments, message", [
    (["one.txt"], "a report compares two or more systems: give one file per system, or one JSONL file with "
                  "--group-by FIELD"),
    (["one.jsonl", "two.jsonl", "--group-by", "system"], "--group-by reads every system from one JSONL file, got 2"),
    (["one.jsonl", "--group-by", "system", "--label", "A"], "--label names the systems of separate files"),
    (["one.jsonl", "--group-by", "system", "-i", "lines"], "--group-by needs JSONL input"),
])
def test_report_inputs_that_name_no_systems_are_one_line_errors(runner, tmp_path, monkeypatch, arguments, message):
    monkeypatch.chdir(tmp_path)
    for name in ("one.txt", "one.jsonl", "two.jsonl"):
        (tmp_path / name).write_text('{"system": "a", "text": "One. Two."}\n{"system": "b", "text": "Two. One."}\n')
    result = invoke(runner, ["report", *arguments, "-o", "out.html", "--model", "no-such-model-is-loaded"])
    assert_one_line_error(result, message)
    assert not (tmp_path / "out.html").exists()
