"""Encoding cache: one .npy per (encoder signature, task, split, text list), reused exactly when valid."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from coherence_metric.benchmarks.discoeval import EncodingCache, default_cache_dir
from coherence_metric.benchmarks.discoeval.encoding_cache import CACHE_ENV_VAR

from .fakes import HashEncoder


def test_second_request_is_served_from_disk(tmp_path: Path) -> None:
    cache, encoder = EncodingCache(tmp_path), HashEncoder()
    first = cache.encodings(encoder, "SP/wiki", "valid", ["a", "b"])
    second = cache.encodings(encoder, "SP/wiki", "valid", ["a", "b"])
    np.testing.assert_array_equal(first, second)
    assert encoder.calls == 1 and (cache.stats.hits, cache.stats.misses) == (1, 1)
    files = list(tmp_path.rglob("*.npy"))
    assert len(files) == 1 and files[0].parent.name == "SP_wiki" and files[0].name.startswith("valid-2-")
    assert (files[0].parent.parent / "signature.txt").read_text().strip() == encoder.signature


def test_other_texts_signature_or_split_miss(tmp_path: Path) -> None:
    cache, encoder = EncodingCache(tmp_path), HashEncoder()
    cache.encodings(encoder, "SSP", "test", ["a", "b"])
    cache.encodings(encoder, "SSP", "test", ["a", "c"])
    cache.encodings(encoder, "SSP", "valid", ["a", "b"])
    cache.encodings(HashEncoder(dim=4), "SSP", "test", ["a", "b"])
    assert cache.stats.misses == 4 and cache.stats.hits == 0


def test_disabled_cache_writes_nothing(tmp_path: Path) -> None:
    cache, encoder = EncodingCache(tmp_path, enabled=False), HashEncoder()
    cache.encodings(encoder, "SSP", "test", ["a"])
    cache.encodings(encoder, "SSP", "test", ["a"])
    assert encoder.calls == 2 and not list(tmp_path.rglob("*.npy"))


def test_default_dir_honours_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path / "cache"))
    assert default_cache_dir() == tmp_path / "cache"
    monkeypatch.delenv(CACHE_ENV_VAR)
    assert default_cache_dir() == Path.home() / ".cache" / "coherence_metric" / "discoeval"
