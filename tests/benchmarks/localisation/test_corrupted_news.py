"""``benchmark localisation``: corrupted held-out documents, their true breaks, hit rates, random's exact chance."""

from __future__ import annotations

import json
import math
import random

import pytest
from click.testing import CliRunner

from coherence_metric.benchmarks.localisation.corrupted_news import random_hit_chance
from coherence_metric.research.localisation_sets import KINDS, build_localisation_sets, hits, new_adjacencies

TOPICS = ["river", "market", "school", "bridge", "harvest", "railway", "festival", "hospital"]


def documents(count=8, length=7):
    return [(f"doc:{index}", [f"The {topic} story says thing {position} about the {topic} {position}."
                              for position in range(length)]) for index, topic in enumerate(TOPICS[:count])]


@pytest.mark.parametrize("order, expected", [
    ([0, 1, -1, 3, 4], [1, 2]),       # an intruder: the transitions into and out of it
    ([0, 1, 2, 3, -1], [3]),          # an intruder at the end: one
    ([0, 2, 3, 1, 4], [0, 2, 3]),     # sentence 1 moved: the seam it left and its two new neighbours
    ([0, 2, 1, 3], [0, 1, 2]),        # a swapped pair
    ([1, 0, 2, 3], [0, 1]),           # a swapped pair at the start
])
def test_the_true_break_is_every_transition_the_original_did_not_have(order, expected):
    assert new_adjacencies(order) == expected


def test_each_kind_corrupts_one_place_of_the_same_sampled_documents():
    source = documents()
    sets = build_localisation_sets(source, per_kind=5, seed=3)
    assert set(sets) == set(KINDS)
    originals = dict(source)
    for kind, items in sets.items():
        assert [item.id.split("/")[0] for item in items] == [item.id.split("/")[0] for item in sets["moved"]]
        for item in items:
            original = originals[item.id.split("/")[0]]
            assert item.kind == kind and len(item.sentences) == len(original) and item.breaks
            if kind == "intrusion":
                foreign = [index for index, sentence in enumerate(item.sentences) if sentence not in original]
                assert len(foreign) == 1 and foreign[0] > 0
                assert item.breaks == [index for index in (foreign[0] - 1, foreign[0]) if index < len(original) - 1]
            else:
                assert sorted(item.sentences) == sorted(original) and item.sentences != original
                order = [original.index(sentence) for sentence in item.sentences]
                assert item.breaks == new_adjacencies(order)
                if kind == "swap":
                    moved = [index for index, value in enumerate(order) if value != index]
                    assert len(moved) == 2 and moved[1] == moved[0] + 1


def test_the_sets_are_seeded():
    first = build_localisation_sets(documents(), 4, seed=1)
    assert first == build_localisation_sets(documents(), 4, seed=1)
    assert first != build_localisation_sets(documents(), 4, seed=2)


def test_random_chance_is_exact():
    assert random_hit_chance(9, 1) == pytest.approx((1 / 9, 2 / 9))
    assert random_hit_chance(9, 2) == pytest.approx((2 / 9, 1 - math.comb(7, 2) / math.comb(9, 2)))
    rng = random.Random(0)
    trials = [hits([rng.random() for _ in range(6)], [1, 4]) for _ in range(20000)]
    top1, top2 = random_hit_chance(6, 2)
    assert sum(hit for hit, _ in trials) / 20000 == pytest.approx(top1, abs=0.015)
    assert sum(hit for _, hit in trials) / 20000 == pytest.approx(top2, abs=0.015)


def test_hits_read_the_lowest_transitions():
    assert hits([0.5, -2.0, 0.1, 0.3], [1]) == (True, True)
    assert hits([0.5, -2.0, 0.1, 0.3], [2]) == (False, True)
    assert hits([0.5, -2.0, 0.1, 0.3], [0]) == (False, False)


def run_suite(bert_checkpoint, tmp_path, *extra, out="out"):
    """Run the suite on the tiny checkpoint (3 documents per kind) and return its output and its JSON report."""
    from coherence_metric.benchmarks.cli import benchmark

    arguments = ["localisation", "--model", str(bert_checkpoint), "--limit", "3",
                 "--output", str(tmp_path / out), "--cache-dir", str(tmp_path / "cache"), "--quiet", *extra]
    result = CliRunner().invoke(benchmark, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    split = extra[extra.index("--split") + 1] if "--split" in extra else "test"
    stem = "localisation_limit3" if split == "test" else f"localisation_{split}_limit3"
    return result, json.loads((tmp_path / out / f"{stem}.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_the_suite_runs_from_the_command_line_and_reads_its_cache(bert_checkpoint, shared_data, tmp_path):
    from coherence_metric.benchmarks.cli import benchmark

    arguments = ["localisation", "--model", str(bert_checkpoint), "--limit", "3",
                 "--output", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--quiet"]
    result, data = run_suite(bert_checkpoint, tmp_path)
    assert "# Localisation: local:bert-full (test split)" in result.stdout
    # explain's fallback is the transition model with the cosine; the adjacent-cosine mechanism is the cosine
    # baseline: one row, marked, never twice
    assert "| **transition-cosine** (explain's) |" in result.stdout
    assert "| adjacent-cosine (= the adjacent-sentence-cosine baseline) |" in result.stdout
    assert "| adjacent-sentence-cosine |" not in result.stdout
    assert [row["name"] for row in data["rows"]] == ["pair-alone", "cut-drop", "window", "adjacent-cosine",
                                                     "transition-model", "transition-cosine", "random"]
    assert data["split"] == "test" and data["model"]["auto_mechanism"] == "transition-cosine"
    assert data["n_items"]["moved"] == 3 and data["target"]["checked"] is True
    assert data["target"]["is_cosine"] is False and data["target"]["mechanism"] == "transition-cosine"
    assert "for transition-cosine: " in result.stdout and "Against 1 / transitions: " in result.stdout
    # every method is compared with the cosine on the same texts (paired), the cosine itself is not
    by_name = {row["name"]: row for row in data["rows"]}
    assert "vs_cosine" not in by_name["adjacent-cosine"] and "vs_cosine" in by_name["transition-cosine"]
    assert "Method minus adjacent cosine" in result.stdout
    again = CliRunner().invoke(benchmark, arguments, catch_exceptions=False)
    rerun = json.loads((tmp_path / "out" / "localisation_limit3.json").read_text(encoding="utf-8"))
    assert again.exit_code == 0 and rerun["cache"]["misses"] == 0
    assert [row["kinds"] for row in rerun["rows"]] == [row["kinds"] for row in data["rows"]]


def test_an_unknown_mechanism_is_one_line_before_anything_loads(tmp_path):
    """A typo costs no wait: the name is refused before the data and the checkpoint (here one that does not exist)."""
    from coherence_metric.cli import cli

    result = CliRunner().invoke(cli, ["benchmark", "localisation", "--model", str(tmp_path / "no-such-checkpoint"),
                                      "--mechanisms", "pair-alone,magic", "--limit", "2", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "unknown transition mechanism 'magic'" in result.stderr


@pytest.mark.slow
def test_the_cosine_baseline_and_the_adjacent_cosine_mechanism_are_one_computation(bert_checkpoint, shared_data,
                                                                                   tmp_path):
    _, alone = run_suite(bert_checkpoint, tmp_path, "--mechanisms", "pair-alone", out="baseline")
    by_name = {row["name"]: row for row in alone["rows"]}
    assert list(by_name) == ["pair-alone", "random", "adjacent-sentence-cosine"]
    assert alone["target"] == {"checked": False}  # explain's mechanism was not measured
    result, mechanism = run_suite(bert_checkpoint, tmp_path, "--mechanisms", "adjacent-cosine", out="mechanism")
    assert [row["name"] for row in mechanism["rows"]] == ["adjacent-cosine", "random"]
    assert mechanism["rows"][0]["kinds"] == by_name["adjacent-sentence-cosine"]["kinds"]
    assert mechanism["cache"]["misses"] == 0  # the baseline's values, not scored again


@pytest.mark.slow
def test_split_dev_corrupts_dev_documents_and_says_so(bert_checkpoint, shared_data, tmp_path):
    from coherence_metric.research.standins import read_news_documents

    result, dev = run_suite(bert_checkpoint, tmp_path, "--split", "dev", "--mechanisms", "adjacent-cosine")
    _, test = run_suite(bert_checkpoint, tmp_path, "--mechanisms", "adjacent-cosine")
    assert "# Localisation: local:bert-full (dev split)" in result.stdout
    assert "held-out news dev split" in result.stdout and dev["split"] == "dev" and test["split"] == "test"
    assert len(dev["document_ids"]) == 3 and len(test["document_ids"]) == 3
    dev_ids = {doc_id for doc_id, _ in read_news_documents(shared_data, split="dev")}
    test_ids = {doc_id for doc_id, _ in read_news_documents(shared_data, split="test")}
    assert set(dev["document_ids"]) <= dev_ids and set(test["document_ids"]) <= test_ids
    assert not dev_ids & test_ids


def test_split_is_refused_outside_the_localisation_suite(bert_checkpoint, tmp_path):
    from coherence_metric.cli import cli

    result = CliRunner().invoke(cli, ["benchmark", "probes", "--model", str(bert_checkpoint), "--split", "dev",
                                      "--limit", "2", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "coherence-metric: error: --split is an option of benchmark localisation, not of benchmark probes "
        "(see 'cli benchmark probes --help')"]
