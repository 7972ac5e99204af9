"""What every benchmark report records about the run itself: cache use, versions, threads and wall time."""

from __future__ import annotations

import platform
import time
from typing import Any

from coherence_metric import __version__
from coherence_metric.research.cache import JsonCache


def run_facts(cache: JsonCache, started: float) -> dict[str, Any]:
    """Return the ``cache``, ``versions``, ``threads`` and ``seconds`` entries of a run's result.

    Args:
        cache: the run's score cache (its hit and miss counts).
        started: ``time.perf_counter()`` when the run began.
    """
    import torch
    import transformers

    return {
        "cache": {"dir": str(cache.root) if cache.enabled else None, "hits": cache.hits, "misses": cache.misses},
        "versions": {"coherence_metric": __version__, "transformers": transformers.__version__,
                     "torch": torch.__version__, "python": platform.python_version()},
        "threads": torch.get_num_threads(),
        "seconds": round(time.perf_counter() - started, 2),
    }
