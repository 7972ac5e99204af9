"""Checkpoints: every flavour loads back with identical scores; damaged ones are refused with a clear error."""

from __future__ import annotations

import json
import os

import pytest
import torch

from coherence_metric import (
    CheckpointError,
    CoherenceModel,
    CoherenceScorer,
    InputError,
    load_checkpoint,
    save_checkpoint,
)
from coherence_metric.checkpoint_config import CONFIG_NAME, FORMAT_VERSION

TEXTS = [
    "The river rose slowly through the night. By morning the lower fields were under water.",
    "Farmers moved their animals to the hills. The road was closed before noon.",
    "A short one.",
]


def _direct_scores(model: CoherenceModel, tokenizer, texts):
    """Scores computed one text at a time, without the scorer's batching: the reference values."""
    model.eval()
    values = []
    with torch.inference_mode():
        for text in texts:
            encoded = tokenizer([text], return_tensors="pt")
            values.append(float(model(encoded["input_ids"], encoded["attention_mask"])[0]))
    return values


@pytest.mark.parametrize("backbone_fixture", ["tiny_bert_dir", "tiny_xlnet_dir"])
def test_full_checkpoint_round_trip_gives_identical_scores(backbone_fixture, request, tmp_path):
    from transformers import AutoTokenizer

    backbone_dir = request.getfixturevalue(backbone_fixture)
    model = CoherenceModel.from_backbone(backbone_dir, max_length=128, seed=3)
    tokenizer = AutoTokenizer.from_pretrained(str(backbone_dir))
    expected = _direct_scores(model, tokenizer, TEXTS)
    folder = save_checkpoint(model, tmp_path / "ckpt", tokenizer=tokenizer, training={"objective": "test"})

    loaded = load_checkpoint(folder)
    assert loaded.config.flavour == "full"
    assert loaded.config.training == {"objective": "test"}
    assert loaded.config.pooling == ("last" if "xlnet" in backbone_fixture else "mean")
    assert _direct_scores(loaded.model, loaded.tokenizer, TEXTS) == pytest.approx(expected, abs=1e-6)
    assert CoherenceScorer(str(folder)).score(TEXTS).scores == pytest.approx(expected, abs=1e-5)


def test_adapter_checkpoint_round_trip(tiny_bert_dir, tmp_path):
    from peft import LoraConfig, get_peft_model
    from transformers import AutoTokenizer

    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=4)
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["query", "value"], init_lora_weights=False)
    model.backbone = get_peft_model(model.backbone, lora)
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    expected = _direct_scores(model, tokenizer, TEXTS)
    folder = save_checkpoint(model, tmp_path / "adapter", flavour="adapter")

    assert (folder / "adapter" / "adapter_model.safetensors").is_file()
    assert not (folder / "backbone").exists(), "an adapter checkpoint must not copy the backbone"
    loaded = load_checkpoint(folder)
    assert loaded.config.flavour == "adapter"
    assert _direct_scores(loaded.model, loaded.tokenizer, TEXTS) == pytest.approx(expected, abs=1e-5)


def test_delta_checkpoint_stores_only_trained_tensors(tiny_bert_dir, tmp_path):
    from transformers import AutoTokenizer

    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=5)
    for name, parameter in model.backbone.named_parameters():
        parameter.requires_grad = name.startswith("encoder.layer.1.")
        if parameter.requires_grad:
            with torch.no_grad():
                parameter.add_(0.05)  # "training" changed the top layer
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    expected = _direct_scores(model, tokenizer, TEXTS)
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")

    from safetensors.torch import load_file

    stored = load_file(str(folder / "backbone_delta.safetensors"))
    assert stored and all(name.startswith("encoder.layer.1.") for name in stored)
    loaded = load_checkpoint(folder)
    assert _direct_scores(loaded.model, loaded.tokenizer, TEXTS) == pytest.approx(expected, abs=1e-6)


def test_delta_over_a_backbone_with_other_weights_is_refused(tiny_bert_dir, tmp_path):
    import shutil

    copy = tmp_path / "backbone-copy"
    shutil.copytree(tiny_bert_dir, copy)
    model = CoherenceModel.from_backbone(copy, max_length=128, seed=5)
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    weights = copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-4] + b"\x00\x00\x00\x01")
    with pytest.raises(CheckpointError, match="not found; tried"):
        load_checkpoint(folder)


def test_corrupt_weight_file_is_refused_naming_the_file(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    head = folder / "head.safetensors"
    data = bytearray(head.read_bytes())
    data[-1] ^= 0xFF
    head.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt: sha256 of head.safetensors"):
        load_checkpoint(folder)


def test_missing_weight_file_is_reported(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    (folder / "backbone" / "model.safetensors").unlink()
    with pytest.raises(CheckpointError, match="incomplete: backbone/model.safetensors is missing"):
        load_checkpoint(folder)


def test_newer_format_asks_for_an_upgrade(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    config_path = folder / CONFIG_NAME
    data = json.loads(config_path.read_text())
    data["format_version"] = FORMAT_VERSION + 1
    config_path.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="upgrade with `pip install -U coherence-metric`"):
        load_checkpoint(folder)


def test_config_that_is_not_json_is_corrupt(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    (folder / CONFIG_NAME).write_text("{not json")
    with pytest.raises(CheckpointError, match="corrupt: not valid JSON"):
        load_checkpoint(folder)


def test_folder_without_config_is_not_a_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="not a coherence-metric checkpoint"):
        load_checkpoint(tmp_path)


def test_save_refuses_a_non_empty_folder_and_a_full_checkpoint_without_tokenizer(tiny_bert_dir, tmp_path):
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128)
    with pytest.raises(InputError, match="needs the tokenizer"):
        save_checkpoint(model, tmp_path / "x")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file.txt").write_text("keep me")
    with pytest.raises(InputError, match="is not empty"):
        save_checkpoint(model, tmp_path / "busy", flavour="delta")
    assert (tmp_path / "busy" / "file.txt").read_text() == "keep me"


def current_umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def test_saved_files_get_the_umask_permissions_not_owner_only(bert_checkpoint):
    """safetensors writes 0600; a checkpoint copied to a shared folder must stay readable like any file."""
    expected = 0o666 & ~current_umask()
    modes = {path.relative_to(bert_checkpoint).as_posix(): path.stat().st_mode & 0o777
             for path in bert_checkpoint.rglob("*") if path.is_file()}
    assert "head.safetensors" in modes and "backbone/model.safetensors" in modes
    assert modes == dict.fromkeys(modes, expected)


def test_every_file_is_hashed_in_the_config(bert_checkpoint):
    config = json.loads((bert_checkpoint / CONFIG_NAME).read_text())
    files = set(config["files"])
    assert {"head.safetensors", "backbone/model.safetensors", "backbone/config.json"} <= files
    assert any(name.startswith("tokenizer/") for name in files)
    assert config["library_versions"]["transformers"]
