"""The transformer layer stack of a backbone, and cutting it to its first layers (a smaller, faster student).

Why a cut and not a new architecture: the document pass is 99% of the scoring time, and a model that keeps the first
``n`` layers of the pretrained encoder costs about ``n / L`` of it while still standing on the same pretrained
weights, so a ``delta`` checkpoint can keep naming the public backbone (verified by sha256) and store only the tensors
training changed. The checkpoint records the count (``num_layers``, format 6); the loader cuts the named backbone to it
before applying the delta, so the delta of a cut layer cannot be applied by mistake.
"""

from __future__ import annotations

from typing import Iterable

from torch import nn

from ..errors import InputError


def encoder_layers(backbone: nn.Module) -> nn.ModuleList:
    """The stack of transformer layers: ``encoder.layer`` for BERT-like models, ``layer`` for XLNet."""
    encoder = getattr(backbone, "encoder", None)
    layers = getattr(encoder, "layer", None) if encoder is not None else getattr(backbone, "layer", None)
    if not isinstance(layers, nn.ModuleList):
        raise InputError(f"cannot find the transformer layers of a {type(backbone).__name__}")
    return layers


def keep_first_layers(backbone: nn.Module, count: int) -> None:
    """Keep the backbone's first ``count`` transformer layers, in place (its config says the new depth, so a
    ``save_pretrained`` copy reloads with it).

    Raises:
        InputError: ``count`` is not between 1 and the number of layers the backbone has.
    """
    layers = encoder_layers(backbone)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= len(layers):
        raise InputError(f"num_layers must be between 1 and the backbone's {len(layers)} layers, got {count!r}")
    if count < len(layers):
        keep_layers(backbone, range(count))


def keep_layers(backbone: nn.Module, positions: Iterable[int]) -> None:
    """Keep the transformer layers at ``positions`` (in that order), in place, and set the config's depth to match."""
    kept = nn.ModuleList([encoder_layers(backbone)[position] for position in positions])
    encoder = getattr(backbone, "encoder", None)
    owner: nn.Module = encoder if isinstance(encoder, nn.Module) else backbone
    owner.layer = kept
    config = getattr(backbone, "config", None)
    if config is not None:
        for key in ("num_hidden_layers", "n_layer"):  # BERT-like, XLNet
            if hasattr(config, key):
                setattr(config, key, len(kept))


__all__ = ["encoder_layers", "keep_first_layers", "keep_layers"]
