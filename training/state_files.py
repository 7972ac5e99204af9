"""Writing resume states so that a crash mid-write never leaves a half-written file behind."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch


def save_atomically(state: Any, path: Path) -> None:
    """``torch.save`` to a temporary file beside ``path``, then rename it over ``path`` (atomic on POSIX)."""
    temporary = path.with_name(path.name + ".tmp")
    torch.save(state, temporary)
    os.replace(temporary, path)


__all__ = ["save_atomically"]
