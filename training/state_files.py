"""Writing run outputs so that a crash or a kill at any moment never costs what was there before.

Files (resume states, caches): written beside the target as ``<name>.tmp-<pid>``, fsynced, renamed over it
(atomic on POSIX), and the folder fsynced so the rename itself survives a power loss.

Folders (``best/``, ``final/``, ``checkpoint/``): written whole into ``<name>.tmp-<pid>`` and fsynced; the old
folder is renamed to ``<name>.old``, the new one renamed into place, then ``<name>.old`` deleted. Recovery rule
(:func:`recover_directory`, run before every replacement and at the start of every run): when ``<name>`` is
missing, ``<name>.old`` is the previous complete folder and is renamed back; when both exist, ``<name>`` is the
new complete one and ``<name>.old`` is deleted; ``<name>.tmp-*`` folders are unfinished writes and are deleted
(``<name>.tmp-*`` files likewise, by :func:`remove_unfinished_files`). So at every moment a complete folder is
either in place or recoverable from ``<name>.old``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

import torch

from coherence_metric.errors import InputError

ASIDE_SUFFIX = ".old"


def _temporary(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place (per process: two writers never collide)."""
    return path.with_name(f"{path.name}.tmp-{os.getpid()}")


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _fsync_directory(path: Path) -> None:
    """Make a rename in ``path`` durable; a platform that cannot open folders (Windows) skips it."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _fsync_tree(folder: Path) -> None:
    """fsync every file under ``folder`` and every folder, deepest first, so the tree is on disk before its rename."""
    for root, _, files in os.walk(folder, topdown=False):
        for name in files:
            _fsync_file(Path(root) / name)
        _fsync_directory(Path(root))


def _replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """``write`` a temporary file beside ``path``, fsync it, then rename it over ``path``.

    Raises:
        InputError: the file cannot be written (a full disk, no permission): one line naming ``path``; the
            temporary file is removed and ``path`` holds what it held before.
    """
    temporary = _temporary(path)
    try:
        try:
            write(temporary)
            _fsync_file(temporary)
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except OSError as error:
        raise InputError(f"{path}: cannot write it ({error.strerror or error}); what it held before is left as it "
                         "was") from None
    _fsync_directory(path.parent)


def save_atomically(state: Any, path: Path) -> None:
    """``torch.save`` ``state`` to ``path`` atomically."""
    _replace_atomically(path, lambda temporary: torch.save(state, temporary))


def write_text_atomically(text: str, path: Path) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically (a report, a record, a manifest: never half of one)."""
    _replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def write_output(text: str, path: Path) -> None:
    """A script's output file (``--out``), its folder created, written atomically; a failure ends the script with one
    line on stderr naming the file (exit status 2), the previous file left whole."""
    try:
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"{path}: cannot write it ({error.strerror or error})") from None
        write_text_atomically(text, Path(path))
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def _numpy_array_globals() -> List[Any]:
    """What unpickling a plain numpy array needs (and nothing that can run code): states written before RNG
    states were stored as tensors hold numpy's generator state as a uint32 array."""
    import numpy as np

    try:
        from numpy._core.multiarray import _reconstruct  # numpy 2
    except ImportError:  # pragma: no cover - numpy 1
        from numpy.core.multiarray import _reconstruct  # type: ignore[no-redef]
    return [_reconstruct, np.ndarray, np.dtype, type(np.dtype(np.uint32))]


def read_state(path: Path, map_location: Any = "cpu", keys: Sequence[str] = ()) -> Dict[str, Any]:
    """A state file written by :func:`save_atomically`, unpickled with ``weights_only=True`` (tensors, numbers,
    strings, containers and, for states written by earlier versions, plain numpy arrays: a state file never runs
    code), holding at least ``keys``.

    Raises:
        InputError: one line naming the file, when it is truncated, corrupt or not a training state.
    """
    try:
        with torch.serialization.safe_globals(_numpy_array_globals()):
            state = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # truncated zip, foreign pickle, unsupported global: one line, never a traceback
        raise InputError(f"{path}: cannot resume from this file ({type(error).__name__}: it is truncated, corrupt "
                         "or not a training state); move it away to start over") from None
    missing = [key for key in keys if key not in state] if isinstance(state, dict) else ["a mapping"]
    if missing:
        raise InputError(f"{path}: cannot resume from this file (not a training state: no {missing[0]!r}); "
                         "move it away to start over")
    return state


def _aside(target: Path) -> Path:
    return target.with_name(target.name + ASIDE_SUFFIX)


def recover_directory(target: Path) -> None:
    """Apply the recovery rule (module docstring) to ``target`` after a kill during :func:`replace_directory`."""
    aside = _aside(target)
    if aside.is_dir():
        if target.is_dir():
            shutil.rmtree(aside)
        else:
            os.rename(aside, target)
            _fsync_directory(target.parent)
    if target.parent.is_dir():
        for unfinished in target.parent.glob(f"{target.name}.tmp-*"):
            if unfinished.is_dir():
                shutil.rmtree(unfinished, ignore_errors=True)


def remove_unfinished_files(target: Path) -> int:
    """Delete ``<target>.tmp-*`` files: writes of :func:`save_atomically` / :func:`write_text_atomically` that a
    SIGKILL cut off before their rename (an exception removes its own; a kill cannot). Run it at the start of a run,
    like :func:`recover_directory` for folders; returns how many were deleted."""
    removed = 0
    if Path(target).parent.is_dir():
        for unfinished in Path(target).parent.glob(f"{Path(target).name}.tmp-*"):
            if unfinished.is_file() or unfinished.is_symlink():
                unfinished.unlink(missing_ok=True)
                removed += 1
    return removed


def replace_directory(target: Path, write: Callable[[Path], object]) -> Path:
    """Let ``write`` fill a new, empty folder, then put it in place of ``target`` (module docstring).

    An exception from ``write`` deletes the unfinished folder and leaves ``target`` as it was.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    recover_directory(target)
    temporary = _temporary(target)
    temporary.mkdir()
    try:
        write(temporary)
        _fsync_tree(temporary)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    aside = _aside(target)
    if target.exists():
        os.rename(target, aside)
    os.rename(temporary, target)
    _fsync_directory(target.parent)
    if aside.exists():
        shutil.rmtree(aside)
    return target


__all__ = ["read_state", "recover_directory", "remove_unfinished_files", "replace_directory", "save_atomically",
           "write_output", "write_text_atomically"]
