"""The Python API users call: score/compare, input validation, results, signature, cached scorers."""

from __future__ import annotations

import json

import pytest

import coherence_metric
from coherence_metric import CoherenceScorer, InputError
from coherence_metric.version import __version__

TEXT_A = "The river rose slowly through the night. By morning the lower fields were under water."
TEXT_B = "By morning the lower fields were under water. The river rose slowly through the night."


def test_module_level_functions_reuse_one_scorer(bert_checkpoint):
    first = coherence_metric.get_scorer(str(bert_checkpoint))
    second = coherence_metric.get_scorer(str(bert_checkpoint))
    assert first is second
    assert coherence_metric.get_scorer(str(bert_checkpoint), batch_size=2) is not first
    result = coherence_metric.score([TEXT_A, TEXT_B], model=str(bert_checkpoint))
    assert result.scores == pytest.approx(first.score([TEXT_A, TEXT_B]).scores, abs=1e-6)


def test_a_string_and_its_sentence_list_score_the_same(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint))
    sentences = ["The river rose slowly through the night.", "By morning the lower fields were under water."]
    assert scorer.score([sentences]).scores[0] == pytest.approx(scorer.score(TEXT_A).scores[0], abs=1e-6)


@pytest.mark.parametrize(
    "texts, message",
    [
        ([], "the list is empty"),
        (["fine", "   "], "text 1 is empty"),
        ([["ok.", 3]], "text 0, sentence 1 is int"),
        ([[]], "text 0 is empty"),
        ([None], "text 0 is None"),
        (42, "texts must be a string or a list"),
    ],
)
def test_bad_texts_are_named(bert_checkpoint, texts, message):
    scorer = CoherenceScorer(str(bert_checkpoint))
    with pytest.raises(InputError, match=message):
        scorer.score(texts)


def test_result_dict_and_json(bert_checkpoint):
    result = CoherenceScorer(str(bert_checkpoint)).score([TEXT_A, TEXT_B])
    data = json.loads(result.to_json())
    assert data["scores"] == pytest.approx(result.scores)
    assert data["system_score"] == pytest.approx(sum(result.scores) / 2)
    assert data["signature"] == str(result.signature)
    assert data["n_truncated"] == 0


def test_signature_names_everything_that_changes_a_number(bert_checkpoint):
    import torch
    import transformers

    signature = str(CoherenceScorer(str(bert_checkpoint), max_length=64).signature)
    for part in (f"coherence-metric:{__version__}", "model:local:bert-full@", "pool:mean", "maxlen:64", "trunc:window",
                 "dtype:fp32", f"transformers:{transformers.__version__}", f"torch:{torch.__version__.split('+')[0]}"):
        assert part in signature
    # the fingerprint is the checkpoint's content hash: same bytes, same signature
    assert signature == str(CoherenceScorer(str(bert_checkpoint), max_length=64).signature)


def test_compare_two_texts(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint))
    result = scorer.compare(TEXT_A, TEXT_B)
    score_a, score_b = scorer.score([TEXT_A, TEXT_B]).scores
    assert result.score_a == pytest.approx(score_a) and result.score_b == pytest.approx(score_b)
    assert result.winner == ("a" if score_a > score_b else "b")
    assert result.difference == pytest.approx(score_a - score_b)
    assert "bootstrap" not in str(result.signature)


def test_compare_two_systems_is_paired_and_seeded(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint))
    system_a = [TEXT_A, "One. Two. Three.", "Rain fell. The river rose.", "A town. A flood."]
    system_b = [TEXT_B, "Three. Two. One.", "The river rose. Rain fell.", "A flood. A town."]
    result = scorer.compare(system_a, system_b, bootstrap_resamples=200, seed=7)
    again = scorer.compare(system_a, system_b, bootstrap_resamples=200, seed=7)
    assert result.paired and len(result.pair_winners) == 4
    assert result.wins_a + result.wins_b + result.ties == 4
    assert result.win_rate == result.wins_a / 4
    assert result.win_rate_interval == again.win_rate_interval
    low, high = result.mean_difference_interval
    assert low <= result.difference <= high
    assert "bootstrap:200|seed:7" in str(result.signature)
    data = result.to_dict()
    assert data["n_pairs"] == 4 and data["pair_winners"] == result.pair_winners


def test_compare_needs_matching_shapes(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint))
    with pytest.raises(InputError, match="system A has 2 texts and system B has 1"):
        scorer.compare([TEXT_A, TEXT_B], [TEXT_A])
    with pytest.raises(InputError, match="not one of each"):
        scorer.compare(TEXT_A, [TEXT_B])
    with pytest.raises(InputError, match="got int and int"):
        scorer.compare(3, 4)
    with pytest.raises(InputError, match="bootstrap_resamples must be a positive integer"):
        scorer.compare([TEXT_A], [TEXT_B], bootstrap_resamples=0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"truncation": "drop"}, "unknown truncation 'drop'"),
        ({"batch_size": 0}, "batch_size must be a positive integer"),
        ({"dtype": "int8"}, "unknown dtype 'int8'"),
        ({"dtype": "fp16", "device": "cpu"}, "fp16 is not supported on the CPU"),
        ({"device": "quantum"}, "unknown device 'quantum'"),
    ],
)
def test_bad_settings_are_named(bert_checkpoint, kwargs, message):
    with pytest.raises(InputError, match=message):
        CoherenceScorer(str(bert_checkpoint), **kwargs)


def test_import_does_not_load_torch():
    import subprocess
    import sys

    code = "import sys, coherence_metric; sys.exit(1 if 'torch' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_untrained_in_memory_model_can_be_scored(tiny_bert_dir):
    from transformers import AutoTokenizer

    model = coherence_metric.CoherenceModel.from_backbone(tiny_bert_dir, max_length=64, seed=0)
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    scorer = CoherenceScorer.from_model(model, tokenizer, label="untrained:tiny")
    result = scorer.score([TEXT_A])
    assert "model:untrained:tiny@" in str(result.signature)
    same_seed = coherence_metric.CoherenceModel.from_backbone(tiny_bert_dir, max_length=64, seed=0)
    assert CoherenceScorer.from_model(same_seed, tokenizer, "x").score([TEXT_A]).scores == result.scores


# ------------------------------------------------------------ ties, bootstrap settings, empty texts


def test_scores_within_the_tie_tolerance_tie_everywhere():
    from coherence_metric.results import TIE_TOLERANCE, CompareResult
    from coherence_metric.signature import Signature

    signature = Signature("m", "0" * 12, "mean", 8, "window", "fp32", 0, "0", "0", "0")
    single = CompareResult([-4.8076], [-4.8076 + 5e-7], signature, paired=False)
    assert single.winner == "tie"
    paired = CompareResult([1.0, 2.0, 3.0], [1.0 + 5e-7, 2.0 - 0.9 * TIE_TOLERANCE, 3.0 - 3e-5], signature, paired=True)
    assert paired.pair_winners == ["tie", "tie", "a"]
    assert (paired.wins_a, paired.wins_b, paired.ties, paired.win_rate) == (1, 0, 2, 1 / 3)


def test_a_system_compared_with_itself_ties_on_every_input(bert_checkpoint):
    """Batch composition moves a score by float noise; with batches of 2 the two copies land in different ones."""
    scorer = CoherenceScorer(str(bert_checkpoint), batch_size=2)
    system = [TEXT_A, "One. Two.", "Rain fell on the town all day and the river rose over its banks. " * 2,
              "A flood.", "The road was closed before noon. Buses took the long way round."]
    result = scorer.compare(system, list(system), bootstrap_resamples=100, seed=1)
    assert result.pair_winners == ["tie"] * 5 and result.winner == "tie"
    assert result.win_rate == 0.0 and result.win_rate_interval == (0.0, 0.0)


@pytest.mark.parametrize("kwargs, message", [
    ({"seed": -1}, "seed must be an integer from 0"),
    ({"seed": 1.5}, "seed must be an integer from 0"),
    ({"bootstrap_resamples": 10_000_000_000}, "bootstrap_resamples must be a positive integer of at most 1000000"),
])
def test_bad_bootstrap_settings_are_named(bert_checkpoint, kwargs, message):
    with pytest.raises(InputError, match=message):
        CoherenceScorer(str(bert_checkpoint)).compare([TEXT_A], [TEXT_B], **kwargs)


def test_texts_that_tokenise_to_special_tokens_only_are_refused(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint))
    with pytest.raises(InputError, match="text 1 has no visible characters"):
        scorer.score([TEXT_A, "\x00\u200b\x07"])
    with pytest.raises(InputError, match="text 0, sentence 1 has no visible characters"):
        scorer.score([["A sentence.", "\u200b"]])
    # combining accents alone are visible, but this uncased tokenizer strips them: nothing is left to score
    with pytest.raises(InputError, match=r"text 1 tokenises to special tokens only \('\\u0301\\u0301'\)"):
        scorer.score([TEXT_A, "\u0301\u0301"])
