"""Device and dtype choices for inference, validated once with messages that name the bad value.

``dtype="auto"`` (the default) picks bf16 autocast where it is the faster path and fp32 elsewhere:

- CPU: bf16 when ``/proc/cpuinfo`` (Linux) lists ``amx_bf16`` (AMX tiles, faster on every run measured); with
  ``avx512_bf16`` alone, bf16 only if a short probe measured it faster here (on one such CPU it was 1.7x faster, on
  another 30% slower: :mod:`coherence_metric.scoring.dtype_probe`, cached per machine and torch version); fp32
  everywhere else (other systems, other CPUs: bf16 there is emulated and slower than fp32);
- CUDA: bf16 when ``torch.cuda.is_bf16_supported()`` (Ampere and later), else fp32;
- MPS: fp32.

The choice is a property of the machine, the same on every call, and it is written into the signature
(``dtype:bf16`` or ``dtype:fp32``). ``COHERENCE_METRIC_DTYPE`` (fp32, bf16, fp16 or auto) replaces the automatic
choice for ``auto``; an explicit ``dtype`` argument always wins.

When ``auto`` picks bf16 by itself (no ``dtype`` given, no ``COHERENCE_METRIC_DTYPE``), the first scorer of the
process warns once (:class:`AutoBf16Warning`), as the CLI does: bf16 scores are fine to read, but fp32 is the
setting for numbers in a paper or compared across machines.
"""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from typing import Any, ContextManager, Optional

import torch

from ..errors import InputError
from .cpuinfo import BF16_CPU_FLAGS, cpu_flags, cpu_model_name
from .dtype_probe import cached_probe, choose_cpu_dtype

AUTO = "auto"
DTYPE_ENV_VAR = "COHERENCE_METRIC_DTYPE"
DTYPE_ALIASES = {
    "fp32": "fp32",
    "float32": "fp32",
    "bf16": "bf16",
    "bfloat16": "bf16",
    "fp16": "fp16",
    "float16": "fp16",
    "half": "fp16",
}
DTYPE_CHOICES = ("auto", "fp32", "bf16", "fp16")
#: Device types the scorer runs on; torch knows more (meta has no data, xpu and others are untested here).
SUPPORTED_DEVICE_TYPES = ("cpu", "cuda", "mps")
_TORCH_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def cpu_description(cores: bool = False) -> str:
    """The CPU as a measurement names it: its model name and its native bf16 flags (``Intel(R) Xeon(R) Processor
    (avx512_bf16)``, or ``(no native bf16)``), the two things that decide how fast a score runs on it; ``cores``
    adds the core count (``(avx512_bf16; 2 cores)``)."""
    flags = sorted(cpu_flags() & BF16_CPU_FLAGS)
    notes = [", ".join(flags) if flags else "no native bf16"] + ([f"{os.cpu_count()} cores"] if cores else [])
    return f"{cpu_model_name()} ({'; '.join(notes)})"


def resolve_device(device: Optional[str]) -> torch.device:
    """``None`` picks the first CUDA GPU when there is one, else the CPU; anything else is validated."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError):
        raise InputError(f"unknown device {device!r}: use cpu, cuda, cuda:N or mps") from None
    if resolved.type not in SUPPORTED_DEVICE_TYPES:  # meta, xpu, ...: torch names them, the scorer cannot run there
        raise InputError(f"device {device!r} is not supported: use cpu, cuda, cuda:N or mps")
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r} is not available: torch sees no CUDA GPU")
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise InputError(f"device {device!r} is not available on this machine")
    return resolved


@functools.lru_cache(maxsize=None)
def cpu_prefers_bf16() -> bool:
    """Whether bf16 is the faster path on this CPU (decided once per process): yes with AMX-BF16, no without any bf16
    flag, and with AVX512-BF16 alone what a short probe measured, cached per machine and torch version
    (:mod:`coherence_metric.scoring.dtype_probe`)."""
    flags = cpu_flags()
    return choose_cpu_dtype(flags, cached_probe(flags)) == "bf16"


def auto_dtype(device: torch.device) -> str:
    """What ``dtype="auto"`` means on ``device`` on this machine (ignoring the environment variable)."""
    if device.type == "cuda":
        return "bf16" if torch.cuda.is_bf16_supported() else "fp32"
    if device.type == "cpu":
        return "bf16" if cpu_prefers_bf16() else "fp32"
    return "fp32"


def _canonical(dtype: Any, source: str) -> str:
    if isinstance(dtype, torch.dtype):
        dtype = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}.get(dtype, str(dtype))
    if isinstance(dtype, str) and dtype.strip().lower() == AUTO:
        return AUTO
    name = DTYPE_ALIASES.get(dtype.strip().lower()) if isinstance(dtype, str) else None
    if name is None:
        raise InputError(f"unknown dtype {dtype!r}{source}: use auto, fp32, bf16 or fp16")
    return name


class AutoBf16Warning(UserWarning):
    """``dtype="auto"`` chose bf16 on this hardware; said once per process (the CLI says it in its own words)."""


AUTO_BF16_MESSAGE = ("dtype='auto' chose bf16 on this hardware (the faster path here; the signature says "
                     "dtype:bf16): the scores are fine to read, but fp32 is the setting for numbers in a paper or "
                     "compared across machines: pass dtype='fp32' (or set COHERENCE_METRIC_DTYPE=fp32)")
_warned_auto_bf16 = False


def _warn_auto_bf16_once() -> None:
    global _warned_auto_bf16
    if not _warned_auto_bf16:
        _warned_auto_bf16 = True
        warnings.warn(AUTO_BF16_MESSAGE, AutoBf16Warning, stacklevel=4)  # the scorer's caller


def resolve_dtype(dtype: Any, device: torch.device) -> str:
    """Canonical short name (fp32, bf16, fp16) of the compute dtype, checked against the device.

    ``None`` and ``"auto"`` take ``COHERENCE_METRIC_DTYPE`` when it is set, else :func:`auto_dtype`. Weights stay
    in fp32; bf16/fp16 run the forward passes under autocast, which keeps the numerically sensitive operations
    (softmax, layer norm) in fp32. When the machine's own choice is bf16, warns once per process
    (:class:`AutoBf16Warning`).
    """
    name = _canonical(AUTO if dtype is None else dtype, "")
    if name == AUTO:
        override = os.environ.get(DTYPE_ENV_VAR, "").strip()
        name = _canonical(override, f" in {DTYPE_ENV_VAR}") if override else AUTO
    if name == AUTO:
        name = auto_dtype(device)
        if name == "bf16":
            _warn_auto_bf16_once()
    if name == "fp16" and device.type == "cpu":
        raise InputError("dtype fp16 is not supported on the CPU: use bf16 or fp32")
    return name


def autocast_context(dtype_name: str, device: torch.device) -> ContextManager[Any]:
    """Autocast for bf16/fp16 on the given device; a no-op context for fp32."""
    if dtype_name == "fp32":
        return contextlib.nullcontext()
    return torch.autocast(device_type=torch.device(device).type, dtype=_TORCH_DTYPES[dtype_name])
