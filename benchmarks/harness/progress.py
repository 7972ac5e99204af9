"""The progress bar of long benchmark runs: tqdm on stderr when asked for and installed, otherwise nothing."""

from __future__ import annotations

from typing import Any


def progress_bar(total: int, enabled: bool, description: str = "benchmark") -> Any:
    """Return a tqdm bar on stderr counting ``total`` scoring steps, or None when disabled or tqdm is missing."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=description, unit="score")
