"""Whether bf16 is the faster path on this CPU: decided by a short measurement, once per machine and torch version.

Why a measurement and not the CPU's flags: on a 2-core Intel CPU reporting AVX512-BF16 without AMX, the fast tier
(MiniLM, the default then) scored 22.2 texts/s in bf16 and 31.5 in fp32 (speed suite, 256 tokens): the flag said
"native bf16" and bf16 was 30% slower *and* inexact; on a 2-core AMD EPYC with the same flag bf16 was 1.7x faster
(40.6 against 23.7, benchmarks/reports/cm-minilm-gpu-joint-2026.11/speed.json). AMX's bf16 tiles were faster on every
run measured (the accurate tier on an AMX Xeon: 6.65 against 3.66), so a CPU with AMX takes bf16 without a probe, and
a CPU without any bf16 flag takes fp32 (bf16 is emulated there). Only a CPU with AVX512-BF16 and no AMX is probed.

The probe: a two-layer BERT shaped like MiniLM (hidden 384, 12 heads, feed-forward 1536, random weights) on 8
sequences of 128 tokens, the same input in fp32 and under bf16 autocast, interleaved, best of 3 after one warm-up
each: about 0.4 s on 2 cores (on this project's AMX machine: fp32 0.043 s, bf16 0.020 s per pass). bf16 is chosen only
when it is at least :data:`BF16_MARGIN` faster. The result is cached in ``$COHERENCE_METRIC_CACHE/dtype_probe.json``
(``~/.cache/coherence_metric``), keyed by the CPU's model name and bf16 flags, the torch version and the thread count,
so later processes read the decision instead of measuring again; an unreadable cache is measured again and rewritten,
never an error. The cache is read only when it is a regular file of at most :data:`MAX_CACHE_BYTES` (read with that
bound: a link to ``/dev/zero`` was read until memory ran out), and an entry is used only when both timings are
finite and positive (a negative or infinite one would pick a dtype no measurement chose).
"""

from __future__ import annotations

import json
import math
import os
import stat
import time
from pathlib import Path
from typing import Callable, Dict, FrozenSet, Mapping, Optional

import torch

from ..atomic_write import write_atomically
from ..errors import InputError
from ..models.backbone_parts import cache_root
from ..safe_json import InvalidJson, parse_json
from .cpuinfo import cpu_model_name

#: bf16 must be this much faster than fp32 (time ratio) to be picked: a tie goes to fp32, the exact path.
BF16_MARGIN = 1.05
#: The flag that means AMX tiles for bf16 (bf16 without a probe).
AMX_FLAG = "amx_bf16"
#: The flag that means AVX512 bf16 dot products (a probe decides).
AVX512_BF16_FLAG = "avx512_bf16"
CACHE_FILE = "dtype_probe.json"
#: The largest cache file read (one entry per CPU, torch and thread count is about 150 bytes).
MAX_CACHE_BYTES = 64 * 1024

#: A probe: seconds per forward pass in each dtype, {"fp32": s, "bf16": s}.
Probe = Callable[[], Mapping[str, float]]


def choose_cpu_dtype(flags: FrozenSet[str], probe: Probe) -> str:
    """``"bf16"`` or ``"fp32"`` for a CPU with these flags; ``probe`` runs only where the flags do not decide."""
    if AMX_FLAG in flags:
        return "bf16"
    if AVX512_BF16_FLAG not in flags:
        return "fp32"
    timings = probe()
    return "bf16" if timings["bf16"] * BF16_MARGIN < timings["fp32"] else "fp32"


def measure_forward_seconds(repeats: int = 3, batch: int = 8, tokens: int = 128) -> Dict[str, float]:
    """Best-of-``repeats`` seconds of one forward pass of a MiniLM-shaped two-layer BERT (random weights, the same
    transformers code the scorer runs) in fp32 and in bf16 autocast, on the same input, the two dtypes interleaved
    so that a busy moment slows both. (torch's own ``TransformerEncoderLayer`` is no proxy: its fused inference path
    ran fp32 faster than bf16 on an AMX CPU where the scorer's bf16 is twice as fast.)"""
    torch.manual_seed(0)
    from transformers import BertConfig, BertModel  # only when a probe runs: importing transformers takes seconds

    config = BertConfig(vocab_size=1024, hidden_size=384, num_hidden_layers=2, num_attention_heads=12,
                        intermediate_size=1536, max_position_embeddings=tokens)
    model = BertModel(config, add_pooling_layer=False).eval()
    ids = torch.randint(0, config.vocab_size, (batch, tokens), generator=torch.Generator().manual_seed(0))
    mask = torch.ones_like(ids)

    def forward(dtype: str) -> float:
        started = time.perf_counter()
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=dtype == "bf16"):
            model(input_ids=ids, attention_mask=mask)
        return time.perf_counter() - started

    best = {"fp32": float("inf"), "bf16": float("inf")}
    for dtype in best:  # warm-up: oneDNN builds its kernels on first use
        forward(dtype)
    for _ in range(repeats):
        for dtype in best:
            best[dtype] = min(best[dtype], forward(dtype))
    return best


def probe_key(flags: FrozenSet[str]) -> str:
    """What a cached decision holds for: this CPU model and its bf16 flags, this torch, this many threads."""
    bf16_flags = ",".join(sorted(flag for flag in flags if "bf16" in flag))
    return f"{cpu_model_name()}|{bf16_flags}|torch {torch.__version__}|threads {torch.get_num_threads()}"


def cached_probe(flags: FrozenSet[str], measure: Optional[Probe] = None,
                 cache_file: Optional[Path] = None) -> Probe:
    """A probe that reads this machine's timings from the cache file and measures (and writes) them only when
    they are missing or unreadable; ``measure`` defaults to :func:`measure_forward_seconds`."""
    path = cache_file or cache_root() / CACHE_FILE

    def probe() -> Mapping[str, float]:
        key = probe_key(flags)
        cache = _read(path)
        known = _timings(cache.get(key))
        if known is not None:
            return known
        timings = dict((measure or measure_forward_seconds)())
        cache[key] = timings
        _write(path, cache)
        return timings

    return probe


def _timings(entry: object) -> Optional[Dict[str, float]]:
    """A cached entry's timings when both are finite positive numbers of seconds, else None (measured again)."""
    if not isinstance(entry, dict):
        return None
    values = [entry.get(name) for name in ("fp32", "bf16")]
    if not all(isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
               and value > 0 for value in values):
        return None
    return {"fp32": float(entry["fp32"]), "bf16": float(entry["bf16"])}


def _read(path: Path) -> Dict[str, object]:
    """The cache's entries; a cache that is no regular file (a FIFO, a link to a device), is larger than
    :data:`MAX_CACHE_BYTES` or does not parse (not JSON, nested too deep, an integer too long) holds none."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, to be refused below
    except OSError:
        return {}
    with os.fdopen(handle, "rb") as stream:
        try:
            if not stat.S_ISREG(os.fstat(handle).st_mode):  # the file opened, wherever a link led
                return {}
            data = stream.read(MAX_CACHE_BYTES + 1)
        except OSError:
            return {}
    if len(data) > MAX_CACHE_BYTES:
        return {}
    try:
        parsed = parse_json(data, str(path))
    except InvalidJson:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _write(path: Path, cache: Mapping[str, object]) -> None:
    """Atomically (a new file renamed over the old); a read-only cache folder costs a probe per process, no more."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(cache, indent=1, sort_keys=True), what="the dtype probe's cache")
    except (OSError, InputError):
        pass


__all__ = ["BF16_MARGIN", "cached_probe", "choose_cpu_dtype", "measure_forward_seconds", "probe_key"]
