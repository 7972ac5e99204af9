"""Turning a ``model`` argument into a checkpoint folder: an alias (``default``), a packaged name, a folder or a
Hub id.

Every packaged checkpoint has an immutable name (its folder, e.g. ``cm-minilm-2026.11``) that always means the same
bytes; ``default`` is an alias for one of them, listed in ``checkpoints/aliases.json``. Signatures carry the
immutable name, never the alias, so a number signed today stays reproducible after the alias moves.

No torch here, so ``coherence-metric models`` and ``download`` stay quick.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from .checkpoint_config import CONFIG_NAME
from .errors import CheckpointError, InputError, ModelNotFoundError
from .hub import download_snapshot, is_hub_repo_id

DEFAULT_MODEL = "default"
"""The alias the API and CLI use when no model is named."""
PACKAGED_CHECKPOINTS_DIR = Path(__file__).resolve().parent / "checkpoints"
ALIASES_NAME = "aliases.json"
"""Inside ``PACKAGED_CHECKPOINTS_DIR``: ``aliases`` (alias -> packaged name) and ``history`` (package version ->
what ``default`` pointed to in it). A build without it (no checkpoints shipped) has no aliases."""
_ALIAS_KEYS = ("aliases", "history")


@dataclass(frozen=True)
class ResolvedModel:
    """Where a model argument led: the folder to load and the label that goes into the signature."""

    folder: Path
    label: str
    source: str  # "package", "local" or "hub"


@dataclass(frozen=True)
class AliasTable:
    """The validated content of ``aliases.json``: every alias and every recorded default names a packaged folder."""

    aliases: Dict[str, str] = field(default_factory=dict)
    history: Dict[str, str] = field(default_factory=dict)


def packaged_checkpoints() -> List[str]:
    """Immutable names of the checkpoints shipped inside the package (folders holding a config)."""
    if not PACKAGED_CHECKPOINTS_DIR.is_dir():
        return []
    return sorted(p.name for p in PACKAGED_CHECKPOINTS_DIR.iterdir() if (p / CONFIG_NAME).is_file())


def _string_map(path: Path, key: str, value: Any) -> Dict[str, str]:
    """``value`` as a str -> str mapping, or a one-line error naming the file and the key."""
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise CheckpointError(f"{path}: {key!r} must map names to packaged checkpoint names (strings)")
    return dict(value)


def _check_targets(path: Path, key: str, mapping: Dict[str, str], packaged: List[str]) -> None:
    """Every target must be a packaged name: an alias may not point at another alias or at a removed folder, and a
    name ``default`` once meant must still ship, so numbers signed with it can be reproduced."""
    for name, target in mapping.items():
        if target not in packaged:
            shipped = ", ".join(packaged) or "none"
            raise CheckpointError(f"{path}: {key} {name!r} points to {target!r}, which is not a packaged checkpoint "
                                  f"(packaged: {shipped})")


def read_alias_table() -> AliasTable:
    """Read and validate ``aliases.json`` beside the packaged checkpoints.

    Raises:
        CheckpointError: the file is not JSON, has other keys than ``aliases`` and ``history``, an alias shadows a
            packaged name, or an alias or history entry points to no packaged checkpoint (one line, naming the file).
    """
    path = PACKAGED_CHECKPOINTS_DIR / ALIASES_NAME
    if not path.is_file():
        return AliasTable()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"{path} is not readable JSON: {error}") from None
    if not isinstance(data, dict) or set(data) - set(_ALIAS_KEYS):
        raise CheckpointError(f"{path} must be a JSON object with the keys {', '.join(_ALIAS_KEYS)} only")
    aliases = _string_map(path, "aliases", data.get("aliases", {}))
    history = _string_map(path, "history", data.get("history", {}))
    packaged = packaged_checkpoints()
    shadowing = sorted(set(aliases) & set(packaged))
    if shadowing:
        raise CheckpointError(f"{path}: alias {shadowing[0]!r} is also a packaged checkpoint's name")
    _check_targets(path, "alias", aliases, packaged)
    _check_targets(path, "history entry", history, packaged)
    return AliasTable(aliases, history)


def packaged_aliases() -> Dict[str, str]:
    """Alias -> the immutable packaged name it stands for today (``{"default": "cm-minilm-pointwise-2026.11"}``)."""
    return read_alias_table().aliases


def _looks_like_path(name: str) -> bool:
    return name.startswith((".", "/", "~")) or "\\" in name or name.count("/") > 1


def _known_names(packaged: List[str], aliases: Dict[str, str]) -> str:
    """The packaged names and aliases, for an unknown-model message."""
    if not packaged:
        return "none shipped yet"
    listed = ", ".join(packaged)
    if aliases:
        listed += "; aliases: " + ", ".join(f"{alias} -> {target}" for alias, target in sorted(aliases.items()))
    return listed


def _resolve_folder(folder: str, revision: Optional[str]) -> ResolvedModel:
    """A ``Path`` given as the model: a checkpoint folder or an error, never an alias, packaged name or Hub id."""
    _refuse_revision(revision, f"{folder} is a local folder")
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise ModelNotFoundError(f"no checkpoint folder at {folder}")
    if not (path / CONFIG_NAME).is_file():
        raise CheckpointError(f"{folder} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
    return ResolvedModel(path.resolve(), f"local:{path.resolve().name}", "local")


def _refuse_revision(revision: Optional[str], what: str) -> None:
    """A revision names a Hub commit; for any other model it would be silently ignored, so it is refused."""
    if revision is not None:
        raise InputError(f"revision {revision!r} applies to Hub repo ids only, but {what}: drop the revision")


def resolve_model(model: Union[str, "os.PathLike[str]"], revision: Optional[str] = None,
                  local_files_only: bool = False) -> ResolvedModel:
    """Find the checkpoint folder a ``model`` argument names.

    An alias resolves to its packaged checkpoint and is labelled with that checkpoint's immutable name, the same
    result as naming the checkpoint itself.

    Args:
        model: ``"default"`` (or another alias), the name of a packaged checkpoint, a local folder, or a Hub repo id;
            a ``pathlib.Path`` (any ``os.PathLike``) always names a local folder, as in ``load_checkpoint``.
        revision: Hub revision (branch, tag or commit) for a repo id; rejected for other kinds.
        local_files_only: never use the network (``HF_HUB_OFFLINE=1`` does the same).

    Raises:
        InputError: a ``revision`` with a packaged checkpoint or a local folder.
        ModelNotFoundError: the argument names nothing that exists (or the default has not shipped yet).
        CheckpointError: a folder exists but is not a checkpoint, or the package's ``aliases.json`` is broken.
        NetworkError: a Hub id could not be fetched.
    """
    if isinstance(model, os.PathLike):
        return _resolve_folder(os.fspath(model), revision)
    if not isinstance(model, str) or not model.strip():
        raise ModelNotFoundError(f"model must be a non-empty string or a path, got {model!r}")
    packaged = packaged_checkpoints()
    aliases = packaged_aliases()
    if model == DEFAULT_MODEL and DEFAULT_MODEL not in aliases:
        from .version import __version__

        raise ModelNotFoundError(
            f"the default checkpoint has not shipped yet in coherence-metric {__version__}: "
            "pass a checkpoint folder or Hub id (model=... / --model ...)"
        )
    name = aliases.get(model, model)
    if name in packaged:
        _refuse_revision(revision, f"{model!r} is a checkpoint shipped in the package")
        return ResolvedModel(PACKAGED_CHECKPOINTS_DIR / name, name, "package")

    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / CONFIG_NAME).is_file():
            raise CheckpointError(f"{model} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
        _refuse_revision(revision, f"{model} is a local folder")
        return ResolvedModel(path.resolve(), f"local:{path.resolve().name}", "local")
    if path.exists():
        raise ModelNotFoundError(f"model {model!r} is a file; a checkpoint is a folder holding {CONFIG_NAME}")
    if _looks_like_path(model):
        raise ModelNotFoundError(f"no checkpoint folder at {model}")
    if not is_hub_repo_id(model) or "/" not in model:
        raise ModelNotFoundError(
            f"unknown model {model!r}: not a packaged checkpoint ({_known_names(packaged, aliases)}), "
            "a local folder or a Hub id like org/name"
        )
    folder = download_snapshot(model, revision, local_files_only=local_files_only)
    if not (folder / CONFIG_NAME).is_file():
        raise CheckpointError(f"Hub repo {model} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
    label = f"{model}@{revision}" if revision else model
    return ResolvedModel(folder, label, "hub")
