"""What the CPU says about itself (Linux ``/proc/cpuinfo``): its feature flags and its model name.

One reader for the dtype choice (:mod:`coherence_metric.scoring.runtime`, :mod:`coherence_metric.scoring.dtype_probe`)
and the speed report, which each parsed the file on their own.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import FrozenSet, Optional

CPUINFO = Path("/proc/cpuinfo")
#: CPU flags that mean native bf16 matrix instructions (the speed report names them). Here rather than beside the
#: dtype choice, which imports torch, so that the benchmarks' reports can read them without it.
BF16_CPU_FLAGS = frozenset({"amx_bf16", "avx512_bf16"})


def cpuinfo_value(key: str, cpuinfo: Path = CPUINFO) -> Optional[str]:
    """The value of ``key`` for the first CPU in ``cpuinfo``; None when the file is absent, unreadable or lacks it."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                name, _, value = line.partition(":")
                if name.strip() == key:
                    return value.strip()
    except OSError:
        pass
    return None


def cpu_flags(cpuinfo: Path = CPUINFO) -> FrozenSet[str]:
    """The feature flags of the first CPU in ``cpuinfo`` (Linux); empty when the file is absent or unreadable."""
    return frozenset((cpuinfo_value("flags", cpuinfo) or "").split())


def cpu_model_name(cpuinfo: Path = CPUINFO) -> str:
    """The CPU's model name (Linux ``/proc/cpuinfo``), else what :mod:`platform` says."""
    return cpuinfo_value("model name", cpuinfo) or platform.processor() or platform.machine()


__all__ = ["BF16_CPU_FLAGS", "CPUINFO", "cpu_flags", "cpu_model_name", "cpuinfo_value"]
