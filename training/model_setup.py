"""Building the model a recipe trains: backbone resolution, which weights train (all, top layers, LoRA)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Tuple

import torch
from torch import nn

from coherence_metric import CoherenceModel, load_checkpoint
from coherence_metric.errors import InputError
from coherence_metric.toolkit import (
    BackboneSpec,
    encoder_layers,
    peft_deprecation_hidden,
    resolve_backbone_folder,
    resolve_model,
    sha256_of_file,
)

from .config import RecipeConfig

logger = logging.getLogger("coherence_metric.training")


def backbone_folder(name_or_path: str, revision: Any = None) -> Path:
    """A local folder with the backbone: the path itself, the HF cache, an installed package, or the Hub."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return path
    return resolve_backbone_folder(BackboneSpec(name_or_path=name_or_path, revision=revision))


def freeze(backbone: nn.Module, freeze_embeddings: bool, train_layers: Any) -> None:
    """Freeze the embeddings and/or every layer below the top ``train_layers`` ones.

    Why: on a CPU the embedding matrix (12M of all-MiniLM-L6-v2's 22.7M parameters) costs optimiser
    memory and time but barely moves at small learning rates, and a frozen matrix can be taken from the
    named backbone, which keeps delta checkpoints small enough to ship.
    """
    for name, parameter in backbone.named_parameters():
        if name.startswith("pooler."):  # BERT's pooler is never used: our pooling reads the hidden states
            parameter.requires_grad_(False)
    if freeze_embeddings or train_layers is not None:
        for name, parameter in backbone.named_parameters():
            if "embed" in name or name.startswith("mask_emb"):
                parameter.requires_grad_(False)
    if train_layers is not None:
        layers = encoder_layers(backbone)
        if not 0 <= train_layers <= len(layers):
            raise InputError(f"train.train_layers must be between 0 and {len(layers)}, got {train_layers}")
        for layer in list(layers)[: len(layers) - train_layers]:
            for parameter in layer.parameters():
                parameter.requires_grad_(False)


def apply_lora(model: CoherenceModel, recipe: RecipeConfig) -> None:
    """Wrap the backbone in a PEFT LoRA model (the head stays fully trainable).

    XLNet keeps its attention projections as raw parameters (``q``, ``k``, ``v``, ``o``, ``r``), not
    Linear layers, so LoRA can only reach its feed-forward layers (``layer_1``, ``layer_2``); use
    ``train_layers`` to fine-tune XLNet's attention on a CPU instead.
    """
    from peft import LoraConfig, get_peft_model


    assert recipe.lora is not None
    targets = list(recipe.lora.target_modules)
    names = {name.split(".")[-1] for name, module in model.backbone.named_modules() if isinstance(module, nn.Linear)}
    if not set(targets) & names:
        hint = " (XLNet: only its feed-forward layers layer_1 and layer_2 are Linear)" if "layer_1" in names else ""
        raise InputError(f"lora.target_modules {targets} match no Linear layer of the backbone{hint}")
    config = LoraConfig(r=recipe.lora.r, lora_alpha=recipe.lora.alpha, lora_dropout=recipe.lora.dropout,
                        target_modules=[target for target in targets if target in names])
    with peft_deprecation_hidden():
        model.backbone = get_peft_model(model.backbone, config)


def set_dropout(backbone: nn.Module, probability: float) -> int:
    """Set every dropout layer of the backbone to ``probability``; returns how many there were.

    Why: at the start of training the score gap between a document and its permutations (~0.01 for
    all-MiniLM-L6-v2 with a fresh head) is as large as the score noise dropout adds (std ~0.01), so with
    batch-1 steps the gradient is half noise. Only training changes; inference runs in eval mode anyway.
    """
    layers = [module for module in backbone.modules() if isinstance(module, nn.Dropout)]
    for layer in layers:
        layer.p = probability
    return len(layers)


def start_from_checkpoint(model: CoherenceModel, name: str) -> None:
    """Copy a coherence checkpoint's backbone and head into ``model``, which must stand on the same backbone."""
    loaded = load_checkpoint(resolve_model(name, local_files_only=True).folder)
    ours, theirs = model.backbone_spec, loaded.model.backbone_spec
    if theirs.weights_sha256 != ours.weights_sha256 or loaded.model.hidden_size != model.hidden_size:
        raise InputError(f"init_checkpoint {name!r} stands on backbone {theirs.name_or_path} "
                         f"(weights {str(theirs.weights_sha256)[:12]}), not on the recipe's {ours.name_or_path} "
                         f"(weights {str(ours.weights_sha256)[:12]})")
    if loaded.model.sentence_scorer is not None:
        raise InputError(f"init_checkpoint {name!r} has a sentence-level term, which this recipe would drop: start "
                         "from the checkpoint it was added to (its config's training.base_checkpoint)")
    if loaded.model.num_layers is not None:  # a cut start: the model keeps its depth before any further cut
        model.keep_first_layers(loaded.model.num_layers)
    model.backbone.load_state_dict(loaded.model.backbone.state_dict())
    model.head.load_state_dict(loaded.model.head.state_dict())
    logger.info("model: starting from checkpoint %s", name)


def build_model(recipe: RecipeConfig, seed: int) -> Tuple[CoherenceModel, Any]:
    """The recipe's model (pretrained backbone, seeded fresh head, freezing or LoRA) and its tokenizer."""
    from transformers import AutoTokenizer

    folder = backbone_folder(recipe.backbone, recipe.backbone_revision)
    model = CoherenceModel.from_backbone(folder, pooling=recipe.pooling, max_length=recipe.max_length, seed=seed)
    weights = folder / "model.safetensors"
    model.backbone_spec = BackboneSpec(
        name_or_path=recipe.backbone,
        revision=recipe.backbone_revision,
        model_type=model.backbone_spec.model_type,
        weights_sha256=sha256_of_file(weights) if weights.is_file() else None,
    )
    if recipe.init_checkpoint:
        start_from_checkpoint(model, recipe.init_checkpoint)
    if recipe.objective.cohesion_weight is not None:
        model.cohesion_weight = torch.tensor(float(recipe.objective.cohesion_weight))
    freeze(model.backbone, recipe.train.freeze_embeddings, recipe.train.train_layers)
    if recipe.train.dropout is not None:
        set_dropout(model.backbone, recipe.train.dropout)
    if recipe.lora is not None:
        apply_lora(model, recipe)
    tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    trainable = sum(parameter.numel() for parameter in model.parameters() if parameter.requires_grad)
    total = sum(parameter.numel() for parameter in model.parameters())
    logger.info("model: %s, %d of %d parameters trainable", recipe.backbone, trainable, total)
    return model, tokenizer
