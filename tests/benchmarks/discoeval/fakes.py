"""A deterministic stand-in encoder, so feature and runner tests need neither torch nor a model."""

from __future__ import annotations

import zlib
from typing import List

import numpy as np


class HashEncoder:
    """Maps each text to a fixed pseudo-random vector seeded by its CRC32, and counts encode calls."""

    def __init__(self, dim: int = 8) -> None:
        self.dim = dim
        self.calls = 0

    @property
    def name(self) -> str:
        return f"hash-{self.dim}"

    @property
    def signature(self) -> str:
        return f"test-hash|dim={self.dim}"

    def encode(self, texts: List[str]) -> np.ndarray:
        self.calls += 1
        rows = [np.random.default_rng(zlib.crc32(text.encode("utf-8"))).normal(size=self.dim) for text in texts]
        return np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
