"""A model that keeps the first layers of its backbone (format 6's ``num_layers``): it saves, loads back with the same
scores in every flavour, and a checkpoint whose record does not fit its weights is refused in one line."""

from __future__ import annotations

import json

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
from coherence_metric.models.checkpoint import set_local_term
from coherence_metric.models.checkpoint_config import CONFIG_NAME, LAYER_CUT_FORMAT_VERSION, read_checkpoint_config
from coherence_metric.models.layers import encoder_layers

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Farmers moved their animals to the hills. The road was closed before noon.", "A short one."]


def _one_layer_model(backbone_dir) -> CoherenceModel:
    """The tiny two-layer BERT cut to its first layer, whose layer then 'trains' (its tensors move)."""
    model = CoherenceModel.from_backbone(backbone_dir, max_length=128, seed=5)
    model.keep_first_layers(1)
    for name, parameter in model.backbone.named_parameters():
        parameter.requires_grad = name.startswith("encoder.layer.0.")
        if parameter.requires_grad:
            with torch.no_grad():
                parameter.add_(0.05)
    return model


def _scores(model: CoherenceModel, tokenizer) -> list:
    model.eval()
    with torch.no_grad():
        batch = tokenizer(TEXTS, padding=True, truncation=True, max_length=128, return_tensors="pt")
        return model(batch["input_ids"], batch["attention_mask"]).tolist()


@pytest.fixture(scope="module")
def cut_delta(tiny_bert_dir, tmp_path_factory):
    return save_checkpoint(_one_layer_model(tiny_bert_dir), tmp_path_factory.mktemp("cut") / "delta", flavour="delta")


def test_a_cut_delta_checkpoint_records_its_depth_and_loads_with_the_same_scores(tiny_bert_dir, cut_delta):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    expected = _scores(_one_layer_model(tiny_bert_dir), tokenizer)
    config = json.loads((cut_delta / CONFIG_NAME).read_text())
    assert config["num_layers"] == 1 and config["format_version"] == LAYER_CUT_FORMAT_VERSION == 6
    loaded = load_checkpoint(cut_delta)
    assert len(encoder_layers(loaded.model.backbone)) == 1 and loaded.model.num_layers == 1
    assert loaded.model.backbone.config.num_hidden_layers == 1
    assert _scores(loaded.model, loaded.tokenizer) == pytest.approx(expected, abs=1e-6)
    # the full two-layer model gives other scores: the cut is what the checkpoint scores with
    whole = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=5)
    assert _scores(whole, tokenizer) != pytest.approx(expected, abs=1e-3)


def test_a_cut_full_checkpoint_saves_the_cut_backbone_and_loads_back(tiny_bert_dir, tmp_path):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    model = _one_layer_model(tiny_bert_dir)
    expected = _scores(model, tokenizer)
    folder = save_checkpoint(model, tmp_path / "full", tokenizer=tokenizer, flavour="full")
    assert json.loads((folder / "backbone" / "config.json").read_text())["num_hidden_layers"] == 1
    scorer = CoherenceScorer(str(folder))
    assert scorer.model.num_layers == 1
    assert _scores(scorer.model, scorer.tokenizer) == pytest.approx(expected, abs=1e-6)


def test_an_xlnet_backbone_is_cut_too(tiny_xlnet_dir, tmp_path):
    from transformers import AutoTokenizer

    model = CoherenceModel.from_backbone(tiny_xlnet_dir, max_length=128, seed=5)
    model.keep_first_layers(1)
    assert len(model.backbone.layer) == 1 and model.backbone.config.n_layer == 1
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_xlnet_dir))
    folder = save_checkpoint(model, tmp_path / "xlnet", tokenizer=tokenizer, flavour="full")
    assert len(load_checkpoint(folder).model.backbone.layer) == 1


def test_the_depth_is_part_of_the_fingerprint_and_copies_with_a_term_keep_format_6(cut_delta, tmp_path):
    config = read_checkpoint_config(cut_delta)
    edited = read_checkpoint_config(cut_delta)
    edited.num_layers = 2
    assert edited.fingerprint() != config.fingerprint()
    local = set_local_term(cut_delta, tmp_path / "local", 0.5)
    assert read_checkpoint_config(local).format_version == LAYER_CUT_FORMAT_VERSION
    assert load_checkpoint(local).model.num_layers == 1


def _edited(source, tmp_path, **changes):
    import shutil

    folder = tmp_path / "edited"
    shutil.copytree(source, folder)
    path = folder / CONFIG_NAME
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))
    return folder


def test_a_delta_of_a_layer_the_record_cuts_is_refused(tiny_bert_dir, tmp_path):
    """A two-layer delta (its top layer trained) whose config is edited to keep one layer: the delta's layer-1
    tensors have nowhere to go, so the checkpoint is refused rather than scored without them."""
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=5)
    for name, parameter in model.backbone.named_parameters():
        parameter.requires_grad = name.startswith("encoder.layer.1.")
    source = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    folder = _edited(source, tmp_path, num_layers=1, format_version=6)
    with pytest.raises(CheckpointError, match=r"does not fit its backbone: unknown tensors encoder\.layer\.1\."):
        load_checkpoint(folder)


@pytest.mark.parametrize("changes, message", [
    ({"num_layers": 3}, r"does not fit its backbone: num_layers must be between 1 and the backbone's 2 layers, got 3"),
    ({"num_layers": 0}, r"num_layers must be a positive integer, got 0"),
    ({"num_layers": "1"}, r"num_layers must be a positive integer, got '1'"),
    ({"num_layers": True}, r"num_layers must be a positive integer, got True"),
    ({"format_version": 5}, r"num_layers needs format_version 6, got 5"),
])
def test_a_depth_record_that_does_not_fit_is_refused_in_one_line(cut_delta, tmp_path, changes, message):
    folder = _edited(cut_delta, tmp_path, **changes)
    with pytest.raises(CheckpointError, match=message) as caught:
        load_checkpoint(folder)
    assert "\n" not in str(caught.value)


def test_a_cut_outside_the_backbone_is_refused(tiny_bert_dir):
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=5)
    for count in (0, 3):
        with pytest.raises(InputError, match=rf"num_layers must be between 1 and the backbone's 2 layers, got {count}"):
            model.keep_first_layers(count)
    assert model.num_layers is None and len(encoder_layers(model.backbone)) == 2
