"""``checkpoint:MODEL`` and ``trained:FOLDER`` encoder specs: what a user probes with DiscoEval after training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from coherence_metric.benchmarks.discoeval.encoder_specs import resolve_encoder
from coherence_metric.errors import CheckpointError, InputError

SENTENCES = ["The cat sat on the mat.", "It was warm there.", "Stocks fell sharply on Monday after the report."]


def test_a_checkpoint_backbone_encodes_like_the_backbone_it_holds(bert_checkpoint: Path, tiny_bert_dir: Path) -> None:
    from_checkpoint = resolve_encoder(f"checkpoint:{bert_checkpoint}")
    plain = resolve_encoder(f"hf:{tiny_bert_dir}:pool=mean")
    assert from_checkpoint.pooling == "mean"  # the checkpoint's own pooling is the default
    np.testing.assert_allclose(from_checkpoint.encode(SENTENCES), plain.encode(SENTENCES), rtol=1e-5, atol=1e-6)
    cls_vectors = resolve_encoder(f"checkpoint:{bert_checkpoint}:pool=cls").encode(SENTENCES)
    assert cls_vectors.shape == (3, 32) and not np.allclose(cls_vectors, plain.encode(SENTENCES))


def test_the_signature_follows_the_checkpoint_files(bert_checkpoint: Path, corrupt_copy) -> None:
    from coherence_metric.models.checkpoint_config import read_checkpoint_config

    encoder = resolve_encoder(f"checkpoint:{bert_checkpoint}:layer=1")
    assert encoder.signature.startswith(f"checkpoint:{read_checkpoint_config(bert_checkpoint).fingerprint()}|layer=1")
    with pytest.raises(InputError, match="layer 7 out of range"):
        resolve_encoder(f"checkpoint:{bert_checkpoint}:layer=7").encode(SENTENCES)


def test_unknown_models_and_folders_without_a_manifest_are_named(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="not a coherence-metric checkpoint"):
        resolve_encoder(f"checkpoint:{tmp_path}")
    with pytest.raises(InputError, match="no trained_encoder.json"):
        resolve_encoder(f"trained:{tmp_path}")
    (tmp_path / "trained_encoder.json").write_text(json.dumps({"family": "astrology"}))
    with pytest.raises(InputError, match="unknown family 'astrology'"):
        resolve_encoder(f"trained:{tmp_path}")
    (tmp_path / "trained_encoder.json").write_text("{not json")
    with pytest.raises(InputError, match="corrupt"):
        resolve_encoder(f"trained:{tmp_path}")
