"""Turning a ``model`` argument into a checkpoint folder: an alias (``default``), a packaged name, a folder or a
Hub id.

Every packaged checkpoint has an immutable name (its folder, e.g. ``cm-minilm-2026.11``) that always means the same
bytes; ``default`` is an alias for one of them, listed in ``checkpoints/aliases.json``. Signatures carry the
immutable name, never the alias, so a number signed today stays reproducible after the alias moves.

Packaged means "installed with a Python distribution", not only "inside this wheel": PyPI takes files of at most
100 MB, and every default ever shipped must keep loading, so past defaults move to *checkpoint packs*, separate
distributions (``coherence-metric-archive``, a dependency of this one) that register a folder of checkpoint folders
under the ``coherence_metric.checkpoints`` entry-point group. ``aliases.json`` pins each archived name to the sha256
of its ``coherence_config.json`` (which lists every weight file's sha256), so a pack cannot change what an old name
means; a name whose pack is not installed gets a one-line error saying which package to install.

No torch here, so ``coherence-metric models`` and ``download`` stay quick.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import warnings
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple, Union

from ..errors import CheckpointError, InputError, ModelNotFoundError
from ..install_hints import ARCHIVE_HINT
from ..version import __version__
from .checkpoint_config import CONFIG_NAME
from .hub import download_snapshot, is_hub_repo_id

DEFAULT_MODEL = "default"
"""The alias the API and CLI use when no model is named."""
PACKAGED_CHECKPOINTS_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
ALIASES_NAME = "aliases.json"
"""Inside ``PACKAGED_CHECKPOINTS_DIR``: ``aliases`` (alias -> packaged name), ``history`` (package version -> what
``default`` pointed to in it) and ``archived`` (name -> sha256 of its ``coherence_config.json``, for the checkpoints
that ship in a checkpoint pack rather than in this package). A build without it (no checkpoints shipped) has no
aliases."""
_ALIAS_KEYS = ("aliases", "history", "archived")
PACKS_GROUP = "coherence_metric.checkpoints"
"""Entry-point group of checkpoint packs: each entry point loads to a folder (``str`` or ``os.PathLike``) whose
sub-folders are checkpoints."""
ARCHIVE_DISTRIBUTION = "coherence-metric-archive"
"""The pack that holds past defaults; named in the error for an archived checkpoint that is not installed."""

logger = logging.getLogger(__name__)


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
    archived: Dict[str, str] = field(default_factory=dict)


@functools.lru_cache(maxsize=1)
def checkpoint_pack_folders() -> List[Path]:
    """The folders that installed checkpoint packs register (entry-point group ``coherence_metric.checkpoints``).

    Read once per process (``checkpoint_pack_folders.cache_clear()`` after installing one in-process). A pack whose
    entry point does not load, or does not name a folder, is skipped with a one-line warning: a broken add-on must
    not stop the checkpoints of this package from loading. The warning is a ``UserWarning``, not a log record: the
    package's logger has no handler unless the user adds one, so a logged warning was never seen (the command line
    prints warnings as one ``coherence-metric: warning:`` line; ``--quiet`` silences them).
    """
    folders = []
    for entry in sorted(metadata.entry_points(group=PACKS_GROUP), key=lambda entry: entry.name):
        try:
            folder = Path(os.fspath(entry.load())).resolve()
        except Exception as error:  # any failure inside a third party's import: report it, keep going
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            _warn(f"checkpoint pack {entry.name!r} ({entry.value}) does not load, skipped: {reason}")
            continue
        if not folder.is_dir():
            _warn(f"checkpoint pack {entry.name!r} names {folder}, which is not a folder, skipped")
            continue
        folders.append(folder)
    return folders


def _checkpoints_in(folder: Path) -> Dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {p.name: p for p in sorted(folder.iterdir()) if (p / CONFIG_NAME).is_file()}


def _warn(message: str) -> None:
    """One line about an add-on this package passes over (the newlines of a third party's text removed).

    Attributed to this line, whoever asked for the folders, so that Python's once-per-place rule prints it once per
    process although every model lookup lists the folders again.
    """
    warnings.warn(" ".join(message.split("\n")), UserWarning, stacklevel=1)


def _reserved_names() -> Tuple[Set[str], Dict[str, str]]:
    """The aliases (``default`` always among them) and the archived pins of ``aliases.json``, read leniently: a
    broken file is reported by :func:`read_alias_table`, in one line, not here.

    A name the file also uses as a checkpoint's (an alias target, a history entry, an archived name) is not
    reserved as an alias: an alias of that name is the file's own mistake, which :func:`read_alias_table` names.
    """
    aliases: Set[str] = {DEFAULT_MODEL}
    archived: Dict[str, str] = {}
    try:
        data = json.loads((PACKAGED_CHECKPOINTS_DIR / ALIASES_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return aliases, archived
    if not isinstance(data, dict):
        return aliases, archived
    tables = {key: data[key] for key in _ALIAS_KEYS if isinstance(data.get(key), dict)}
    archived = {name: pin for name, pin in tables.get("archived", {}).items()
                if isinstance(name, str) and isinstance(pin, str)}
    checkpoint_names = {value for key in ("aliases", "history") for value in tables.get(key, {}).values()}
    aliases.update(name for name in tables.get("aliases", {})
                   if isinstance(name, str) and name not in checkpoint_names and name not in archived)
    return aliases, archived


def _pin_matches(path: Path, pin: str) -> bool:
    try:
        return config_sha256(path) == pin
    except OSError:
        return False


def packaged_checkpoint_folders() -> Dict[str, Path]:
    """Immutable name -> folder, for every checkpoint installed with this package or with a checkpoint pack.

    This package's own folder comes first: a pack cannot replace a checkpoint it ships. A pack is a third party's
    add-on and must never block this package's names, so some of its entries are passed over with a one-line
    warning: one named like a checkpoint or an alias of this package (a pack folder ``default`` used to make every
    model, the package's own included, fail with "alias 'default' is also a packaged checkpoint's name"), and a copy
    of an archived name that misses its pin while another pack (the archive) has the pinned one (a pack sorting
    before the archive used to block the archived name). When no pack has the pinned bytes, the first copy is kept,
    so that :func:`packaged_folder` refuses it in one line naming the file.
    """
    found = dict(_checkpoints_in(PACKAGED_CHECKPOINTS_DIR))
    own = set(found)
    aliases, archived = _reserved_names()
    unpinned: Dict[str, Path] = {}  # archived names whose pack copy misses the pin, while none better is found
    for folder in checkpoint_pack_folders():
        for name, path in _checkpoints_in(folder).items():
            if name in own or name in aliases:
                what = "an alias" if name in aliases else "a checkpoint"
                _warn(f"checkpoint pack {folder} holds {name!r}, the name of {what} of coherence-metric itself: "
                      "that entry is ignored")
            elif name in found:
                continue  # an earlier pack has it: the first installed copy wins, as before
            elif name in archived and not _pin_matches(path, archived[name]):
                unpinned.setdefault(name, path)
            else:
                found[name] = path
    for name, path in unpinned.items():
        if name in found:
            _warn(f"{path / CONFIG_NAME}: checkpoint {name!r} is not the one its name was pinned to: ignored, "
                  f"{found[name]} is used")
        else:
            found[name] = path
    return found


def packaged_checkpoints() -> List[str]:
    """Immutable names of the installed checkpoints: shipped inside the package or in an installed pack."""
    return sorted(packaged_checkpoint_folders())


def config_sha256(folder: Path) -> str:
    """sha256 of a checkpoint's ``coherence_config.json``: the pin of an archived name (the config lists the sha256
    of every file the checkpoint loads, so pinning it pins them all)."""
    return hashlib.sha256((folder / CONFIG_NAME).read_bytes()).hexdigest()


def packaged_folder(name: str, folders: Optional[Dict[str, Path]] = None,
                    archived: Optional[Dict[str, str]] = None) -> Path:
    """The folder of the installed checkpoint ``name``, checked against its pin when it is an archived one.

    ``folders`` and ``archived`` take what the caller has already read (:func:`packaged_checkpoint_folders`,
    :func:`read_alias_table`'s ``archived``), so one lookup scans the folders and reads ``aliases.json`` once.

    Raises:
        ModelNotFoundError: ``name`` is archived and no installed pack has it (the message names the package), or it
            is not installed at all.
        CheckpointError: an installed pack's copy differs from the bytes the name was pinned to.
    """
    if folders is None:
        folders = packaged_checkpoint_folders()
    if archived is None:
        archived = read_alias_table(sorted(folders)).archived
    if name not in folders:
        if name in archived:
            raise ModelNotFoundError(
                f"checkpoint {name!r} is archived in the {ARCHIVE_DISTRIBUTION} package, which is not installed: "
                f"{ARCHIVE_HINT}")
        raise ModelNotFoundError(f"checkpoint {name!r} is not installed")
    folder = folders[name]
    if name in archived:
        found = config_sha256(folder)
        if found != archived[name]:
            raise CheckpointError(
                f"{folder / CONFIG_NAME}: checkpoint {name!r} is not the one its name was pinned to (config sha256 "
                f"{found[:12]}, pinned {archived[name][:12]}): reinstall {ARCHIVE_DISTRIBUTION}")
    return folder


def _string_map(path: Path, key: str, value: Any) -> Dict[str, str]:
    """``value`` as a str -> str mapping, or a one-line error naming the file and the key."""
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise CheckpointError(f"{path}: {key!r} must map names to packaged checkpoint names (strings)")
    return dict(value)


def _check_targets(path: Path, key: str, mapping: Dict[str, str], packaged: List[str]) -> None:
    """Every target must be a packaged name: an alias may not point at another alias or at a removed folder, and a
    name ``default`` once meant must still ship (here or, when archived, in a pack), so numbers signed with it can
    be reproduced."""
    for name, target in mapping.items():
        if target not in packaged:
            shipped = ", ".join(packaged) or "none"
            raise CheckpointError(f"{path}: {key} {name!r} points to {target!r}, which is not a packaged checkpoint "
                                  f"(packaged: {shipped})")


def read_alias_table(packaged: Optional[List[str]] = None) -> AliasTable:
    """Read and validate ``aliases.json`` beside the packaged checkpoints (``packaged``: the installed names, when the
    caller has already listed them).

    Raises:
        CheckpointError: the file is not JSON, has other keys than ``aliases``, ``history`` and ``archived``, an
            alias shadows a packaged name, an alias points to no installed checkpoint, a history entry to neither an
            installed nor an archived one, or an archived pin is not a sha256 (one line, naming the file).
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
    archived = _string_map(path, "archived", data.get("archived", {}))
    for name, pin in archived.items():
        if len(pin) != 64 or any(c not in "0123456789abcdef" for c in pin):
            raise CheckpointError(f"{path}: archived {name!r} must be pinned to a sha256 (64 hex digits), got {pin!r}")
    if packaged is None:
        packaged = packaged_checkpoints()
    shadowing = sorted(set(aliases) & (set(packaged) | set(archived)))
    if shadowing:
        raise CheckpointError(f"{path}: alias {shadowing[0]!r} is also a packaged checkpoint's name")
    _check_targets(path, "alias", aliases, packaged)
    _check_targets(path, "history entry", history, sorted(set(packaged) | set(archived)))
    return AliasTable(aliases, history, archived)


def _looks_like_path(name: str) -> bool:
    return name.startswith((".", "/", "~")) or "\\" in name or name.count("/") > 1


def _known_names(packaged: List[str], aliases: Dict[str, str]) -> str:
    """The packaged names and aliases, for an unknown-model message."""
    if not packaged:
        return "none shipped yet"
    listed = ", ".join(sorted(packaged))
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


def _warn_if_hub_id(model: str) -> None:
    """Warn that a relative folder named like a Hub repo id (``acme/coherence-x``) wins over the Hub repo.

    The folder is used, as before, but a stray folder in the working directory would otherwise silently replace
    the Hub checkpoint the user meant (only ``local:`` in the signature tells); the warning says how to get either
    one on purpose. Attributed to this line, so Python prints it once per process for each model name.
    """
    if _looks_like_path(model) or "/" not in model or not is_hub_repo_id(model):
        return
    warnings.warn(
        f"model {model!r} is both a local folder and a Hub repo id: using the folder ./{model}; "
        f"pass ./{model} to use the folder without this warning, or rename or remove the folder to use the Hub repo",
        UserWarning, stacklevel=1,
    )


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
    folders = packaged_checkpoint_folders()
    packaged = sorted(folders)
    table = read_alias_table(packaged)
    aliases = table.aliases
    if model == DEFAULT_MODEL and DEFAULT_MODEL not in aliases:
        raise ModelNotFoundError(
            f"the default checkpoint has not shipped yet in coherence-metric {__version__}: "
            "pass a checkpoint folder or Hub id (model=... / --model ...)"
        )
    name = aliases.get(model, model)
    if name in packaged or name in table.archived:
        _refuse_revision(revision, f"{model!r} is a checkpoint shipped in the package")
        return ResolvedModel(packaged_folder(name, folders, table.archived), name, "package")

    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / CONFIG_NAME).is_file():
            raise CheckpointError(f"{model} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
        _refuse_revision(revision, f"{model} is a local folder")
        _warn_if_hub_id(model)
        return ResolvedModel(path.resolve(), f"local:{path.resolve().name}", "local")
    if path.exists():
        raise ModelNotFoundError(f"model {model!r} is a file; a checkpoint is a folder holding {CONFIG_NAME}")
    if _looks_like_path(model):
        raise ModelNotFoundError(f"no checkpoint folder at {model}")
    if not is_hub_repo_id(model) or "/" not in model:
        known = _known_names(sorted(set(packaged) | set(table.archived)), aliases)
        raise ModelNotFoundError(
            f"unknown model {model!r}: not a packaged checkpoint ({known}), "
            "a local folder or a Hub id like org/name"
        )
    folder = download_snapshot(model, revision, local_files_only=local_files_only)
    if not (folder / CONFIG_NAME).is_file():
        raise CheckpointError(f"Hub repo {model} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
    label = f"{model}@{revision}" if revision else model
    return ResolvedModel(folder, label, "hub")
