"""Merge a LoRA adapter (as PEFT saves one) into its backbone's weights, without PEFT.

Why: the accurate tier ships as a LoRA adapter over all-mpnet-base-v2, and loading it used to need ``peft``, a
training dependency that a user who only scores does not have (and whose import costs seconds). Merging is one
matrix product per adapted layer: ``W += (B @ A) * alpha / r``, the same operation, in the same order and dtype, as
``peft``'s ``merge_and_unload`` (so scores are bit-identical to a PEFT merge). Only the plain LoRA that PEFT's defaults
save is merged here; an adapter that uses another PEFT feature (DoRA, per-module ranks, trainable extra modules...)
is refused with a one-line error that says so, never merged approximately.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple

import torch
from torch import nn

from ..errors import CheckpointError
from ..safe_json import InvalidJson, parse_json

ADAPTER_CONFIG = "adapter_config.json"
ADAPTER_WEIGHTS = "adapter_model.safetensors"
_KEY_PREFIX = "base_model.model."
_A_SUFFIX = ".lora_A.weight"
_B_SUFFIX = ".lora_B.weight"

# Settings that change what a merge computes, and the value under which the plain merge below is exact. A config that
# omits one has PEFT's default (the value here); any other value is refused rather than merged wrongly.
_PLAIN_SETTINGS: Mapping[str, Any] = {
    "use_dora": False,
    "fan_in_fan_out": False,
    "bias": "none",
    "lora_bias": False,
    "modules_to_save": None,
    "layer_replication": None,
    "rank_pattern": {},
    "alpha_pattern": {},
    "trainable_token_indices": None,
    "alora_invocation_tokens": None,
    "use_qalora": False,
    "use_bdlora": None,
    "target_parameters": None,
    "arrow_config": None,
    "monteclora_config": None,
    "velora_config": None,
}


def _read_config(path: Path) -> Dict[str, Any]:
    """The adapter's config, read with the package's one JSON reader (too deep a nesting or too long an integer is
    refused as any other corrupt JSON)."""
    try:
        config = parse_json(path.read_bytes(), str(path))
    except FileNotFoundError:
        raise CheckpointError(f"{path} is missing: an adapter checkpoint needs its adapter config") from None
    except OSError as error:
        raise CheckpointError(f"{path} does not read ({error.strerror or error})") from None
    except InvalidJson as error:
        raise CheckpointError(f"{path} is corrupt: not a readable JSON file ({error.reason})") from None
    if not isinstance(config, dict):
        raise CheckpointError(f"{path} is corrupt: expected a JSON object")
    return config


def lora_scaling(config: Mapping[str, Any], path: Path) -> Tuple[int, float]:
    """The adapter's rank and the factor its ``B @ A`` is multiplied by (``alpha / r``, or ``alpha / sqrt(r)`` under
    rank-stabilised LoRA); refuses an adapter that is not a plain LoRA."""
    if config.get("peft_type") != "LORA":
        raise CheckpointError(f"{path}: peft_type {config.get('peft_type')!r} is not LORA, the only adapter kind "
                              "coherence-metric merges")
    for name, plain in _PLAIN_SETTINGS.items():
        value = config.get(name, plain)
        if value != plain and not (plain is None and value in ({}, [], False)):
            raise CheckpointError(f"{path}: {name}={value!r} is a LoRA variant coherence-metric does not merge "
                                  f"(it merges plain LoRA: {name}={plain!r})")
    rank, alpha = config.get("r"), config.get("lora_alpha")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank <= 0:
        raise CheckpointError(f"{path} is corrupt: r must be a positive integer, got {rank!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha):
        raise CheckpointError(f"{path} is corrupt: lora_alpha must be a finite number, got {alpha!r}")
    stabilised = config.get("use_rslora", False)
    return rank, float(alpha) / (math.sqrt(rank) if stabilised else rank)


def _pairs(tensors: Mapping[str, torch.Tensor], path: Path) -> Dict[str, Tuple[torch.Tensor, torch.Tensor]]:
    """Module name -> (A, B) for every adapted module; any other tensor, or half a pair, is refused."""
    halves: Dict[str, Dict[str, torch.Tensor]] = {}
    for key, tensor in tensors.items():
        if not key.startswith(_KEY_PREFIX) or not key.endswith((_A_SUFFIX, _B_SUFFIX)):
            raise CheckpointError(f"{path} holds {key!r}, which is not a LoRA weight coherence-metric merges")
        module = key[len(_KEY_PREFIX):-len(_A_SUFFIX)]
        halves.setdefault(module, {})["A" if key.endswith(_A_SUFFIX) else "B"] = tensor
    pairs: Dict[str, Tuple[torch.Tensor, torch.Tensor]] = {}
    for module, found in sorted(halves.items()):
        if set(found) != {"A", "B"}:
            raise CheckpointError(f"{path} is corrupt: {module} has lora_{''.join(found)} without its other half")
        pairs[module] = (found["A"], found["B"])
    if not pairs:
        raise CheckpointError(f"{path} holds no LoRA weights")
    return pairs


def _target_linear(backbone: nn.Module, module: str, path: Path) -> nn.Linear:
    try:
        target = backbone.get_submodule(module)
    except AttributeError:
        target = None
    if not isinstance(target, nn.Linear):
        raise CheckpointError(f"{path} does not fit its backbone: {module} is not one of its linear layers")
    return target


def merge_lora_adapter(backbone: nn.Module, folder: Path, tensors: Mapping[str, torch.Tensor]) -> List[str]:
    """Add every LoRA update of the adapter in ``folder`` (its config there; its ``tensors`` already read, from the
    verified bytes) into ``backbone``'s linear layers, in place; returns the adapted modules' names.

    Every check runs before the first weight changes, so a refused adapter leaves the backbone as it was.
    """
    config_path = folder / ADAPTER_CONFIG
    rank, scaling = lora_scaling(_read_config(config_path), config_path)
    weights_path = folder / ADAPTER_WEIGHTS
    pairs = _pairs(tensors, weights_path)
    planned: List[Tuple[nn.Linear, torch.Tensor, torch.Tensor]] = []
    for module, (a, b) in pairs.items():
        layer = _target_linear(backbone, module, weights_path)
        expected_a, expected_b = (rank, layer.in_features), (layer.out_features, rank)
        if tuple(a.shape) != expected_a or tuple(b.shape) != expected_b:
            raise CheckpointError(f"{weights_path} does not fit its backbone: {module} has lora_A {tuple(a.shape)} "
                                  f"and lora_B {tuple(b.shape)}, expected {expected_a} and {expected_b}")
        if not (torch.isfinite(a).all() and torch.isfinite(b).all()):
            raise CheckpointError(f"{weights_path} is corrupt: {module} holds a NaN or infinite weight")
        planned.append((layer, a, b))
    with torch.no_grad():
        for layer, a, b in planned:
            dtype = layer.weight.dtype
            layer.weight.data += ((b.to(dtype) @ a.to(dtype)) * scaling).to(dtype)
    return list(pairs)
