"""Edge inputs and settings, each as a user meets it: non-finite scores, one-input comparisons, lone surrogates,
unsupported devices, blobs links, a config's model_type, revisions that would be ignored, numpy settings, a bad
confidence and the order of a pair."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from coherence_metric import CheckpointError, CoherenceScorer, InputError, ModelNotFoundError
from coherence_metric import compare as compare_function
from coherence_metric import score as score_function
from coherence_metric.cli import cli
from coherence_metric.errors import NonFiniteScoreError
from coherence_metric.models.checkpoint_config import hash_folder_files, read_checkpoint_config
from coherence_metric.results import ScoreResult
from coherence_metric.signature import Signature
from coherence_metric.statistics.bootstrap import paired_bootstrap
from coherence_metric.systems import compare_scored_systems

from ..conftest import EXAMPLES_DIR
from .cli_helpers import assert_one_line_error

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Farmers moved their animals to the hills. The road was closed before noon.",
         "A doctor checked on the elderly. The mayor visited in the afternoon.",
         "Rain."]
COHERENT = str(EXAMPLES_DIR / "coherent.txt")
SHUFFLED = str(EXAMPLES_DIR / "shuffled.txt")
SIGNATURE = Signature("m", "f", "mean", 256, "window", "fp32", 0, "0", "0", "0")


def _rehash(folder: Path) -> Path:
    config = read_checkpoint_config(folder)
    config.files = hash_folder_files(folder)
    config.write(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_scorer(bert_checkpoint) -> CoherenceScorer:
    return CoherenceScorer(str(bert_checkpoint))


# ------------------------------------------------------------------------------------- 8: non-finite scores


def test_a_model_giving_nan_scores_is_refused_not_reported(nan_checkpoint, runner):
    with pytest.raises(NonFiniteScoreError, match="text 0 got a non-finite score \\(nan\\)"):
        CoherenceScorer(str(nan_checkpoint)).score(TEXTS[:2])
    result = runner.invoke(cli, ["compare", COHERENT, SHUFFLED, "--model", str(nan_checkpoint), "--format", "json"])
    assert_one_line_error(result, "non-finite score")
    assert "NaN" not in result.stdout


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_results_and_statistics_refuse_non_finite_scores(value):
    with pytest.raises(InputError, match="score 1 is (nan|inf): scores must be finite"):
        ScoreResult([0.5, value], 0, SIGNATURE)
    with pytest.raises(InputError, match="finite"):
        paired_bootstrap([0.1, value, 0.3], [0.2, 0.2, 0.2])


# ----------------------------------------------------------------------------------- 9: fewer than 2 inputs


def test_a_paired_comparison_of_one_input_is_refused_before_scoring(tiny_scorer):
    with pytest.raises(InputError, match="at least 2 inputs, got 1"):
        tiny_scorer.compare([TEXTS[0]], [TEXTS[1]])
    with pytest.raises(InputError, match="at least 2 inputs, got 1"):
        tiny_scorer.compare_systems({"a": [TEXTS[0]], "b": [TEXTS[1]], "c": [TEXTS[2]]})
    assert tiny_scorer.compare(TEXTS[0], TEXTS[1]).winner in ("a", "b", "tie")  # two single texts still compare


def test_one_input_gets_no_interval_and_no_p_value():
    with pytest.raises(InputError, match="at least 2 inputs"):
        ScoreResult([0.5], 0, SIGNATURE).with_system_score_interval()
    with pytest.raises(InputError, match="at least 2 inputs"):
        paired_bootstrap([0.5], [0.1])


def test_cli_compare_of_one_line_files_is_one_line(runner, tmp_path, bert_checkpoint):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXTS[0] + "\n", encoding="utf-8")
    b.write_text(TEXTS[1] + "\n", encoding="utf-8")
    result = runner.invoke(cli, ["compare", str(a), str(b), "-i", "lines", "--model", str(bert_checkpoint)])
    assert_one_line_error(result, "at least 2 inputs, got 1")


# -------------------------------------------------------------------------------------- 10: lone surrogates


def test_a_lone_surrogate_is_refused_before_the_model_loads():
    """The model named does not exist, so an error about the text proves the text was checked first."""
    with pytest.raises(InputError, match=r"text 1 holds a lone surrogate \(U\+D800 at character 3\)"):
        score_function(["fine", "abc\ud800"], model="/no/such/checkpoint")
    with pytest.raises(InputError, match="text 0, sentence 1 holds a lone surrogate"):
        compare_function([["One.", "Two \udfff."], "x"], ["y", "z"], model="/no/such/checkpoint")
    with pytest.raises(ModelNotFoundError):
        score_function(["fine"], model="/no/such/checkpoint")


def test_a_lone_surrogate_in_jsonl_is_one_line_naming_the_line(runner, tmp_path, tiny_scorer):
    path = tmp_path / "outputs.jsonl"
    path.write_text('{"text": "fine"}\n{"text": "bad \\ud800 text"}\n', encoding="utf-8")
    result = runner.invoke(cli, ["score", str(path), "-i", "jsonl", "--model", "/no/such/checkpoint"])
    assert_one_line_error(result, f"{path} line 2", "lone surrogate")
    with pytest.raises(InputError, match="lone surrogate"):
        tiny_scorer.score(["bad \ud800 text"])


# ----------------------------------------------------------------------------------------------- 16: devices


@pytest.mark.parametrize("device", ["meta", "xpu"])
def test_unsupported_devices_are_one_line_errors(bert_checkpoint, runner, device):
    with pytest.raises(InputError, match=f"device '{device}' is not (supported|available)"):
        CoherenceScorer(str(bert_checkpoint), device=device)
    result = runner.invoke(cli, ["score", COHERENT, "--model", str(bert_checkpoint), "--device", device])
    assert_one_line_error(result, f"device '{device}'")


# ---------------------------------------------------------------------------- 17: a blobs folder that is a link


def test_a_hub_snapshot_whose_blobs_folder_links_to_root_is_refused(bert_checkpoint, tmp_path, monkeypatch):
    import huggingface_hub.constants as hub_constants

    cache = tmp_path / "hub"
    repo = cache / "models--acme--blobs-link"
    snapshot = repo / "snapshots" / ("0" * 40)
    shutil.copytree(bert_checkpoint, snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)
    (repo / "blobs").symlink_to("/")
    outside = tmp_path / "elsewhere" / "tokenizer.json"
    outside.parent.mkdir()
    shutil.copyfile(snapshot / "tokenizer" / "tokenizer.json", outside)
    (snapshot / "tokenizer" / "tokenizer.json").unlink()
    (snapshot / "tokenizer" / "tokenizer.json").symlink_to(os.path.relpath(f"{repo}/blobs{outside}",
                                                                           snapshot / "tokenizer"))
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CheckpointError, match="tokenizer/tokenizer.json links outside the checkpoint"):
        CoherenceScorer("acme/blobs-link")


# ------------------------------------------------------------------------------ 19: the config's model_type


def test_a_config_model_type_cannot_switch_off_the_position_check(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    path = folder / "coherence_config.json"
    data = json.loads(path.read_text())
    data["backbone"]["model_type"] = "xlnet"
    data["max_length"] = 1000
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="max_length 1000 exceeds the backbone's 128 positions"):
        CoherenceScorer(str(folder))


# ------------------------------------------------------------------------------------------- 20: revisions


def test_a_revision_with_a_packaged_or_local_model_is_refused(bert_checkpoint, runner):
    with pytest.raises(InputError, match="revision 'v1' applies to Hub repo ids only"):
        CoherenceScorer("default", revision="v1")
    with pytest.raises(InputError, match="is a local folder"):
        CoherenceScorer(str(bert_checkpoint), revision="main")
    result = runner.invoke(cli, ["score", COHERENT, "--revision", "main"])
    assert_one_line_error(result, "applies to Hub repo ids only")


# ------------------------------------------------------------------------------- 21, 29, 35: the statistics


def test_numpy_integer_settings_give_plain_json(tiny_scorer):
    systems = {"a": TEXTS, "b": TEXTS[::-1], "c": TEXTS[1:] + TEXTS[:1]}
    comparison = tiny_scorer.compare_systems(systems, bootstrap_resamples=np.int64(200), seed=np.int64(7),
                                             randomization_trials=np.int32(300))
    data = json.loads(comparison.to_json())
    assert (data["bootstrap_resamples"], data["seed"], data["randomization_trials"]) == (200, 7, 300)
    assert data == json.loads(tiny_scorer.compare_systems(systems, bootstrap_resamples=200, seed=7,
                                                          randomization_trials=300).to_json())
    paired = tiny_scorer.compare(TEXTS, TEXTS[::-1], bootstrap_resamples=np.int64(100), seed=np.uint8(3))
    assert "bootstrap:100|seed:3" in json.loads(paired.to_json())["signature"]


@pytest.mark.parametrize("confidence", [1.5, 0.0, -0.2, True, "0.9", math.nan])
def test_a_confidence_outside_0_1_names_confidence(confidence):
    with pytest.raises(InputError, match="confidence must be a number between 0 and 1"):
        ScoreResult([0.1, 0.5, 0.3], 0, SIGNATURE).with_system_score_interval(confidence=confidence)


def test_a_pair_comes_back_in_the_order_asked():
    results = {"lead1": ScoreResult([1.0, 2.0, 1.5, 0.9, 1.2], 0, SIGNATURE),
               "A": ScoreResult([0.1, 0.4, 1.6, 0.2, 0.0], 0, SIGNATURE)}
    comparison = compare_scored_systems(results, 500, 200, 5)
    stored = comparison.pair("lead1", "A")
    asked = comparison.pair("A", "lead1")
    assert (asked.a, asked.b) == ("A", "lead1") and (stored.a, stored.b) == ("lead1", "A")
    assert asked.mean_difference == pytest.approx(-stored.mean_difference) and asked.mean_difference < 0
    assert (asked.score_a, asked.score_b) == (stored.score_b, stored.score_a)
    assert (asked.wins_a, asked.wins_b, asked.ties) == (stored.wins_b, stored.wins_a, stored.ties) == (1, 4, 0)
    assert asked.win_rate == pytest.approx(0.2)
    low, high = stored.mean_difference_interval
    assert asked.mean_difference_interval == pytest.approx((-high, -low))
    assert (asked.p_value_bootstrap, asked.p_value_randomization) == pytest.approx(
        (stored.p_value_bootstrap, stored.p_value_randomization))
    with pytest.raises(KeyError):
        comparison.pair("A", "nobody")
