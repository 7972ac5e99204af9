"""The local term: a checkpoint that mixes the whole-text score with the mean score of its adjacent
sentence pairs, each scored alone by the same model, and shows those pair scores as the result's transitions."""

from __future__ import annotations

import json

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.errors import CheckpointError, InputError
from coherence_metric.models.checkpoint import load_checkpoint, set_local_term

TEXTS = ["The cat sat on the mat. It purred. Then it slept.", "A short one.", "Rain fell. The roads flooded."]


@pytest.fixture(scope="module")
def local_checkpoint(bert_checkpoint, tmp_path_factory):
    return set_local_term(bert_checkpoint, tmp_path_factory.mktemp("local") / "ckpt", 0.4,
                          training={"chosen_on": "a test"})


def test_score_mixes_the_whole_text_with_the_mean_of_its_pairs_scored_alone(bert_checkpoint, local_checkpoint):
    plain = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    local = CoherenceScorer(str(local_checkpoint), dtype="fp32")
    result = local.score(TEXTS)
    whole = plain.score(TEXTS).scores
    pairs = plain.score(["The cat sat on the mat. It purred.", "It purred. Then it slept.",
                         "Rain fell. The roads flooded."]).scores
    assert result.transitions is not None
    assert result.transitions[0] == pytest.approx(pairs[:2], abs=1e-5)
    assert result.transitions[1] == []  # one sentence: no transition, nothing invented
    assert result.transitions[2] == pytest.approx(pairs[2:], abs=1e-5)
    assert result.scores[0] == pytest.approx(0.6 * whole[0] + 0.4 * (pairs[0] + pairs[1]) / 2, abs=1e-5)
    assert result.scores[1] == pytest.approx(whole[1], abs=1e-5)
    assert json.loads(result.to_json())["transitions"][0] == pytest.approx(pairs[:2], abs=1e-5)
    assert plain.score(TEXTS).transitions is None and "transitions" not in plain.score(TEXTS).to_dict()


def test_a_local_term_is_independent_of_batch_neighbours_and_order(local_checkpoint):
    scorer = CoherenceScorer(str(local_checkpoint), dtype="fp32", batch_size=1)
    alone = [scorer.score(text).scores[0] for text in TEXTS]
    together = CoherenceScorer(str(local_checkpoint), dtype="fp32", batch_size=32).score(list(reversed(TEXTS)))
    assert list(reversed(together.scores)) == pytest.approx(alone, abs=1e-5)


def test_the_weight_is_recorded_hashed_and_changes_the_fingerprint(bert_checkpoint, local_checkpoint):
    loaded = load_checkpoint(local_checkpoint)
    assert float(loaded.model.local_weight) == pytest.approx(0.4)
    assert loaded.config.format_version == 4
    assert loaded.config.training["local_term"] == {"weight": 0.4, "chosen_on": "a test"}
    assert loaded.config.fingerprint() != load_checkpoint(bert_checkpoint).config.fingerprint()


def test_bad_weights_and_a_second_term_are_refused(bert_checkpoint, local_checkpoint, tmp_path):
    for weight in (0, 1.5, -0.1, True, "0.5"):
        with pytest.raises(InputError, match="weight must be a number in"):
            set_local_term(bert_checkpoint, tmp_path / f"w{weight}", weight)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="already has a local term"):
        set_local_term(local_checkpoint, tmp_path / "twice", 0.5)


def test_a_tampered_weight_is_refused(local_checkpoint, corrupt_copy):
    from safetensors.torch import load_file, save_file

    from coherence_metric.models.checkpoint_config import hash_folder_files, read_checkpoint_config

    folder = corrupt_copy(local_checkpoint)
    tensors = load_file(str(folder / "head.safetensors"))
    tensors["local_weight"] = tensors["local_weight"] * 5  # 2.0: out of (0, 1]
    save_file(tensors, str(folder / "head.safetensors"))
    config = read_checkpoint_config(folder)
    config.files = hash_folder_files(folder)  # re-hashed, as an attacker would
    config.write(folder)
    with pytest.raises(CheckpointError, match="local_weight must be one number in"):
        load_checkpoint(folder)
