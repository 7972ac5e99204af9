"""``--suite localisation``: corrupted held-out documents, their true breaks, hit rates, random's exact chance."""

from __future__ import annotations

import json
import math
import random

import pytest
from click.testing import CliRunner

from coherence_metric.benchmarks.localisation import (
    KINDS,
    build_localisation_sets,
    hits,
    new_adjacencies,
    random_hit_chance,
)

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


def test_the_suite_runs_from_the_command_line_and_reads_its_cache(bert_checkpoint, shared_data, tmp_path):
    from coherence_metric.benchmarks.cli import benchmark

    arguments = ["--model", str(bert_checkpoint), "--suite", "localisation", "--limit", "3",
                 "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
    result = CliRunner().invoke(benchmark, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "# Localisation: local:bert-full" in result.stdout
    assert "| **pair-alone** (explain's) |" in result.stdout and "| adjacent-sentence-cosine |" in result.stdout
    data = json.loads((tmp_path / "out" / "localisation_limit3.json").read_text(encoding="utf-8"))
    assert [row["name"] for row in data["rows"]] == ["pair-alone", "cut-drop", "window", "random",
                                                     "adjacent-sentence-cosine"]
    assert data["n_items"]["moved"] == 3 and data["target"]["checked"] is True
    again = CliRunner().invoke(benchmark, arguments, catch_exceptions=False)
    rerun = json.loads((tmp_path / "out" / "localisation_limit3.json").read_text(encoding="utf-8"))
    assert again.exit_code == 0 and rerun["cache"]["misses"] == 0
    assert [row["kinds"] for row in rerun["rows"]] == [row["kinds"] for row in data["rows"]]


def test_an_unknown_mechanism_is_one_line(bert_checkpoint, shared_data, tmp_path):
    from coherence_metric.cli import cli

    result = CliRunner().invoke(cli, ["benchmark", "--model", str(bert_checkpoint), "--suite", "localisation",
                                      "--mechanisms", "magic", "--limit", "2", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2 and "unknown transition mechanism 'magic'" in result.stderr
