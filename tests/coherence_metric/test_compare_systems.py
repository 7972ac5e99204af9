"""N systems on the same inputs: ranking, per-system intervals, every pair's tests; the CLI's three outputs."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.cli import cli

ORDERED = [
    "The river rose slowly through the night. By morning the lower fields were under water.",
    "The town held a meeting. Everyone agreed to build a wall.",
    "Rain fell for days. The roads closed and the schools shut.",
    "She opened the letter. It said her brother was coming home.",
    "The bakery opened at six. By seven the bread was gone.",
]
SWAPPED = [". ".join(reversed(text.rstrip(".").split(". "))) + "." for text in ORDERED]
SALAD = ["River night the rose. Fields morning.", "Wall meeting town.", "Days rain roads.", "Letter home.",
         "Bread six seven."]


@pytest.fixture(scope="module")
def scorer(bert_checkpoint) -> CoherenceScorer:
    return CoherenceScorer(str(bert_checkpoint))


@pytest.fixture(scope="module")
def comparison(scorer):
    return scorer.compare_systems({"ordered": ORDERED, "swapped": SWAPPED, "salad": SALAD, "copy": list(ORDERED)},
                                  bootstrap_resamples=200, seed=7, randomization_trials=500)


def test_each_system_scores_as_scored_alone_with_an_interval(scorer, comparison):
    for name, texts in (("ordered", ORDERED), ("salad", SALAD)):
        result = comparison.systems[name]
        assert result.scores == pytest.approx(scorer.score(texts).scores, abs=1e-5)
        low, high = result.system_score_interval
        assert low <= result.system_score <= high and result.confidence == 0.95


def test_ranking_follows_system_scores_and_equal_systems_share_a_rank(comparison):
    means = [comparison.systems[name].system_score for name in comparison.ranking]
    assert means == sorted(means, reverse=True)
    ranks = comparison.ranks
    assert ranks["ordered"] == ranks["copy"]
    assert sorted(ranks.values())[0] == 1


def test_every_pair_once_higher_ranked_first_with_both_p_values(comparison):
    assert len(comparison.pairs) == 6
    order = comparison.ranking
    for pair in comparison.pairs:
        assert order.index(pair.a) < order.index(pair.b)
        assert pair.mean_difference == pytest.approx(pair.score_a - pair.score_b)
        assert pair.wins_a + pair.wins_b + pair.ties == 5
        # 5 inputs: too few for a bootstrap p-value (it understates p there); randomization holds at any size
        assert pair.p_value_bootstrap is None and 0 < pair.p_value_randomization <= 1
    same = comparison.pair("copy", "ordered")
    assert same.ties == 5 and same.p_value_randomization == 1.0


def test_the_comparison_is_deterministic_for_a_seed_and_signed(scorer, comparison):
    again = scorer.compare_systems({"ordered": ORDERED, "swapped": SWAPPED, "salad": SALAD, "copy": list(ORDERED)},
                                   bootstrap_resamples=200, seed=7, randomization_trials=500)
    assert again.to_dict() == comparison.to_dict()
    assert "bootstrap:200|seed:7|ar:500" in str(comparison.signature)
    data = json.loads(comparison.to_json())
    assert data["ranking"] == comparison.ranking and data["n_pairs"] == 6 and data["randomization_trials"] == 500
    assert data["systems"]["salad"]["system_score_interval"] == list(comparison.systems["salad"].system_score_interval)


@pytest.mark.parametrize("systems, message", [
    ({"only": ORDERED}, "comparing systems needs at least 2, got 1"),
    ({"a": ORDERED, "b": SALAD[:3]}, "systems must have the same number of texts, in the same input order; got "
                                     "'a' 5, 'b' 3"),
    ({"a": ORDERED, "b": ORDERED[:4] + [" "]}, "system 'b': text 4 is empty"),
    ({"a": ORDERED, "b": "one string"}, "system 'b' is one string"),
    ([ORDERED, SALAD], "systems must be a mapping of names to lists of texts, got list"),
])
def test_bad_systems_are_named(scorer, systems, message):
    with pytest.raises(InputError) as caught:
        scorer.compare_systems(systems)
    assert message in str(caught.value)


def test_two_system_compare_gains_p_values_and_keeps_its_keys(scorer):
    result = scorer.compare(ORDERED, SALAD, bootstrap_resamples=100, seed=3, randomization_trials=200)
    data = result.to_dict()
    for key in ("score_a", "score_b", "difference", "winner", "n_pairs", "pair_winners", "win_rate",
                "win_rate_interval", "mean_difference_interval", "confidence", "signature"):
        assert key in data
    assert data["p_value_bootstrap"] is None and "5 inputs" in data["p_value_bootstrap_note"]
    assert 0 < data["p_value_randomization"] <= 1
    assert "bootstrap:100|seed:3|ar:200" in data["signature"]


# ------------------------------------------------------------------------------------------------- CLI


@pytest.fixture
def files(tmp_path):
    paths = []
    for name, texts in (("ordered", ORDERED), ("swapped", SWAPPED), ("salad", SALAD)):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def _run(args):
    from coherence_metric.cli import compare  # noqa: F401  (registers the command)

    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_cli_ranks_three_systems(files, bert_checkpoint):
    result = _run(["compare", *files, "-i", "lines", "--model", str(bert_checkpoint), "--bootstrap", "100",
                   "--trials", "300", "--seed", "5"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("systems: 3  inputs: 5")
    ranked = [line.split()[1] for line in lines[2:5]]
    assert sorted(ranked) == sorted(files)
    assert "pairs: 3 (A ranked above B" in result.stdout and "300 trials" in result.stdout
    assert lines[-1].startswith("signature: ") and "bootstrap:100|seed:5|ar:300" in lines[-1]


def test_cli_json_and_tsv_for_three_systems(files, bert_checkpoint):
    common = ["compare", *files, "-i", "lines", "--model", str(bert_checkpoint), "--bootstrap", "100", "--trials",
              "100"]
    data = json.loads(_run([*common, "-f", "json"]).stdout)
    assert set(data["systems"]) == set(files) and data["n_pairs"] == 3
    assert data["systems"][files[0]]["labels"] == [f"{files[0]}:{line}" for line in range(1, 6)]
    assert {pair["a"] for pair in data["pairs"]} | {pair["b"] for pair in data["pairs"]} == set(files)
    tsv = _run([*common, "-f", "tsv"])
    rows = tsv.stdout.splitlines()
    assert rows[0] == "system\tlabel\tscore" and len(rows) == 16
    assert tsv.stderr.startswith("signature: ")
    by_row = {tuple(row.split("\t")[:2]): float(row.split("\t")[2]) for row in rows[1:]}
    assert by_row[(files[2], f"{files[2]}:1")] == pytest.approx(data["systems"][files[2]]["scores"][0], abs=1e-6)


@pytest.mark.parametrize("extra, fragments", [
    (["-i", "doc"], ["comparing 3 files needs one system's outputs per file: pass -i lines"]),
    (["-i", "lines", "--trials", "0"], ["--trials"]),
])
def test_cli_refuses_bad_multi_system_runs_in_one_line(files, bert_checkpoint, extra, fragments):
    result = _run(["compare", *files, "--model", str(bert_checkpoint), *extra])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("coherence-metric: error: ")
    assert all(fragment in lines[0] for fragment in fragments)


def test_cli_refuses_mismatched_or_repeated_files(files, bert_checkpoint, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("One line. Only.\n", encoding="utf-8")
    result = _run(["compare", files[0], files[1], str(short), "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 2 and f"{short} 1" in result.stderr and "different numbers of texts" in result.stderr
    result = _run(["compare", files[0], files[1], files[0], "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 2 and f"{files[0]} is given twice" in result.stderr
    result = _run(["compare", files[0], "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 2
    assert "compare needs two files (or one JSONL file with --group-by FIELD)" in result.stderr
