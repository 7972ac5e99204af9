"""The command line over a batch of texts: an empty row stops the run unless --on-empty says otherwise, rows
named by an id (--id-field), a progress line in a job log, systems named by --label, a length warning, a note when
the interval and the p-value disagree, p-values at their floor, explain over many files, and the Python API's bf16
warning."""

from __future__ import annotations

import json
import math
import warnings

import pytest

from coherence_metric.report.html import _p_cell, _test_notes
from coherence_metric.scoring import runtime
from coherence_metric.statistics.p_values import disagreement_note

from ..cli_helpers import TEXTS, assert_one_line_error
from ..cli_helpers import invoke_as_main as _invoke


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _rows_with_empties():
    return [{"id": "q1", "text": TEXTS[0]}, {"id": "q2", "text": ""}, {"id": "q3", "text": None},
            {"id": "q4", "text": TEXTS[2]}]


def _tsv(stdout):
    return [line.split("\t") for line in stdout.splitlines()[1:]]


# --on-empty and --id-field: score

def test_an_empty_row_stops_the_run_in_one_line_naming_the_row_and_the_option(tmp_path, bert_checkpoint):
    path = _jsonl(tmp_path / "out.jsonl", _rows_with_empties())
    result = _invoke(["score", path, "-i", "jsonl", "--model", str(bert_checkpoint)])
    assert_one_line_error(result, f"{path} line 2", "field 'text' is empty", "--on-empty skip", "--on-empty nan")
    with_ids = _invoke(["score", path, "-i", "jsonl", "--id-field", "id", "--model", str(bert_checkpoint)])
    assert_one_line_error(with_ids, f"{path} line 2 (id q2)")


def test_on_empty_skip_scores_the_rest_as_a_file_without_them_and_says_how_many(tmp_path, bert_checkpoint):
    path = _jsonl(tmp_path / "out.jsonl", _rows_with_empties())
    clean = _jsonl(tmp_path / "clean.jsonl", [{"id": "q1", "text": TEXTS[0]}, {"id": "q4", "text": TEXTS[2]}])
    skipped = _invoke(["score", path, "-i", "jsonl", "--on-empty", "skip", "--id-field", "id", "-f", "tsv",
                       "--model", str(bert_checkpoint)])
    alone = _invoke(["score", clean, "-i", "jsonl", "--id-field", "id", "-f", "tsv", "--model", str(bert_checkpoint)])
    assert skipped.exit_code == 0, skipped.output
    assert skipped.stdout == alone.stdout and [row[0] for row in _tsv(skipped.stdout)] == ["q1", "q4"]
    assert "2 empty texts left out (--on-empty skip)" in skipped.stderr and "(id q2)" in skipped.stderr
    text = _invoke(["score", path, "-i", "jsonl", "--on-empty", "skip", "--model", str(bert_checkpoint)])
    assert "(mean of 2 texts; 2 empty texts left out;" in text.stdout
    assert _invoke(["score", path, "-i", "jsonl", "--on-empty", "skip", "--quiet", "--model",
                    str(bert_checkpoint)]).stderr == ""


def test_on_empty_nan_keeps_the_rows_with_nan_and_leaves_them_out_of_the_mean(tmp_path, bert_checkpoint):
    path = _jsonl(tmp_path / "out.jsonl", _rows_with_empties())
    args = [path, "-i", "jsonl", "--id-field", "id", "--model", str(bert_checkpoint)]
    tsv = _invoke(["score", *args, "--on-empty", "nan", "-f", "tsv"])
    assert tsv.exit_code == 0, tsv.output
    rows = _tsv(tsv.stdout)
    assert [row[0] for row in rows] == ["q1", "q2", "q3", "q4"] and [row[1] for row in rows][1:3] == ["nan", "nan"]
    nan_json = json.loads(_invoke(["score", *args, "--on-empty", "nan", "-f", "json"]).stdout)
    skip_json = json.loads(_invoke(["score", *args, "--on-empty", "skip", "-f", "json"]).stdout)
    assert nan_json["scores"][1:3] == [None, None] and nan_json["labels"] == ["q1", "q2", "q3", "q4"]
    assert nan_json["system_score"] == skip_json["system_score"]
    assert [entry["label"] for entry in nan_json["empty"]] == ["q2", "q3"]
    assert "is null" in nan_json["empty"][1]["reason"]


def test_every_text_empty_is_one_line_and_a_wrong_type_still_stops(tmp_path, bert_checkpoint):
    empty = _jsonl(tmp_path / "empty.jsonl", [{"text": ""}, {"text": None}])
    assert_one_line_error(_invoke(["score", empty, "-i", "jsonl", "--on-empty", "skip"]), "every text is empty")
    number = _jsonl(tmp_path / "number.jsonl", [{"text": TEXTS[0]}, {"text": 3}])
    assert_one_line_error(_invoke(["score", number, "-i", "jsonl", "--on-empty", "skip"]),
                          f"{number} line 2", "must be a string")


def test_id_field_errors_name_the_line(tmp_path, bert_checkpoint):
    missing = _jsonl(tmp_path / "missing.jsonl", [{"id": "a", "text": TEXTS[0]}, {"text": TEXTS[1]}])
    assert_one_line_error(_invoke(["score", missing, "-i", "jsonl", "--id-field", "id"]),
                          f"{missing} line 2 has no field 'id'")
    twice = _jsonl(tmp_path / "twice.jsonl", [{"id": 7, "text": TEXTS[0]}, {"id": 7, "text": TEXTS[1]}])
    assert_one_line_error(_invoke(["score", twice, "-i", "jsonl", "--id-field", "id"]), "lines 1 and 2", "'7'")
    lines = tmp_path / "lines.txt"
    lines.write_text(TEXTS[0] + "\n", encoding="utf-8")
    assert_one_line_error(_invoke(["score", str(lines), "-i", "lines", "--id-field", "id"]), "pass -i jsonl")


def test_the_scorers_errors_name_the_row_by_its_id(tmp_path, bert_checkpoint):
    path = _jsonl(tmp_path / "out.jsonl", [{"id": "short", "text": TEXTS[0]},
                                           {"id": "long-one", "text": " ".join(TEXTS * 4)}])
    result = _invoke(["score", path, "-i", "jsonl", "--id-field", "id", "--truncation", "error", "--max-length",
                      "16", "--model", str(bert_checkpoint)])
    assert_one_line_error(result, "long-one")


# --on-empty and --id-field: paired compare

def _paired_files(tmp_path, second_empty_line=3):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    lines_b = [" ".join(reversed(text.split(". "))) for text in TEXTS]
    lines_b[second_empty_line - 1] = ""
    b.write_text("\n".join(lines_b) + "\n", encoding="utf-8")
    return str(a), str(b)


def test_paired_compare_leaves_out_an_input_with_an_empty_text_for_both_systems(tmp_path, bert_checkpoint):
    a, b = _paired_files(tmp_path)
    base = ["compare", a, b, "-i", "lines", "--model", str(bert_checkpoint), "--bootstrap", "100", "--trials", "100"]
    assert_one_line_error(_invoke(base), f"{b} line 3 is empty", "--on-empty")
    skipped = _invoke([*base, "--on-empty", "skip"])
    assert skipped.exit_code == 0, skipped.output
    assert "pairs: 3 " in skipped.stdout and "left out: 1 of 4 inputs" in skipped.stdout
    assert "1 input with an empty text left out" in skipped.stderr
    skip_rows = _tsv(_invoke([*base, "--on-empty", "skip", "-f", "tsv"]).stdout)
    nan_rows = _tsv(_invoke([*base, "--on-empty", "nan", "-f", "tsv"]).stdout)
    assert len(skip_rows) == 6 and len(nan_rows) == 8
    assert [row[2] for row in nan_rows if row[1].endswith(":3")] == ["nan", "nan"]  # both sides of input 3
    assert [row for row in nan_rows if not row[1].endswith(":3")] == skip_rows
    data = json.loads(_invoke([*base, "--on-empty", "nan", "-f", "json"]).stdout)
    assert data["n_pairs"] == 3 and data["scores_b"][2] is None and data["left_out"][0]["b"] == f"{b}:3"


def test_paired_rows_must_carry_the_same_id(tmp_path, bert_checkpoint):
    a = _jsonl(tmp_path / "a.jsonl", [{"id": "x", "text": TEXTS[0]}, {"id": "y", "text": TEXTS[1]}])
    b = _jsonl(tmp_path / "b.jsonl", [{"id": "y", "text": TEXTS[1]}, {"id": "x", "text": TEXTS[0]}])
    assert_one_line_error(_invoke(["compare", a, b, "-i", "jsonl", "--id-field", "id"]),
                          f"{a} line 1 has id 'x' but {b} line 1 has 'y'")


# progress lines without a terminal

def test_a_run_without_a_terminal_prints_a_progress_line_now_and_then(tmp_path, bert_checkpoint, monkeypatch):
    from coherence_metric.scoring import progress

    path = tmp_path / "many.txt"
    path.write_text("\n".join(TEXTS * 2) + "\n", encoding="utf-8")
    args = ["score", str(path), "-i", "lines", "--batch-size", "2", "--model", str(bert_checkpoint)]
    assert "coherence: documents" not in _invoke(args).stderr  # a short run stays silent
    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)  # every batch is "30 s later"
    lines = [line for line in _invoke(args).stderr.splitlines() if line.startswith("coherence: documents: ")]
    total = int(lines[-1].split("/")[1].split()[0])
    assert total > 1 and len(lines) == total  # one a batch (at most every 30 s), the last when the pass ends
    assert lines[0].startswith(f"coherence: documents: 1/{total} batches (") and lines[-1].startswith(
        f"coherence: documents: {total}/{total} batches (100%), ") and lines[-1].endswith(" s")
    assert "coherence: documents" not in _invoke([*args, "--quiet"]).stderr


# --label, length warning, interval and p-value

def test_label_names_the_systems_in_input_order(tmp_path, bert_checkpoint):
    a, b = _paired_files(tmp_path, second_empty_line=1)
    (tmp_path / "b.txt").write_text("\n".join(TEXTS[::-1]) + "\n", encoding="utf-8")
    args = ["compare", a, b, "-i", "lines", "--model", str(bert_checkpoint), "--bootstrap", "100", "--trials", "100"]
    result = _invoke([*args, "--label", "base", "--label", "tuned"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("A  base  system score ") and "\nB  tuned  system score " in result.stdout
    assert {row[0] for row in _tsv(_invoke([*args, "--label", "base", "--label", "tuned", "-f", "tsv"]).stdout)} == {
        "base", "tuned"}
    assert_one_line_error(_invoke([*args, "--label", "base"]), "1 --label for 2 files")
    assert_one_line_error(_invoke([*args, "--label", "x", "--label", "x"]), "--label 'x' is given twice")


def test_report_names_systems_by_label_or_by_unique_base_name(tmp_path, bert_checkpoint):
    from ..report.test_report import embedded_data

    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    paths = []
    for folder, texts in (("one", TEXTS), ("two", TEXTS[::-1])):
        path = tmp_path / folder / "out.txt"
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        paths.append(str(path))
    other = tmp_path / "two" / "other.txt"
    other.write_text("\n".join(TEXTS[1:] + TEXTS[:1]) + "\n", encoding="utf-8")
    common = ["--explain-rows", "0", "--model", str(bert_checkpoint), "--bootstrap", "100", "--trials", "100"]

    def names(*args):
        target = tmp_path / "r.html"
        result = _invoke(["report", *args, "-o", str(target), *common])
        assert result.exit_code == 0, result.output
        return {system["name"] for system in embedded_data(target.read_text(encoding="utf-8"))["systems"]}

    assert names(paths[0], str(other)) == {"out.txt", "other.txt"}
    assert names(*paths) == set(paths)  # same base name twice: the paths
    assert names(*paths, "--label", "base", "--label", "tuned") == {"base", "tuned"}


def test_systems_of_different_lengths_get_a_one_line_warning(tmp_path, bert_checkpoint):
    a, b = _paired_files(tmp_path, second_empty_line=1)
    args = ["--model", str(bert_checkpoint), "--bootstrap", "100", "--trials", "100", "-i", "lines"]
    (tmp_path / "b.txt").write_text("\n".join(TEXTS[::-1]) + "\n", encoding="utf-8")
    assert "mean lengths" not in _invoke(["compare", a, b, *args]).stderr
    (tmp_path / "b.txt").write_text("\n".join(text + " " + text for text in TEXTS) + "\n", encoding="utf-8")
    warned = [line for line in _invoke(["compare", a, b, *args]).stderr.splitlines() if "mean lengths" in line]
    assert len(warned) == 1 and "differ by 100%" in warned[0] and "length-matched pairs" in warned[0]
    assert "word count" in warned[0]
    assert _invoke(["compare", a, b, *args, "--quiet"]).stderr == ""


@pytest.mark.parametrize("interval, p_boot, p_rand, fragment", [
    ((0.01, 0.40), 0.051, 0.04, "excludes 0 but the paired bootstrap p = 0.0510 is not below 0.05"),
    ((-0.01, 0.40), 0.04, 0.2, "includes 0 but the paired bootstrap p = 0.0400 is below 0.05"),
    ((0.15, 2.1), None, 0.063, "excludes 0 but the randomization p = 0.0630"),
])
def test_an_interval_and_a_p_value_that_disagree_get_a_note_saying_why(interval, p_boot, p_rand, fragment):
    note = disagreement_note(interval, p_boot, p_rand, 0.95, 1000, 10000)
    assert note is not None and fragment in note and "different tests" in note
    assert disagreement_note((0.1, 0.4), 0.001, 0.0001, 0.95, 1000, 10000) is None
    assert disagreement_note((-0.1, 0.4), 0.30, 0.3, 0.95, 1000, 10000) is None


def test_the_report_writes_a_p_value_at_its_floor_as_a_bound():
    assert _p_cell(1 / 1001, 1000) == "&lt;0.001" and _p_cell(0.25, 1000) == "0.2500" and _p_cell(None, 1000) == (
        "&ndash;")
    payload = {"bootstrap_resamples": 1000, "randomization_trials": 10000, "confidence": 0.95,
               "pairs": [{"a": "x", "b": "y", "mean_difference_interval": [-0.1, 0.5], "p_value_bootstrap": 1 / 1001,
                          "p_value_randomization": 0.3}]}
    notes = _test_notes(payload)
    assert notes[0].startswith("<: at the floor of the test") and notes[1].startswith("note: x vs y: ")


# explain over many files

def test_explain_takes_many_files_as_score_does(tmp_path, bert_checkpoint):
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text(TEXTS[0], encoding="utf-8")
    second.write_text(TEXTS[1] + " " + TEXTS[2], encoding="utf-8")
    result = _invoke(["explain", str(first), str(second), "-f", "json", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    assert [entry["label"] for entry in json.loads(result.stdout)["texts"]] == [str(first), str(second)]
    assert_one_line_error(_invoke(["explain", str(first), str(tmp_path / "nothere.txt")]), "nothere.txt: no such file")


# the Python API's bf16 warning

def test_the_api_warns_once_per_process_when_auto_chose_bf16(bert_checkpoint, monkeypatch):
    from coherence_metric import CoherenceScorer

    monkeypatch.delenv("COHERENCE_METRIC_DTYPE", raising=False)
    monkeypatch.setattr(runtime, "cpu_prefers_bf16", lambda: True)  # this CPU, as one with AMX-BF16
    monkeypatch.setattr(runtime, "_warned_auto_bf16", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scorers = [CoherenceScorer(str(bert_checkpoint), device="cpu") for _ in range(2)]
        CoherenceScorer(str(bert_checkpoint), device="cpu", dtype="bf16")
    said = [w for w in caught if issubclass(w.category, runtime.AutoBf16Warning)]
    assert [scorer.dtype for scorer in scorers] == ["bf16", "bf16"]
    assert len(said) == 1 and "dtype='fp32'" in str(said[0].message) and said[0].filename == __file__
    monkeypatch.setattr(runtime, "_warned_auto_bf16", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CoherenceScorer(str(bert_checkpoint), device="cpu", dtype="fp32")
        monkeypatch.setenv("COHERENCE_METRIC_DTYPE", "bf16")
        CoherenceScorer(str(bert_checkpoint), device="cpu")
    assert not [w for w in caught if issubclass(w.category, runtime.AutoBf16Warning)]


def test_the_cli_says_bf16_once_in_its_own_words(tmp_path, bert_checkpoint, monkeypatch):
    monkeypatch.delenv("COHERENCE_METRIC_DTYPE", raising=False)
    monkeypatch.setattr(runtime, "cpu_prefers_bf16", lambda: True)
    monkeypatch.setattr(runtime, "_warned_auto_bf16", False)
    path = tmp_path / "t.txt"
    path.write_text(TEXTS[0], encoding="utf-8")
    result = _invoke(["score", str(path), "--model", str(bert_checkpoint), "--device", "cpu"])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "bf16" in line]
    assert len(warned) == 1 and "--dtype fp32" in warned[0] and math.isfinite(float(result.stdout.split()[0]))


def test_report_leaves_out_an_input_with_an_empty_text_only_when_asked(tmp_path, bert_checkpoint):
    a, b = _paired_files(tmp_path)
    args = ["report", a, b, "-o", str(tmp_path / "r.html"), "--explain-rows", "0", "--model", str(bert_checkpoint),
            "--bootstrap", "100", "--trials", "100"]
    refused = _invoke(args)
    assert_one_line_error(refused, f"{b} line 3 is empty", "--on-empty skip")
    assert "nan" not in refused.stderr and not (tmp_path / "r.html").exists()
    written = _invoke([*args, "--on-empty", "skip"])
    assert written.exit_code == 0, written.output
    assert "(3 inputs; 1 left out, with an empty text, 2 systems;" in written.stdout


def test_json_says_when_a_p_value_is_at_its_floor(tmp_path, bert_checkpoint):
    from dataclasses import replace

    from coherence_metric import CoherenceScorer

    result = CoherenceScorer(str(bert_checkpoint)).compare(TEXTS * 3, [text.upper() for text in TEXTS * 3],
                                                           bootstrap_resamples=1000, randomization_trials=1000)
    assert "p_value_bootstrap_at_floor" not in replace(result, p_value_bootstrap=0.5).to_dict()
    data = replace(result, p_value_bootstrap=1 / 1001, p_value_randomization=0.5).to_dict()
    assert data["p_value_bootstrap_at_floor"].startswith("at the floor of the test, 1/(N+1) = 0.000999001 for N = 1000")
    assert "p_value_randomization_at_floor" not in data


def test_three_systems_leave_out_the_same_inputs_and_group_by_takes_no_label(tmp_path, bert_checkpoint):
    a, b = _paired_files(tmp_path, second_empty_line=2)
    c = tmp_path / "c.txt"
    c.write_text("\n".join(TEXTS[::-1]) + "\n", encoding="utf-8")
    args = ["compare", a, b, str(c), "-i", "lines", "--model", str(bert_checkpoint), "--bootstrap", "100",
            "--trials", "100", "--on-empty", "nan"]
    text = _invoke(args)
    assert text.exit_code == 0, text.output
    assert "systems: 3  inputs: 3 " in text.stdout and "left out: 1 of 4 inputs" in text.stdout
    data = json.loads(_invoke([*args, "-f", "json"]).stdout)
    assert [data["systems"][name]["scores"][1] for name in (a, b, str(c))] == [None, None, None]
    assert data["left_out"] == [{"label": f"{a}:2", "reason": f"{b} line 2 is empty: with --input-format lines every "
                                                              "line is one text"}]
    grouped = _jsonl(tmp_path / "g.jsonl", [{"system": s, "text": t} for s in ("x", "y") for t in TEXTS])
    assert_one_line_error(_invoke(["compare", grouped, "--group-by", "system", "--label", "a", "--label", "b"]),
                          "--label names the systems of separate files")
