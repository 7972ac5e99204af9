"""Score once, render many: ``compare --from-scores`` and ``report --from-scores`` render every table and the page
from saved ``score -f json`` files or a saved comparison, the same bytes as the direct run, without a model; and
``--also FORMAT=FILE`` writes several formats from one scoring. Saved files that cannot be compared are refused in
one line."""

from __future__ import annotations

import json

import pytest

from ..cli_helpers import TEXTS, assert_one_line_error, invoke

FORMATS = ["text", "json", "tsv", "markdown", "latex"]
STATS = ["--bootstrap", "100", "--trials", "100"]
#: Short outputs: beside TEXTS they make a length gap, which the tables note.
TERSE = ["The council met.", "Rain fell.", "Maria found a bird.", "The bridge closed."]


def _lines_file(path, texts):
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def systems(tmp_path):
    """Three systems' outputs on the same four inputs, one file each."""
    return [_lines_file(tmp_path / "a.txt", TEXTS), _lines_file(tmp_path / "b.txt", TEXTS[::-1]),
            _lines_file(tmp_path / "c.txt", TERSE)]


@pytest.fixture
def saved(runner, bert_checkpoint, systems, tmp_path):
    """Each system's ``score -f json`` file."""
    paths = []
    for source in systems:
        target = tmp_path / (source.rsplit("/", 1)[1].replace(".txt", ".json"))
        result = invoke(runner, ["score", source, "-i", "lines", "-f", "json", "-o", str(target),
                                 "--model", str(bert_checkpoint)])
        assert result.exit_code == 0, result.output
        paths.append(str(target))
    return paths


@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize("output_format", FORMATS)
def test_saved_scores_render_the_bytes_of_the_direct_run(runner, bert_checkpoint, systems, saved, count,
                                                         output_format):
    direct = invoke(runner, ["compare", *systems[:count], "-i", "lines", "-f", output_format, *STATS,
                             "--model", str(bert_checkpoint)])
    again = invoke(runner, ["compare", "--from-scores", *saved[:count], "-f", output_format, *STATS])
    assert direct.exit_code == 0 and again.exit_code == 0, again.output
    assert again.stdout_bytes == direct.stdout_bytes
    if output_format == "tsv":
        assert again.stderr.splitlines()[-1] == direct.stderr.splitlines()[-1]  # the signature


def test_a_saved_comparison_renders_again_with_its_notes(runner, bert_checkpoint, systems, tmp_path):
    saved = tmp_path / "comparison.json"
    args = ["compare", *systems, "-i", "lines", *STATS, "--model", str(bert_checkpoint)]
    assert invoke(runner, [*args, "-f", "json", "-o", str(saved)]).exit_code == 0
    assert "mean lengths differ by" in json.loads(saved.read_text(encoding="utf-8"))["notes"][0]
    for output_format in FORMATS:
        direct = invoke(runner, [*args, "-f", output_format])
        again = invoke(runner, ["compare", "--from-scores", str(saved), "-f", output_format])  # its own settings
        assert again.exit_code == 0 and again.stdout_bytes == direct.stdout_bytes, output_format
    assert "mean lengths differ by" in invoke(runner, ["compare", "--from-scores", str(saved), "-f", "latex"]).stdout


def test_a_saved_two_system_comparison_renders_its_tables(runner, bert_checkpoint, systems, tmp_path):
    saved = tmp_path / "pair.json"
    args = ["compare", systems[0], systems[2], "-i", "lines", *STATS, "--model", str(bert_checkpoint)]
    assert invoke(runner, [*args, "-f", "json", "-o", str(saved)]).exit_code == 0
    for output_format in FORMATS:
        direct = invoke(runner, [*args, "-f", output_format])
        again = invoke(runner, ["compare", "--from-scores", str(saved), "-f", output_format])
        assert again.exit_code == 0 and again.stdout_bytes == direct.stdout_bytes, output_format


def test_also_writes_every_format_from_one_scoring(runner, bert_checkpoint, systems, tmp_path):
    args = ["compare", *systems, "-i", "lines", *STATS, "--model", str(bert_checkpoint)]
    targets = {output_format: tmp_path / f"comparison.{output_format}" for output_format in FORMATS}
    result = invoke(runner, [*args, "-f", "json", "-o", str(targets["json"]),
                             *(f"--also={fmt}={path}" for fmt, path in targets.items() if fmt != "json")])
    assert result.exit_code == 0 and result.stdout == "", result.output
    assert result.stderr.splitlines()[-1].startswith("signature: ")  # TSV's signature, once, on stderr
    for output_format, path in targets.items():
        assert path.read_bytes() == invoke(runner, [*args, "-f", output_format]).stdout_bytes, output_format


def test_score_also_writes_its_formats(runner, bert_checkpoint, systems, tmp_path):
    args = ["score", systems[0], "-i", "lines", "--model", str(bert_checkpoint)]
    table = tmp_path / "scores.md"
    printed = invoke(runner, [*args, "--also", f"markdown={table}"])
    assert printed.exit_code == 0 and printed.stdout == invoke(runner, args).stdout
    assert table.read_bytes() == invoke(runner, [*args, "-f", "markdown"]).stdout_bytes


@pytest.mark.parametrize("also, fragments", [
    (["html=x.html"], ["--also html=x.html", "'html' is not a format here"]),
    (["latex"], ["--also latex: give FORMAT=FILE"]),
    (["latex=same.tex", "markdown=same.tex"], ["same.tex is named twice"]),
    (["latex=missing/t.tex"], ["cannot write the comparison (latex): folder", "does not exist"]),
])
def test_bad_also_is_refused_before_any_model_loads(runner, systems, tmp_path, monkeypatch, also, fragments):
    monkeypatch.chdir(tmp_path)
    args = ["compare", *systems[:2], "-i", "lines", "--model", "no-such-org/no-such-checkpoint"]
    assert_one_line_error(invoke(runner, [*args, *(f"--also={value}" for value in also)]), *fragments)


@pytest.mark.parametrize("target, fragments", [
    ("input", ["is one of the inputs", "write the comparison to another file"]),
    ("folder", ["is a folder: -o names the file to write the comparison to"]),
    ("missing/c.json", ["cannot write the comparison: folder", "does not exist"]),
])
def test_compare_output_is_refused_before_any_model_loads(runner, systems, tmp_path, target, fragments):
    (tmp_path / "folder").mkdir()
    path = systems[0] if target == "input" else str(tmp_path / target)
    result = invoke(runner, ["compare", *systems[:2], "-i", "lines", "-o", path,
                             "--model", "no-such-org/no-such-checkpoint"])
    assert_one_line_error(result, *fragments)
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "\n".join(TEXTS) + "\n"


def _edited(path, tmp_path, name, edit):
    data = json.loads(open(path, encoding="utf-8").read())
    edit(data)
    target = tmp_path / name
    target.write_text(json.dumps(data), encoding="utf-8")
    return str(target)


def test_refuses_scores_made_with_other_settings(runner, saved, tmp_path):
    def to_bf16(data):
        data["signature"] = data["signature"].replace("dtype:fp32", "dtype:bf16")

    other = _edited(saved[1], tmp_path, "bf16.json", to_bf16)
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0], other]),
                          "were scored with different settings (dtype:fp32 vs dtype:bf16)")

    def more_texts_cut(data):  # the counts of one result are no setting
        data["signature"] = data["signature"].replace("ntrunc:0", "ntrunc:1")
        data["n_truncated"] = 1

    assert invoke(runner, ["compare", "--from-scores", saved[0],
                           _edited(saved[1], tmp_path, "cut.json", more_texts_cut)]).exit_code == 0


def test_refuses_different_numbers_of_texts_and_ids_out_of_order(runner, bert_checkpoint, saved, tmp_path):
    def drop_last(data):
        for key in ("scores", "labels", "words"):
            data[key] = data[key][:-1]

    short = _edited(saved[1], tmp_path, "short.json", drop_last)
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0], short]),
                          f"{saved[0]} has 4 texts and {short} has 3")
    rows = [{"id": f"q{index}", "text": text} for index, text in enumerate(TEXTS)]
    files = []
    for name, ordered in (("a.jsonl", rows), ("b.jsonl", rows[1::-1] + rows[2:])):
        (tmp_path / name).write_text("".join(json.dumps(row) + "\n" for row in ordered), encoding="utf-8")
        target = tmp_path / f"{name}.json"
        assert invoke(runner, ["score", str(tmp_path / name), "-i", "jsonl", "--id-field", "id", "-f", "json",
                               "-o", str(target), "--model", str(bert_checkpoint)]).exit_code == 0
        files.append(str(target))
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", *files]),
                          f"{files[0]} row 1 has id 'q0' but {files[1]} row 1 has 'q1'")
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", files[0], saved[1]]),
                          "labels its rows by --id-field 'id'", "by FILE:LINE")


def test_refuses_what_is_no_saved_result(runner, saved, systems, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"rows": []}', encoding="utf-8")
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0], str(other)]),
                          f"{other} is not a saved result")
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0], systems[1]]),
                          f"{systems[1]} is not valid JSON")
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0],
                                          _edited(saved[1], tmp_path, "bad.json",
                                                  lambda data: data.update(signature="model:x"))]),
                          "bad.json: ", "signature")
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0]]), "two or more score files")
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", *saved[:2], "-i", "lines", "--model", "x"]),
                          "--input-format, --model: compare --from-scores reads scores saved already")


def test_empty_texts_in_saved_scores(runner, bert_checkpoint, saved, tmp_path):
    source = _lines_file(tmp_path / "gappy.txt", [TEXTS[0], "", TEXTS[2], TEXTS[3]])
    for on_empty in ("skip", "nan"):
        target = tmp_path / f"gappy-{on_empty}.json"
        assert invoke(runner, ["score", source, "-i", "lines", "--on-empty", on_empty, "-f", "json", "-o",
                               str(target), "--model", str(bert_checkpoint)]).exit_code == 0
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0], str(tmp_path / "gappy-skip.json")]),
                          "empty texts were left out (score --on-empty skip)", "--on-empty nan")
    gappy = str(tmp_path / "gappy-nan.json")
    assert_one_line_error(invoke(runner, ["compare", "--from-scores", saved[0], gappy]),
                          f"{source}:2 has no score", "--on-empty skip")
    with pytest.warns(UserWarning, match="1 input with an empty text left out"):
        result = invoke(runner, ["compare", "--from-scores", saved[0], gappy, "--on-empty", "skip", "-f", "tsv"])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 1 + 2 * 3


def test_report_from_saved_scores_shows_scores_and_texts_when_kept(runner, bert_checkpoint, systems, saved,
                                                                    tmp_path):
    from ..report.test_report import embedded_data

    page = tmp_path / "report.html"
    table = tmp_path / "table.md"
    result = invoke(runner, ["report", "--from-scores", *saved, "-o", str(page), "--also", f"markdown={table}",
                             *STATS])
    assert result.exit_code == 0 and result.stdout.startswith(f"wrote {page} (4 inputs, 3 systems"), result.output
    data = embedded_data(page.read_text(encoding="utf-8"))
    assert data["texts"] is None and data["explained"] == {} and data["labels"] == ["1", "2", "3", "4"]
    assert {system["name"] for system in data["systems"]} == {"a.txt", "b.txt", "c.txt"}
    assert "mean lengths differ by" in data["notes"][0]
    direct = invoke(runner, ["compare", *systems, "-i", "lines", "-f", "markdown", *STATS,
                             "--label", "a.txt", "--label", "b.txt", "--label", "c.txt",
                             "--model", str(bert_checkpoint)])
    assert table.read_bytes() == direct.stdout_bytes
    kept = []
    for source in systems[:2]:
        target = tmp_path / (source.rsplit("/", 1)[1] + ".texts.json")
        assert invoke(runner, ["score", source, "-i", "lines", "-f", "json", "--with-texts", "-o", str(target),
                               "--model", str(bert_checkpoint)]).exit_code == 0
        kept.append(str(target))
    assert invoke(runner, ["report", "--from-scores", *kept, "-o", str(page)]).exit_code == 0
    assert embedded_data(page.read_text(encoding="utf-8"))["texts"]["a.txt"] == TEXTS


def test_the_tsv_header_names_the_id_field(runner, bert_checkpoint, tmp_path):
    paths = []
    for name, texts in (("a.jsonl", TEXTS), ("b.jsonl", TEXTS[::-1])):
        rows = [{"doc_id": f"q{index}", "text": text} for index, text in enumerate(texts)]
        (tmp_path / name).write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        paths.append(str(tmp_path / name))
    ids = ["-i", "jsonl", "--id-field", "doc_id", "--model", str(bert_checkpoint)]
    scored = invoke(runner, ["score", paths[0], *ids, "-f", "tsv"])
    assert scored.stdout.splitlines()[0] == "doc_id\tscore" and scored.stdout.splitlines()[1].startswith("q0\t")
    compared = invoke(runner, ["compare", *paths, *ids, "-f", "tsv", *STATS])
    assert compared.stdout.splitlines()[0] == "system\tdoc_id\tscore"
    saved = tmp_path / "comparison.json"
    assert invoke(runner, ["compare", *paths, *ids, "-f", "json", "-o", str(saved), *STATS]).exit_code == 0
    assert invoke(runner, ["compare", "--from-scores", str(saved), "-f", "tsv"]).stdout == compared.stdout
    plain = invoke(runner, ["score", paths[0], "-i", "jsonl", "-f", "tsv", "--model", str(bert_checkpoint)])
    assert plain.stdout.startswith("label\tscore\n")
