"""Several suite reports laid side by side: one column per run's model, the baselines once, same pairs only."""

from __future__ import annotations

import json

import pytest

from coherence_metric.benchmarks.harness.settings import RunSettings
from coherence_metric.benchmarks.paper.runner import run_suite
from coherence_metric.benchmarks.reporting.combine import combine_runs, main, read_run, render_combined_markdown
from coherence_metric.errors import InputError
from coherence_metric.research.datasets import PairItem, TestSet

DOCS = [
    ["The bank raised rates.", "Markets fell at once.", "Analysts had expected it."],
    ["Markets fell at once.", "Analysts had expected it.", "The bank raised rates."],
    ["Rain fell all night.", "The river rose.", "Roads were closed by morning."],
    ["Roads were closed by morning.", "Rain fell all night.", "The river rose."],
]
TOY = TestSet(name="TOY-PAIRS", source="test", items=(PairItem("a", DOCS[0], DOCS[1]), PairItem("b", DOCS[2], DOCS[3])))


@pytest.fixture(scope="module")
def reports(bert_checkpoint, tmp_path_factory):
    """Two finished runs of the same checkpoint on the same pairs, and one on a different subset."""
    root = tmp_path_factory.mktemp("combine")
    paths = {}
    for name, limit in (("first", None), ("second", None), ("subset", 1)):
        run_suite("toy", RunSettings(model=str(bert_checkpoint), seed=0, limit=limit, cache_dir=root / "cache",
                                     out_dir=root / name), test_sets=[TOY])
        paths[name] = next((root / name).glob("*.json"))
    return paths


def test_each_run_is_a_column_and_the_baselines_appear_once(reports):
    combined = combine_runs([("full", read_run(reports["first"])), ("pairwise", read_run(reports["second"]))])
    assert [system["name"] for system in combined["systems"]] == [
        "full", "pairwise", "random", "No FT", "adjacent cosine", "word count", "sentence count",
        "minus repeated trigrams"]
    row = combined["test_sets"][0]
    model = read_run(reports["first"])["systems"][0]["name"]
    original = read_run(reports["first"])["test_sets"][0]["results"]
    assert row["results"]["full"] == original[model] and row["results"]["random"] == original["random"]
    markdown = render_combined_markdown(combined)
    assert ("| Test set | n | Metric | full | pairwise | random | No FT | adjacent cosine | word count "
            "| sentence count | minus repeated trigrams |") in markdown
    assert markdown.count("| TOY-PAIRS | 2 | accuracy % |") == 1
    assert "- full: `coherence-metric:" in markdown
    assert "- Baselines are full's run.\n" in markdown


def test_runs_on_different_pairs_are_refused(reports):
    with pytest.raises(InputError, match="subset was scored with limit=1 and full with limit=None"):
        combine_runs([("full", read_run(reports["first"])), ("subset", read_run(reports["subset"]))])
    with pytest.raises(InputError, match="column labels must differ"):
        combine_runs([("x", read_run(reports["first"])), ("x", read_run(reports["second"]))])


def test_bad_reports_get_one_line_errors(tmp_path, capsys, reports):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({**read_run(reports["first"]), "partial": True}), encoding="utf-8")
    for argument, message in ((f"a={tmp_path / 'missing.json'}", "benchmark report not found"),
                              (f"a={broken}", "is not valid JSON"), (f"a={partial}", "is a partial report"),
                              (str(broken), "expected LABEL=REPORT.json")):
        with pytest.raises(SystemExit) as stopped:
            main([argument])
        assert stopped.value.code == 2
        error = capsys.readouterr().err
        assert message in error and len(error.strip().splitlines()) == 1
    assert main([f"a={reports['first']}", f"b={reports['second']}"]) == 0
    assert "| a | b | random |" in capsys.readouterr().out
