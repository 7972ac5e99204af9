"""Loading a transformers encoder or tokenizer from a local folder: never running code, always in float32, weights
from safetensors only.

Every place the metric hands a folder to transformers goes through here, because transformers' defaults are unsafe
for a metric: a folder whose ``config.json`` or ``tokenizer_config.json`` names custom code (``auto_map``) made it
ask "run custom code? [y/N]" on stdin and, on ``y``, import the folder's ``.py`` files; since transformers 5 a
``config.json`` saying ``bfloat16`` loaded the weights in bf16 while the signature said ``dtype:fp32``; and a
``pytorch_model.bin`` is a pickle. The folders are checked for code before they get here
(:func:`coherence_metric.models.checkpoint_config.custom_code_problem`); ``trust_remote_code=False`` is the second lock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Union

import torch

from ..errors import CheckpointError
from .quiet import quiet_transformers


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def load_encoder(folder: Union[str, Path]) -> Any:
    """The transformers encoder (``AutoModel``) saved in ``folder``, its weights in float32 whatever its config says.

    Raises:
        CheckpointError: no ``model.safetensors``, an unreadable one, or a config transformers cannot read.
    """
    from transformers import AutoModel

    try:
        with quiet_transformers():
            return AutoModel.from_pretrained(str(folder), trust_remote_code=False, dtype=torch.float32,
                                             use_safetensors=True)
    except Exception as error:  # transformers and safetensors raise many types for damaged or foreign folders
        raise CheckpointError(f"cannot load backbone weights from {folder}: {_first_line(error)}") from None


def load_tokenizer(folder: Union[str, Path]) -> Any:
    """The tokenizer saved in ``folder`` (``AutoTokenizer``), without running any code the folder names.

    Raises:
        CheckpointError: transformers cannot build a tokenizer from the folder.
    """
    from transformers import AutoTokenizer

    try:
        with quiet_transformers():
            return AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    except Exception as error:  # as above: damaged vocabularies raise many types
        raise CheckpointError(f"cannot load a tokenizer from {folder}: {_first_line(error)}") from None


__all__ = ["load_encoder", "load_tokenizer"]
