"""The HTML report: its data, a page with nothing remote, and the ``report`` command's one-line errors."""

from __future__ import annotations

import json
import re

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.analysis.mechanisms import mechanism_label
from coherence_metric.cli import cli
from coherence_metric.report import build_report
from coherence_metric.report.payload import spread_order

from ..cli_helpers import assert_one_line_error

ORDERED = [
    "The council met on Tuesday. It discussed the bus routes. After a long debate, it approved three new lines.",
    "The river rose in the night. By morning the fields were flooded. Farmers moved their animals to the hills.",
    "A storm reached the coast at dawn.",
]
SHUFFLED = [
    "After a long debate, it approved three new lines. The council met on Tuesday. It discussed the bus routes.",
    "Farmers moved their animals to the hills. The river rose in the night. By morning the fields were flooded.",
    "A storm reached the coast at dawn </script><script>alert(1)</script>.",
]
REMOTE = re.compile(r"(?i)(https?:|ftp:|//[a-z0-9.-]+\.[a-z]{2,}|\burl\s*\(|@import|<link\b|<iframe\b|<img\b|"
                    r"\bsrc\s*=|\bfetch\s*\(|XMLHttpRequest|WebSocket|EventSource|\bimport\s*\()")


@pytest.fixture(scope="module")
def scorer(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint), dtype="fp32")


@pytest.fixture(scope="module")
def report(scorer):
    return build_report(scorer, {"ordered": ORDERED, "shuffled": SHUFFLED}, labels=["a", "b", "c"], explain_rows=2,
                        bootstrap_resamples=200, randomization_trials=200, command="coherence-metric report x y")


def embedded_data(html):
    match = re.search(r"<script type='application/json' id='report-data'>(.*?)</script>", html, re.S)
    assert match, "no embedded JSON block"
    return json.loads(match.group(1))


def test_the_embedded_data_holds_every_score_and_text_and_the_most_different_inputs_shaded(report):
    html = report.to_html()
    data = embedded_data(html)
    comparison = report.comparison
    by_name = {system["name"]: system for system in data["systems"]}
    assert by_name["ordered"]["scores"] == comparison.systems["ordered"].scores
    assert data["texts"]["shuffled"] == SHUFFLED and data["labels"] == ["a", "b", "c"]
    differences = [abs(a - b) for a, b in zip(comparison.systems["ordered"].scores,
                                               comparison.systems["shuffled"].scores)]
    assert data["order"] == sorted(range(3), key=lambda index: -differences[index])
    assert sorted(data["explained"]) == sorted(str(index) for index in data["order"][:2])
    assert data["mechanism"] == "transition-cosine"
    assert data["signature"] == str(comparison.signature.with_transitions(mechanism_label("transition-cosine")))
    assert "|trans:transition-cosine:tm-minilm-2026.11@" in data["signature"]
    assert data["command"] == "coherence-metric report x y"
    assert [pair["a"] for pair in data["pairs"]] == [comparison.pairs[0].a]


def test_a_text_cannot_close_the_data_block_or_inject_markup(report):
    html = report.to_html()
    assert html.count("</script>") == 2  # the data block and the page script, nothing from the texts
    assert "<script>alert(1)" not in html
    assert embedded_data(html)["texts"]["shuffled"][2] == SHUFFLED[2]


def test_the_page_references_no_remote_resource(report):
    html = report.to_html()
    assert REMOTE.findall(html) == []
    assert "<style>" in html and "<svg" in html and html.count("<script") == 2


def test_the_remote_check_would_see_one():
    for bad in ["<link rel='stylesheet' href='https://cdn.example.com/x.css'>", "<script src='a.js'></script>",
                "body { background: url(x.png) }", "fetch('/data.json')", "<img src=x>"]:
        assert REMOTE.search(bad), bad


def test_to_html_without_texts_shows_scores_only(report):
    html = report.comparison.to_html()
    data = embedded_data(html)
    assert data["texts"] is None and data["explained"] == {} and data["mechanism"] is None
    assert "shuffled" in html and "Inputs, largest difference first" in html


def test_spread_order_puts_the_largest_difference_first():
    assert spread_order({"a": [0.0, 1.0, 0.5], "b": [0.1, -1.0, 0.5], "c": [0.0, 0.0, 0.6]}) == [1, 0, 2]


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_report_command_writes_a_page_naming_the_systems(runner, bert_checkpoint, tmp_path):
    a = write_lines(tmp_path / "a.txt", ORDERED)
    b = write_lines(tmp_path / "b.txt", SHUFFLED)
    target = tmp_path / "report.html"
    result = runner.invoke(cli, ["report", a, b, "-i", "lines", "-o", str(target), "--model", str(bert_checkpoint),
                                 "--bootstrap", "100", "--trials", "100"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {target} (3 inputs, 2 systems; ranking: ")
    data = embedded_data(target.read_text(encoding="utf-8"))
    assert {system["name"] for system in data["systems"]} == {"a.txt", "b.txt"}  # base names: unique here
    assert data["labels"] == ["1", "2", "3"] and data["command"].startswith("coherence-metric report ")


def test_mismatched_line_counts_are_one_line_exit_2(runner, bert_checkpoint, tmp_path):
    a = write_lines(tmp_path / "a.txt", ORDERED)
    b = write_lines(tmp_path / "b.txt", SHUFFLED[:2])
    result = runner.invoke(cli, ["report", a, b, "-o", str(tmp_path / "r.html"), "--model", str(bert_checkpoint)])
    assert_one_line_error(result, "different numbers of texts", f"{a} 3", f"{b} 2")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("target, fragment", [
    ("missing-folder/report.html", "does not exist"),
    (".", "is a directory"),
])
def test_an_output_path_that_cannot_be_written_is_one_line_exit_2(runner, tmp_path, target, fragment):
    a = write_lines(tmp_path / "a.txt", ORDERED)
    b = write_lines(tmp_path / "b.txt", SHUFFLED)
    path = str(tmp_path / target)
    result = runner.invoke(cli, ["report", a, b, "-o", path, "--model", "no-such-model-is-loaded"])
    assert_one_line_error(result, path, fragment)  # refused before the model is even looked up


def test_report_needs_one_text_per_line_formats(runner, tmp_path):
    a = write_lines(tmp_path / "a.txt", ORDERED)
    result = runner.invoke(cli, ["report", a, a, "-i", "doc", "-o", str(tmp_path / "r.html")])
    assert_one_line_error(result, "--input-format")
