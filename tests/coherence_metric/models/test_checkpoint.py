"""Checkpoints: every flavour loads back with identical scores; damaged ones are refused with a clear error."""

from __future__ import annotations

import json
import os
import warnings

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
from coherence_metric.models.checkpoint_config import CONFIG_NAME, FORMAT_VERSION

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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_checkpoint(folder)
    assert loaded.config.flavour == "adapter"
    assert _direct_scores(loaded.model, loaded.tokenizer, TEXTS) == pytest.approx(expected, abs=1e-5)
    # peft's own deprecation noise from transformers reached every `--model accurate` call as a user warning
    assert not [str(w.message) for w in caught if "is_gradient_checkpointing" in str(w.message)]


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


def _delta_over_altered_backbone(tiny_bert_dir, tmp_path):
    """A delta checkpoint saved over a copy of the tiny backbone whose weights are then changed."""
    import shutil

    copy = tmp_path / "backbone-copy"
    shutil.copytree(tiny_bert_dir, copy)
    model = CoherenceModel.from_backbone(copy, max_length=128, seed=5)
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    weights = copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-4] + b"\x00\x00\x00\x01")
    return folder


def test_delta_over_a_backbone_with_other_weights_is_refused(tiny_bert_dir, tmp_path):
    folder = _delta_over_altered_backbone(tiny_bert_dir, tmp_path)
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
    with pytest.raises(CheckpointError, match="upgrade coherence-metric \\(git pull, then pip install ./archive ."):
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


# Integrity: every file a loader opens is listed and verified, the fingerprint covers the config,
# paths stay inside the folder, and a malformed config is a one-line CheckpointError.


def _edit_config(folder, edit) -> None:
    """Apply ``edit`` to the parsed coherence_config.json of ``folder`` and write it back."""
    path = folder / CONFIG_NAME
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def delta_checkpoint(tiny_bert_dir, tmp_path_factory):
    """A delta checkpoint over the tiny BERT (its top layer), without a tokenizer folder."""
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=5)
    for name, parameter in model.backbone.named_parameters():
        parameter.requires_grad = name.startswith("encoder.layer.1.")
    return save_checkpoint(model, tmp_path_factory.mktemp("delta") / "delta", flavour="delta")


def test_an_unlisted_tokenizer_file_is_refused(bert_checkpoint, corrupt_copy):
    """An extra tokenizer file changes the tokens, hence the score, under the same fingerprint: refuse it."""
    folder = corrupt_copy(bert_checkpoint)
    (folder / "tokenizer" / "special_tokens_map.json").write_text(json.dumps({"cls_token": "[SEP]"}))
    with pytest.raises(CheckpointError, match=r"tokenizer/special_tokens_map.json is not listed in its "
                                              r"coherence_config.json"):
        load_checkpoint(folder)


@pytest.mark.parametrize("fixture, name", [
    ("bert_checkpoint", "head.safetensors"),
    ("bert_checkpoint", "backbone/model.safetensors"),
    ("bert_checkpoint", "tokenizer/tokenizer_config.json"),
    ("delta_checkpoint", "backbone_delta.safetensors"),
])
def test_a_loaded_file_dropped_from_the_list_is_refused(fixture, name, request, corrupt_copy):
    """Dropping an entry must not turn a file's check off: its edits would then load."""
    folder = corrupt_copy(request.getfixturevalue(fixture))
    _edit_config(folder, lambda data: data["files"].pop(name))
    with pytest.raises(CheckpointError, match=f"{name} is not listed"):
        load_checkpoint(folder)


def test_an_edited_head_whose_entry_was_dropped_is_refused(bert_checkpoint, corrupt_copy):
    from safetensors.torch import load_file, save_file

    folder = corrupt_copy(bert_checkpoint)
    tensors = load_file(str(folder / "head.safetensors"))
    save_file({**tensors, "bias": tensors["bias"] + 1.0}, str(folder / "head.safetensors"))
    _edit_config(folder, lambda data: data["files"].pop("head.safetensors"))
    with pytest.raises(CheckpointError, match="head.safetensors is not listed"):
        CoherenceScorer(str(folder))


@pytest.mark.parametrize("key, value", [
    ("pooling", "cls"),
    ("max_length", 64),
    ("hidden_size", 16),
    ("flavour", "delta"),
    ("sentence_scorer", {"embedding_dim": 32, "heads": 2, "layers": 1, "max_sentences": 8, "width": 16}),
    ("backbone.name_or_path", "acme/other-encoder"),
    ("backbone.revision", "v2"),
    ("backbone.model_type", "roberta"),
    ("backbone.weights_sha256", "0" * 64),
    ("files.head.safetensors", "1" * 64),
])
def test_the_fingerprint_covers_every_score_relevant_field(bert_checkpoint, key, value):
    from dataclasses import replace

    from coherence_metric.models.checkpoint_config import read_checkpoint_config

    config = read_checkpoint_config(bert_checkpoint)
    section, _, field = key.partition(".")
    if section == "backbone":
        changed = replace(config, backbone=replace(config.backbone, **{field: value}))
    elif section == "files":
        changed = replace(config, files={**config.files, field: value})
    else:
        changed = replace(config, **{key: value})
    assert changed.fingerprint() != config.fingerprint()


def test_the_fingerprint_ignores_the_training_record(bert_checkpoint):
    """How a checkpoint was trained, and with which library versions, changes no score."""
    from dataclasses import replace

    from coherence_metric.models.checkpoint_config import read_checkpoint_config

    config = read_checkpoint_config(bert_checkpoint)
    record = replace(config, training={"objective": "other"}, library_versions={"torch": "0"}, format_version=2)
    assert record.fingerprint() == config.fingerprint()


def test_an_edited_pooling_changes_the_signature(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    _edit_config(folder, lambda data: data.update(pooling="cls"))
    assert CoherenceScorer(str(folder)).fingerprint != CoherenceScorer(str(bert_checkpoint)).fingerprint


def test_a_delta_over_unverified_backbone_weights_is_refused(tiny_bert_dir, tmp_path):
    """With ``weights_sha256: null`` the delta would load over whatever weights sit at the backbone's path."""
    folder = _delta_over_altered_backbone(tiny_bert_dir, tmp_path)
    _edit_config(folder, lambda data: data["backbone"].update(weights_sha256=None))
    with pytest.raises(CheckpointError, match="backbone.weights_sha256 is null"):
        load_checkpoint(folder)


@pytest.mark.parametrize("edit", [
    lambda data: data.update(flavour="adapter"),
    lambda data: data.update(format_version=3, sentence_scorer={"embedding_dim": 32, "heads": 2, "layers": 1,
                                                                "max_sentences": 8, "width": 16}),
], ids=["adapter", "sentence_scorer"])
def test_an_adapter_or_a_sentence_term_without_a_backbone_hash_is_refused(bert_checkpoint, corrupt_copy, edit):
    from coherence_metric.models.checkpoint_config import read_checkpoint_config

    folder = corrupt_copy(bert_checkpoint)
    _edit_config(folder, lambda data: (edit(data), data["backbone"].update(weights_sha256=None)))
    with pytest.raises(CheckpointError, match="backbone.weights_sha256 is null"):
        read_checkpoint_config(folder)


def test_save_refuses_a_delta_over_a_backbone_without_a_hash(tiny_bert_dir, tmp_path):
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128)
    model.backbone_spec.weights_sha256 = None
    with pytest.raises(InputError, match="weights_sha256"):
        save_checkpoint(model, tmp_path / "delta", flavour="delta")
    assert not (tmp_path / "delta" / CONFIG_NAME).exists()


@pytest.mark.parametrize("listed", ["../outside.txt", "tokenizer/../../outside.txt", "ABSOLUTE"])
def test_listed_paths_outside_the_folder_are_refused(bert_checkpoint, corrupt_copy, tmp_path, listed):
    """A listed path is read to be hashed: ``../`` or an absolute path would read any file on the machine."""
    from coherence_metric.models.checkpoint_config import sha256_of_file

    folder = corrupt_copy(bert_checkpoint)
    outside = tmp_path / "outside.txt"
    outside.write_text("not part of the checkpoint")
    name = str(outside) if listed == "ABSOLUTE" else listed
    _edit_config(folder, lambda data: data["files"].update({name: sha256_of_file(outside)}))
    with pytest.raises(CheckpointError, match="not a relative path inside the checkpoint"):
        load_checkpoint(folder)


@pytest.mark.parametrize("linked", ["tokenizer/tokenizer_config.json", "tokenizer"])
def test_symlinks_out_of_the_folder_are_refused(bert_checkpoint, corrupt_copy, tmp_path, linked):
    import shutil

    folder = corrupt_copy(bert_checkpoint)
    target = tmp_path / "elsewhere" / linked
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(folder / linked), str(target))
    (folder / linked).symlink_to(target)
    with pytest.raises(CheckpointError, match="links outside the checkpoint"):
        load_checkpoint(folder)


def test_a_symlink_loop_is_refused_in_one_line(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    (folder / "tokenizer" / "loop.json").symlink_to("loop.json")
    with pytest.raises(CheckpointError, match="tokenizer/loop.json is a symlink loop"):
        load_checkpoint(folder)


def test_symlinks_inside_the_folder_are_followed(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    config = folder / "tokenizer" / "tokenizer_config.json"
    config.rename(folder / "tokenizer" / "real_config.json")
    config.symlink_to("real_config.json")
    _edit_config(folder, lambda data: data["files"].update(
        {"tokenizer/real_config.json": data["files"]["tokenizer/tokenizer_config.json"]}))
    assert load_checkpoint(folder).config.flavour == "full"


@pytest.mark.parametrize("edit, message", [
    (lambda data: data["files"].update({"head.safetensors": 123}),
     r"files\['head.safetensors'\] must be a sha256 \(64 lowercase hex digits\), got 123"),
    (lambda data: data["files"].update({"head.safetensors": "abc"}), r"files\['head.safetensors'\] must be"),
    (lambda data: data.update(files=["head.safetensors"]), "files must be a JSON object"),
    (lambda data: data["backbone"].update(weights_sha256=5), r"backbone.weights_sha256 must be a sha256"),
    (lambda data: data.update(backbone="bert"), "backbone must be a JSON object"),
    (lambda data: data["backbone"].update(name_or_path=7), "backbone.name_or_path must be a non-empty string"),
    (lambda data: data.update(max_length=None), "max_length must be a positive integer, got None"),
    (lambda data: data.update(max_length="256"), "max_length must be a positive integer, got '256'"),
    (lambda data: data.update(max_length=0), "max_length must be a positive integer, got 0"),
    (lambda data: data.update(max_length=100.5), "max_length must be a positive integer, got 100.5"),
    (lambda data: data.update(hidden_size=True), "hidden_size must be a positive integer, got True"),
    (lambda data: data.update(training=5), "training must be a JSON object"),
], ids=["hash-int", "hash-short", "files-list", "backbone-hash-int", "backbone-string", "backbone-name-int",
        "max-length-null", "max-length-string", "max-length-zero", "max-length-float", "hidden-size-bool",
        "training-int"])
def test_a_malformed_config_is_a_one_line_error_naming_the_field(bert_checkpoint, corrupt_copy, edit, message):
    folder = corrupt_copy(bert_checkpoint)
    _edit_config(folder, edit)
    with pytest.raises(CheckpointError, match=message) as raised:
        load_checkpoint(folder)
    assert CONFIG_NAME in str(raised.value) and "\n" not in str(raised.value)


def test_a_max_length_too_short_for_the_tokenizer_names_its_value(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    _edit_config(folder, lambda data: data.update(max_length=2))
    with pytest.raises(InputError, match=r"got 2 \(the checkpoint's max_length\)"):
        CoherenceScorer(str(folder))
