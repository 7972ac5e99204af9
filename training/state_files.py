"""Writing resume states so that a crash mid-write never leaves a half-written file behind."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import torch


def _replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """``write`` a temporary file beside ``path``, then rename it over ``path`` (atomic on POSIX)."""
    temporary = path.with_name(path.name + ".tmp")
    write(temporary)
    os.replace(temporary, path)


def save_atomically(state: Any, path: Path) -> None:
    """``torch.save`` ``state`` to ``path`` atomically."""
    _replace_atomically(path, lambda temporary: torch.save(state, temporary))


def write_text_atomically(text: str, path: Path) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    _replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


__all__ = ["save_atomically", "write_text_atomically"]
