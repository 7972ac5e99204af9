"""``diagnose``: the PTB-style tokeniser, the length buckets and correlations, the variants' score changes, and
the ``coherence-metric diagnose`` command, checked against scoring the same texts directly with the scorer."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import spearmanr

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.cli import cli
from coherence_metric.diagnostics import (
    VARIANTS,
    apply_variant,
    compared_pairs,
    diagnose,
    flip_rate,
    render_report,
    spearman,
    tokenise_like_ptb,
    word_count,
)

SENTENCES = [
    "The storm reached the coast at dawn.",
    "By noon the harbour was closed.",
    "Fishermen pulled their boats onto the sand.",
    "Nobody expected the wind to turn so fast.",
    "In the evening the sky cleared.",
    "People walked out to see the damage.",
    "Most of the roofs had held.",
]
# 1, 2, 3, 4, 5 and 7 sentences, plus a text given as a sentence list (3 sentences).
TEXTS = [" ".join(SENTENCES[:count]) for count in (1, 2, 3, 4, 5, 7)] + [SENTENCES[2:5]]
NORMALISED = [tokenise_like_ptb(text.lower()) for text in TEXTS[:4]]


@pytest.fixture(scope="module")
def bert_scorer(bert_checkpoint) -> CoherenceScorer:
    return CoherenceScorer(str(bert_checkpoint))


@pytest.mark.parametrize("text, expected", [
    ("Hello, world.", "Hello , world ."),
    ("it's", "it 's"),
    ("I don't know; can't you?", "I do n't know ; ca n't you ?"),
    ("They're here at five o'clock.", "They 're here at five o'clock ."),
    ("The U.S. grew 3.5% in 2019, to $1,000.", "The U.S. grew 3.5 % in 2019 , to $ 1,000 ."),
    ('Mr. Smith (well-known) said: "Wait..." -- then left.',
     'Mr. Smith ( well-known ) said : " Wait ... " -- then left .'),
    ("`` i 'm sorry . '' she said", "`` i 'm sorry . '' she said"),
    ("two\n  lines", "two lines"),
])
def test_tokenise_like_ptb_splits_punctuation_and_clitics_and_is_idempotent(text: str, expected: str) -> None:
    assert tokenise_like_ptb(text) == expected
    assert tokenise_like_ptb(expected) == expected


def test_variants_rewrite_a_sentence_list_sentence_by_sentence() -> None:
    assert apply_variant(["It's late.", "Go home."], "lowercased+tokenised") == ["it 's late .", "go home ."]
    assert apply_variant("It's late.", "lowercased") == "it's late."
    assert word_count("Hello , world .") == word_count("Hello, world.") == 2


def test_spearman_equals_a_hand_computed_value_and_scipy_with_ties() -> None:
    # average ranks of x: 1, 2.5, 2.5, 4; of y: 1, 3, 2, 4 -> rho = 4.5 / sqrt(4.5 * 5)
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(4.5 / (4.5 * 5) ** 0.5, abs=1e-12)
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 4, size=30).tolist(), rng.normal(size=30).round(1).tolist()
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)
    assert spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None


def test_pairs_are_all_pairs_when_few_and_a_seeded_sample_when_many() -> None:
    first, second, sampled = compared_pairs(5)
    assert not sampled and len(first) == 10 and (first < second).all()
    first, second, sampled = compared_pairs(300, max_pairs=1000, seed=3)
    again = compared_pairs(300, max_pairs=1000, seed=3)
    assert sampled and len(first) == 1000 and (first < second).all() and second.max() < 300
    assert (first == again[0]).all() and (second == again[1]).all()
    before, after = np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])
    assert flip_rate(before, after, compared_pairs(3)[:2]) == pytest.approx(1 / 3)


def test_buckets_and_correlations_equal_scoring_the_texts_directly(bert_scorer: CoherenceScorer) -> None:
    report = diagnose(TEXTS, bert_scorer)
    scores = np.array(bert_scorer.score(TEXTS).scores)
    counts = {bucket.label: bucket.n_texts for bucket in report.buckets}
    assert counts == {"1": 1, "2": 1, "3": 2, "4-5": 2, "6+": 1}
    means = {bucket.label: bucket.mean_score for bucket in report.buckets}
    assert means["3"] == pytest.approx(scores[[2, 6]].mean(), abs=1e-5)
    assert means["4-5"] == pytest.approx(scores[[3, 4]].mean(), abs=1e-5)
    assert means["6+"] == pytest.approx(scores[5], abs=1e-5)
    assert report.n_texts == 7 and report.mean_score == pytest.approx(scores.mean(), abs=1e-5)
    assert report.score_std == pytest.approx(scores.std(ddof=1), abs=1e-5)
    words = [word_count(text) for text in TEXTS]
    assert report.spearman_word_count == pytest.approx(spearmanr(scores, words).statistic, abs=1e-6)
    assert report.spearman_sentence_count == pytest.approx(spearmanr(scores, [1, 2, 3, 4, 5, 7, 3]).statistic,
                                                           abs=1e-6)
    assert report.signature == str(bert_scorer.signature)


def test_already_lowercased_and_tokenised_texts_change_by_exactly_zero(bert_scorer: CoherenceScorer) -> None:
    report = diagnose(NORMALISED, bert_scorer)
    assert [variant.name for variant in report.variants] == list(VARIANTS)
    for variant in report.variants:
        assert variant.n_changed == 0
        assert variant.mean_abs_change == variant.max_abs_change == variant.flip_rate == 0.0
        assert variant.relative_change == 0.0 and variant.n_pairs == 6 and not variant.pairs_sampled


def test_variant_changes_equal_scoring_the_rewritten_texts(xlnet_checkpoint) -> None:
    """XLNet's SentencePiece vocabulary is cased, so lower-casing really moves its scores."""
    scorer = CoherenceScorer(str(xlnet_checkpoint))
    texts = TEXTS[:4] + NORMALISED[:1]
    report = diagnose(texts, scorer)
    before = np.array(scorer.score(texts).scores)
    for variant in report.variants:
        after = np.array(scorer.score([apply_variant(text, variant.name) for text in texts]).scores)
        change = after - before
        assert variant.n_changed == 4
        assert variant.mean_abs_change == pytest.approx(np.abs(change).mean(), abs=1e-5)
        assert variant.max_abs_change == pytest.approx(np.abs(change).max(), abs=1e-5)
        assert variant.mean_change == pytest.approx(change.mean(), abs=1e-5)
        assert variant.relative_change == pytest.approx(np.abs(change).mean() / before.std(ddof=1), abs=1e-4)
    assert report.variants[0].max_abs_change > 0
    data = json.loads(report.to_json())
    assert data["variants"][0]["name"] == "lowercased" and len(data["buckets"]) == 5
    assert "lowercased+tokenised" in render_report(report)


def test_fewer_than_two_texts_is_an_input_error(bert_scorer: CoherenceScorer) -> None:
    with pytest.raises(InputError, match="at least 2 texts"):
        diagnose(TEXTS[:1], bert_scorer)
    with pytest.raises(InputError, match="text 1 is empty"):
        diagnose([TEXTS[0], "  "], bert_scorer)


def test_cli_prints_the_report_as_json_for_a_jsonl_file(runner: CliRunner, bert_checkpoint, tmp_path) -> None:
    path = tmp_path / "texts.jsonl"
    path.write_text("\n".join(json.dumps({"text": text}) for text in TEXTS) + "\n", encoding="utf-8")
    args = ["diagnose", str(path), "-i", "jsonl", "--model", str(bert_checkpoint)]
    result = runner.invoke(cli, args + ["-f", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"n_texts", "mean_score", "score_std", "buckets", "spearman_word_count",
                         "spearman_sentence_count", "variants", "n_truncated", "n_windowed",
                         "n_truncated_rewritten", "signature"}
    assert data["n_texts"] == 7 and [bucket["label"] for bucket in data["buckets"]] == ["1", "2", "3", "4-5", "6+"]
    assert set(data["variants"][0]) >= {"mean_abs_change", "max_abs_change", "relative_change", "flip_rate"}
    text = runner.invoke(cli, args, catch_exceptions=False)
    assert text.exit_code == 0 and text.stdout.startswith("texts: 7") and "signature: " in text.stdout


@pytest.mark.parametrize("content, fragment", [("One text only.\n", "holds 1 text"), ("", "is empty")])
def test_cli_refuses_a_file_with_fewer_than_two_texts_in_one_line(runner: CliRunner, tmp_path, content: str,
                                                                   fragment: str) -> None:
    path = tmp_path / "one.txt"
    path.write_text(content, encoding="utf-8")
    result = runner.invoke(cli, ["diagnose", str(path), "-i", "lines"], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("coherence-metric: error: ") and fragment in lines[0]
    assert result.stdout == ""
