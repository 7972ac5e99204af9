"""The field's ruler: SummEval correlations, the human-judged dev suite and the trivial baselines, on the real data."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from coherence_metric.benchmarks.agreement.correlation import correlate
from coherence_metric.benchmarks.agreement.human_dev import group_credits, run_human_dev
from coherence_metric.benchmarks.agreement.summeval_correlation import (
    load_published_predictions,
    rating_table,
    run_summeval_correlation,
)
from coherence_metric.benchmarks.harness.baselines import (
    RepeatedTrigramBaseline,
    SentenceCountBaseline,
    WordCountBaseline,
    repeated_trigram_share,
)
from coherence_metric.benchmarks.harness.settings import RunSettings
from coherence_metric.errors import InputError
from coherence_metric.research.datasets.ratings import (
    DEV_REPORT,
    DEV_SELECT,
    HUMAN_DEV_SETS,
    dev_half,
    limit_groups,
    load_human_dev_set,
    load_summeval_ratings,
)

# ----------------------------------------------------------------------------------------- baselines


def test_the_trivial_baselines_count_words_sentences_and_repeated_trigrams():
    document = ["The cat sat on the mat.", "The cat sat on the mat."]
    assert WordCountBaseline().score([document]) == [12.0]
    assert SentenceCountBaseline().score([document, ["One."]]) == [2.0, 1.0]
    # 10 trigrams over the 12 words, 4 of them ("the cat sat" .. "on the mat.") said a second time.
    assert repeated_trigram_share(" ".join(document)) == pytest.approx(4 / 10)
    assert RepeatedTrigramBaseline().score([document, ["No repetition at all here."]]) == [pytest.approx(-0.4), 0.0]
    assert repeated_trigram_share("too short") == 0.0


# -------------------------------------------------------------------------------------- SummEval ratings


@pytest.fixture(scope="module")
def summeval(shared_data):
    return load_summeval_ratings(shared_data)


def test_summeval_ratings_are_100_articles_by_16_systems_with_the_expert_mean(summeval):
    assert len(summeval) == 1600 and len(summeval.groups()) == 100
    assert {text.system for text in summeval} == {f"M{n}" for n in (0, 1, 2, 5, *range(8, 16), 17, 20, 22, 23)}
    assert all(1.0 <= text.rating <= 5.0 for text in summeval)
    assert all(summeval.texts[pair.better].rating > summeval.texts[pair.worse].rating for pair in summeval.pairs())


@pytest.mark.parametrize("measure, rho, tau", [
    ("ccl-roberta-large-ours-cnndm", 0.526, 0.402),  # Steen & Markert's shuffle-trained RoBERTa-large
    ("bartscore", 0.474, 0.367),
    ("random", -0.002, -0.004),
])
def test_published_predictions_reproduce_the_summary_level_figures(summeval, shared_data, measure, rho, tau):
    predictions = load_published_predictions(shared_data)[measure]
    scores = [predictions[text.group, text.system] for text in summeval]
    result = correlate(rating_table(summeval.texts, scores), resamples=0)
    assert result["summary"]["spearman"].value == pytest.approx(rho, abs=0.005)
    assert result["summary"]["kendall"].value == pytest.approx(tau, abs=0.005)
    assert result["summary"]["spearman"].n_units == 100


def test_minus_repeated_trigrams_reproduces_its_summary_level_figure(summeval):
    scores = RepeatedTrigramBaseline().score([list(text.sentences) for text in summeval])
    result = correlate(rating_table(summeval.texts, scores), resamples=0)
    assert result["summary"]["spearman"].value == pytest.approx(0.228, abs=0.005)
    assert result["summary"]["kendall"].value == pytest.approx(0.195, abs=0.005)
    assert result["summary"]["spearman"].n_skipped == 8  # articles where no summary repeats a trigram


@pytest.mark.slow
def test_the_correlation_suite_ranks_a_model_beside_baselines_and_published_rows(bert_checkpoint, shared_data,
                                                                                 tmp_path):
    settings = RunSettings(model=str(bert_checkpoint), limit=3, data_dir=shared_data, cache_dir=tmp_path / "cache")
    result = run_summeval_correlation(dataclasses.replace(settings, out_dir=tmp_path / "out"), resamples=20)
    rows = {row["name"]: row for row in result["rows"]}
    assert result["data"]["texts"] == 48 and result["data"]["articles"] == 3
    assert {"random", "No FT", "adjacent cosine", "word count", "sentence count",
            "minus repeated trigrams", "ccl-roberta-large-ours-cnndm (S&M)", "G-Eval-4"} <= set(rows)
    assert result["rows"][0]["role"] == "model"
    assert rows["G-Eval-4"]["correlations"]["summary"]["spearman"]["value"] == 0.582
    summary = rows["word count"]["correlations"]["summary"]["spearman"]
    low, high = summary["interval"]
    assert low <= summary["value"] <= high
    markdown = (tmp_path / "out" / "summeval-correlation_limit3.md").read_text(encoding="utf-8")
    assert "| G-Eval-4 | published number | 0.582 | 0.457 |" in markdown
    per_system = result["per_system"]  # each system's place, on the same 3 articles
    assert len(per_system["systems"]) == 16 and {row["texts"] for row in per_system["systems"]} == {3}
    scored = [row["name"] for row in result["rows"] if row["kind"] == "scored here"]
    assert set(per_system["length_kendall"]) == {"experts", "ccl-roberta-large-ours-cnndm (S&M)", *scored}
    assert "### Per system" in markdown and "| M0 LEAD-3 | yes |" in markdown
    saved = json.loads((tmp_path / "out" / "summeval-correlation_limit3.json").read_text(encoding="utf-8"))
    assert saved["rows"][0]["correlations"] == result["rows"][0]["correlations"]
    again = run_summeval_correlation(settings, resamples=20)
    assert again["cache"]["misses"] == 0
    assert [row["correlations"] for row in again["rows"]] == [row["correlations"] for row in result["rows"]]


# ------------------------------------------------------------------------------------------ human_dev


@pytest.mark.parametrize("name, n_texts, n_pairs", [("HANNA", 1056, 2198), ("DELTASCORE", 400, 452),
                                                    ("FFCI", 540, 346)])
def test_human_dev_sets_make_same_group_pairs_with_the_documented_gap(shared_data, name, n_texts, n_pairs):
    rated = load_human_dev_set(name, shared_data)
    pairs = rated.pairs()
    assert len(rated) == n_texts and len(pairs) == n_pairs
    for pair in pairs:
        better, worse = rated.texts[pair.better], rated.texts[pair.worse]
        assert better.group == worse.group and better.rating - worse.rating >= rated.min_gap - 1e-9


def test_the_dev_halves_split_whole_groups_and_never_move(shared_data):
    for name in HUMAN_DEV_SETS:
        rated = load_human_dev_set(name, shared_data)
        halves = {group: dev_half(name, group) for group in rated.groups()}
        assert set(halves.values()) == {DEV_SELECT, DEV_REPORT}
        assert 0.35 < sum(half == DEV_SELECT for half in halves.values()) / len(halves) < 0.65
    assert dev_half("HANNA", "0") == dev_half("HANNA", "0")


def test_a_constant_scorer_gets_exactly_half_the_pairs(shared_data):
    rated = load_human_dev_set("DELTASCORE", shared_data)
    credits = group_credits(rated, [0.0] * len(rated), "all")
    pairs = sum(entry[1] for entry in credits.values())
    assert pairs == 452 and sum(entry[0] for entry in credits.values()) == pytest.approx(226.0)
    assert sum(entry[2] for entry in credits.values()) == 452


def test_limit_keeps_whole_groups(shared_data):
    rated = limit_groups(load_human_dev_set("FFCI", shared_data), 5, seed=0)
    assert len(rated.groups()) == 5 and all(len(texts) == 4 for texts in rated.groups().values())
    with pytest.raises(InputError, match="--limit"):
        limit_groups(rated, 0, seed=0)


@pytest.mark.slow
def test_the_human_dev_suite_reports_both_halves_with_baselines(bert_checkpoint, shared_data, tmp_path):
    result = run_human_dev(RunSettings(model=str(bert_checkpoint), limit=6, data_dir=shared_data,
                                       cache_dir=tmp_path / "cache", out_dir=tmp_path / "out"),
                           sets=("DELTASCORE", "FFCI"), resamples=20)
    rows = {row["name"]: row for row in result["rows"]}
    assert {"word count", "sentence count", "minus repeated trigrams", "random"} <= set(rows)
    for row in result["rows"]:
        for name in ("DELTASCORE", "FFCI"):
            cells = row["sets"][name]
            assert cells["all"]["n_pairs"] == cells[DEV_SELECT]["n_pairs"] + cells[DEV_REPORT]["n_pairs"]
    markdown = (tmp_path / "out" / "human-dev.md").read_text(encoding="utf-8")
    assert "dev-report half" in markdown and "| word count |" in markdown


def test_the_benchmark_command_runs_the_correlation_suite(bert_checkpoint, shared_data, tmp_path):
    from coherence_metric.cli import cli, main  # noqa: F401  (main registers the commands)

    result = CliRunner().invoke(cli, ["benchmark", "summeval-correlation", "--model", str(bert_checkpoint),
                                      "--limit", "2", "--bootstrap", "10", "--no-baselines",
                                      "--output", str(tmp_path), "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    assert "## SummEval expert coherence" in result.output and "G-Eval-4" in result.output
    assert (tmp_path / "summeval-correlation_limit2.json").is_file()
