"""Device and dtype choices for inference, validated once with messages that name the bad value."""

from __future__ import annotations

import contextlib
from typing import Any, ContextManager, Optional

import torch

from .errors import InputError

DTYPE_ALIASES = {
    None: "fp32",
    "fp32": "fp32",
    "float32": "fp32",
    "bf16": "bf16",
    "bfloat16": "bf16",
    "fp16": "fp16",
    "float16": "fp16",
    "half": "fp16",
}
_TORCH_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def resolve_device(device: Optional[str]) -> torch.device:
    """``None`` picks the first CUDA GPU when there is one, else the CPU; anything else is validated."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError):
        raise InputError(f"unknown device {device!r}: use cpu, cuda, cuda:N or mps") from None
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r} is not available: torch sees no CUDA GPU")
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise InputError(f"device {device!r} is not available on this machine")
    return resolved


def resolve_dtype(dtype: Any, device: torch.device) -> str:
    """Canonical short name (fp32, bf16, fp16) of the compute dtype, checked against the device.

    Weights stay in fp32; bf16/fp16 run the forward pass under autocast, which keeps the numerically
    sensitive operations (softmax, layer norm) in fp32.
    """
    if isinstance(dtype, torch.dtype):
        dtype = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}.get(dtype, str(dtype))
    name = DTYPE_ALIASES.get(dtype.lower() if isinstance(dtype, str) else dtype)
    if name is None:
        raise InputError(f"unknown dtype {dtype!r}: use fp32, bf16 or fp16")
    if name == "fp16" and device.type == "cpu":
        raise InputError("dtype fp16 is not supported on the CPU: use bf16 or fp32")
    return name


def autocast_context(dtype_name: str, device: torch.device) -> ContextManager[Any]:
    """Autocast for bf16/fp16 on the given device; a no-op context for fp32."""
    if dtype_name == "fp32":
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=_TORCH_DTYPES[dtype_name])
