"""Features: the paper's recipe and size per task, on real examples and on hand-made vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from coherence_metric.benchmarks.discoeval import (
    Example,
    build_features,
    feature_dim,
    get_task,
    load_task,
    segment_vectors,
)

from .fakes import HashEncoder

DIM = 8
# Feature size in units of the encoder dimension, per the paper (section 3).
EXPECTED_BLOCKS = {"SP/wiki": 5, "SP/rocstory": 5, "BSO/arxiv": 3, "DC/chat": 6, "DC/wiki": 6, "SSP": 1,
                   "PDTB-E": 4, "PDTB-I": 4, "RST-DT": 4}


@pytest.mark.parametrize("name", sorted(EXPECTED_BLOCKS))
def test_feature_shape_per_task(discoeval_dir: Path, name: str) -> None:
    task = get_task(name)
    data = load_task(task, discoeval_dir, limit=12)
    encoder = HashEncoder(DIM)
    for examples in data.splits.values():
        texts = list(dict.fromkeys(u for example in examples for segment in example.segments for u in segment))
        index = {text: row for row, text in enumerate(texts)}
        features = build_features(task.feature_kind, segment_vectors(examples, index, encoder.encode(texts)))
        assert features.shape == (len(examples), EXPECTED_BLOCKS[name] * DIM)
        assert features.shape[1] == feature_dim(task.feature_kind, DIM)
        assert features.dtype == np.float32


def _vectors(k: int) -> np.ndarray:
    return np.arange(2 * k * 3, dtype=np.float32).reshape(2, k, 3) - 7.0


def test_sp_features_are_first_and_differences() -> None:
    v = _vectors(5)
    expected = np.concatenate([v[:, 0]] + [v[:, 0] - v[:, i] for i in range(1, 5)], axis=1)
    np.testing.assert_array_equal(build_features("sp", v), expected)


def test_bso_features_are_pair_and_difference() -> None:
    v = _vectors(2)
    np.testing.assert_array_equal(build_features("bso", v), np.concatenate([v[:, 0], v[:, 1], v[:, 0] - v[:, 1]], 1))


def test_dc_features_concatenate_six_units() -> None:
    v = _vectors(6)
    np.testing.assert_array_equal(build_features("concat", v), v.reshape(2, 18))


def test_pair_features_product_and_absolute_difference() -> None:
    v = _vectors(2)
    left, right = v[:, 0], v[:, 1]
    expected = np.concatenate([left, right, left * right, np.abs(left - right)], axis=1)
    np.testing.assert_array_equal(build_features("pair", v), expected)


def test_rst_subtrees_average_their_edus() -> None:
    encodings = np.array([[1.0, 0.0], [3.0, 2.0], [5.0, 4.0]], dtype=np.float32)
    index = {"a": 0, "b": 1, "c": 2}
    example = Example(segments=(("a", "b"), ("c",)), label=0)
    vectors = segment_vectors([example], index, encodings)
    np.testing.assert_array_equal(vectors[0], [[2.0, 1.0], [5.0, 4.0]])


def test_wrong_segment_count_is_rejected() -> None:
    with pytest.raises(ValueError, match="needs"):
        build_features("sp", _vectors(2))
