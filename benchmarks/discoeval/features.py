"""Classifier inputs exactly as the DiscoEval paper (section 3) defines them, from per-segment sentence vectors.

``[a, b]`` is concatenation, ``*`` element-wise product, ``|.|`` element-wise absolute value:

- SP: ``[x1, x1-x2, x1-x3, x1-x4, x1-x5]`` (x1 is the sentence moved to the front) -> 5 d
- BSO: ``[x1, x2, x1-x2]`` -> 3 d
- DC: ``[x1, x2, x3, x4, x5, x6]`` (the six sentences or turns concatenated) -> 6 d
- SSP: ``x`` (the sentence alone) -> d
- PDTB-E, PDTB-I, RST-DT: ``[x1, x2, x1*x2, |x1-x2|]`` -> 4 d; for RST-DT x1 and x2 are the averages of the EDU
  encodings of the left and right subtree ("averaged vectors of EDUs of subtrees").
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Sequence

import numpy as np

from .tasks import Example

FEATURE_BLOCKS: Dict[str, int] = {"sp": 5, "bso": 3, "concat": 6, "single": 1, "pair": 4}
"""Number of d-sized blocks in each feature recipe (feature size = blocks x encoder dimension)."""

_SEGMENTS: Dict[str, int] = {"sp": 5, "bso": 2, "concat": 6, "single": 1, "pair": 2}


def feature_dim(kind: str, dim: int) -> int:
    """Return the feature size of recipe ``kind`` for ``dim``-dimensional sentence vectors."""
    return FEATURE_BLOCKS[kind] * dim


def segment_vectors(examples: Sequence[Example], index: Mapping[str, int], encodings: np.ndarray) -> np.ndarray:
    """Stack one vector per segment: the encoding of its unit, or the mean over its units (RST-DT subtrees).

    Args:
        examples: examples with the same number of segments k.
        index: row of ``encodings`` for every text unit.
        encodings: ``(n_texts, d)`` unit encodings.

    Returns:
        Array ``(len(examples), k, d)``.
    """
    if not examples:
        return np.zeros((0, 0, encodings.shape[1]), dtype=np.float32)
    num_segments = len(examples[0].segments)
    if all(len(segment) == 1 for example in examples for segment in example.segments):
        rows = np.array([[index[segment[0]] for segment in example.segments] for example in examples])
        return encodings[rows]
    vectors = np.empty((len(examples), num_segments, encodings.shape[1]), dtype=np.float32)
    for i, example in enumerate(examples):
        for j, segment in enumerate(example.segments):
            rows_j: List[int] = [index[unit] for unit in segment]
            vectors[i, j] = encodings[rows_j].mean(axis=0)
    return vectors


def build_features(kind: str, vectors: np.ndarray) -> np.ndarray:
    """Turn ``(n, k, d)`` segment vectors into the paper's ``(n, blocks*d)`` classifier input for recipe ``kind``.

    Args:
        kind: ``sp``, ``bso``, ``concat``, ``single`` or ``pair`` (see the module docstring).
        vectors: segment vectors with k = 5, 2, 6, 1 or 2 respectively.

    Returns:
        Float32 feature matrix.

    Raises:
        ValueError: unknown recipe or wrong number of segments (a programming error, not a user one).
    """
    if kind not in _SEGMENTS:
        raise ValueError(f"unknown feature recipe {kind!r}")
    if vectors.ndim != 3 or vectors.shape[1] != _SEGMENTS[kind]:
        raise ValueError(f"feature recipe {kind!r} needs (n, {_SEGMENTS[kind]}, d) vectors, got {vectors.shape}")
    if kind == "sp":
        first = vectors[:, 0]
        blocks = [first] + [first - vectors[:, i] for i in range(1, 5)]
    elif kind == "bso":
        blocks = [vectors[:, 0], vectors[:, 1], vectors[:, 0] - vectors[:, 1]]
    elif kind == "concat":
        blocks = [vectors[:, i] for i in range(vectors.shape[1])]
    elif kind == "single":
        blocks = [vectors[:, 0]]
    else:
        left, right = vectors[:, 0], vectors[:, 1]
        blocks = [left, right, left * right, np.abs(left - right)]
    return np.concatenate(blocks, axis=1).astype(np.float32, copy=False)
