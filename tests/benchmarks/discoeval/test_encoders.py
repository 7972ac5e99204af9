"""The Hugging Face encoder: shapes, pooling, batch- and order-invariance, signatures (tiny random BERT)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from coherence_metric.benchmarks.discoeval import resolve_encoder
from coherence_metric.research.encoders import HuggingFaceEncoder, SentenceEncoder

TEXTS = ["A short one .", "This sentence is quite a bit longer than the others , so batches get padded .",
         "Mid-length text here .", "A short one ."]


def test_encodes_in_input_order_whatever_the_batching(tiny_encoder_dir: Path) -> None:
    batched = HuggingFaceEncoder(tiny_encoder_dir, batch_size=3).encode(TEXTS)
    alone = np.stack([HuggingFaceEncoder(tiny_encoder_dir, batch_size=1).encode([t])[0] for t in TEXTS])
    assert batched.shape == (4, 32) and batched.dtype == np.float32
    np.testing.assert_allclose(batched, alone, atol=1e-5)
    np.testing.assert_allclose(batched[0], batched[3], atol=1e-5)


def test_pooling_and_layer_choices_differ(tiny_encoder_dir: Path) -> None:
    cls = resolve_encoder(f"hf:{tiny_encoder_dir}").encode(TEXTS[:2])
    mean = resolve_encoder(f"hf:{tiny_encoder_dir}:pool=mean").encode(TEXTS[:2])
    first = resolve_encoder(f"hf:{tiny_encoder_dir}:layer=1").encode(TEXTS[:2])
    average = resolve_encoder(f"hf:{tiny_encoder_dir}:layer=avg").encode(TEXTS[:2])
    for other in (mean, first, average):
        assert other.shape == cls.shape and not np.allclose(other, cls)


def test_signature_tracks_weights_layer_and_pooling(tiny_encoder_dir: Path) -> None:
    encoder = HuggingFaceEncoder(tiny_encoder_dir)
    assert isinstance(encoder, SentenceEncoder)
    assert encoder.signature == HuggingFaceEncoder(tiny_encoder_dir).signature
    assert encoder.signature != HuggingFaceEncoder(tiny_encoder_dir, pooling="mean").signature
    assert encoder.signature != HuggingFaceEncoder(tiny_encoder_dir, layer=1).signature
    assert encoder._model is None  # the signature never loads the model


def test_layer_out_of_range_is_an_input_error(tiny_encoder_dir: Path) -> None:
    from coherence_metric.errors import InputError

    with pytest.raises(InputError, match="layer 7 out of range"):
        HuggingFaceEncoder(tiny_encoder_dir, layer=7).encode(["x"])
