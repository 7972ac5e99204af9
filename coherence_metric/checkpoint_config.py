"""The checkpoint's ``coherence_config.json``: what it holds, how it is read, and how files are fingerprinted.

This module has no torch import: the CLI lists and verifies checkpoints without loading a model.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional

from .errors import CheckpointError

CONFIG_NAME = "coherence_config.json"
FORMAT_VERSION = 3
"""The newest format this code reads. Checkpoints are written in the oldest format that describes them, so
older releases keep reading what they can score correctly."""
COHESION_FORMAT_VERSION = 2
"""Format 2 adds the cohesion term (``cohesion_weight`` in the head file): a release that reads only format 1
would ignore it and give other scores, so it must refuse such a checkpoint instead."""
COHESION_KEY = "cohesion_weight"
SENTENCE_SCORER_FORMAT_VERSION = 3
"""Format 3 adds the sentence-level term (``sentence_scorer`` in the config, its tensors in the head file)."""
FLAVOURS = ("full", "adapter", "delta")
POOLINGS = ("last", "cls", "mean")
HEAD_FILE = "head.safetensors"
BACKBONE_DIR = "backbone"
ADAPTER_DIR = "adapter"
DELTA_FILE = "backbone_delta.safetensors"
TOKENIZER_DIR = "tokenizer"
_HASH_CHUNK = 1 << 20


def sha256_of_file(path: Path) -> str:
    """Return the hex sha256 of a file, read in 1 MiB chunks so large weights do not fill memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_HASH_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class BackboneSpec:
    """Which pretrained encoder a checkpoint stands on, precisely enough to find the same bytes again.

    Attributes:
        name_or_path: a Hub repo id (``sentence-transformers/all-MiniLM-L6-v2``) or a local folder.
        revision: a pinned Hub revision (commit sha or tag); None means the repo's default branch.
        model_type: the transformers ``model_type`` (``bert``, ``xlnet``, ...), used to pick pooling.
        weights_sha256: sha256 of the backbone's ``model.safetensors``; adapter and delta checkpoints
            refuse a backbone whose weights differ, because the delta would then be applied to other weights.
    """

    name_or_path: str
    revision: Optional[str] = None
    model_type: str = ""
    weights_sha256: Optional[str] = None


@dataclass
class CheckpointConfig:
    """The parsed ``coherence_config.json`` of a checkpoint folder."""

    flavour: str
    backbone: BackboneSpec
    pooling: str
    max_length: int
    hidden_size: int
    files: Dict[str, str] = field(default_factory=dict)
    training: Dict[str, Any] = field(default_factory=dict)
    library_versions: Dict[str, str] = field(default_factory=dict)
    format_version: int = FORMAT_VERSION
    sentence_scorer: Optional[Dict[str, int]] = None

    def fingerprint(self) -> str:
        """A short hash of every recorded file hash: two checkpoints share it only if their bytes match."""
        joined = "\n".join(f"{name}:{digest}" for name, digest in sorted(self.files.items()))
        return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:12]

    def to_dict(self) -> Dict[str, Any]:
        """The JSON-ready form written to ``coherence_config.json``."""
        data = asdict(self)
        data["format_version"] = self.format_version
        if self.sentence_scorer is None:  # older formats have no such key
            del data["sentence_scorer"]
        return data

    def write(self, folder: Path) -> Path:
        """Write the config into ``folder`` and return the file's path."""
        path = folder / CONFIG_NAME
        path.write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return path


def read_checkpoint_config(folder: Path) -> CheckpointConfig:
    """Read and validate ``coherence_config.json`` from a checkpoint folder.

    Raises:
        CheckpointError: the file is missing, not JSON, of a newer format, or lacks a required key.
    """
    path = Path(folder) / CONFIG_NAME
    if not path.is_file():
        raise CheckpointError(f"{folder} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"{path} is corrupt: not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path} is corrupt: expected a JSON object")
    version = data.get("format_version")
    if not isinstance(version, int):
        raise CheckpointError(f"{path} is corrupt: no integer format_version")
    if version > FORMAT_VERSION:
        from .version import __version__

        raise CheckpointError(
            f"{folder} has checkpoint format {version}, but coherence-metric {__version__} reads up to "
            f"format {FORMAT_VERSION}: upgrade with `pip install -U coherence-metric`"
        )
    try:
        config = CheckpointConfig(
            flavour=data["flavour"],
            backbone=BackboneSpec(**data["backbone"]),
            pooling=data["pooling"],
            max_length=int(data["max_length"]),
            hidden_size=int(data["hidden_size"]),
            files=dict(data.get("files", {})),
            training=dict(data.get("training", {})),
            library_versions=dict(data.get("library_versions", {})),
            format_version=version,
            sentence_scorer=data.get("sentence_scorer"),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise CheckpointError(f"{path} is corrupt: missing or malformed key {error}") from None
    if config.flavour not in FLAVOURS:
        raise CheckpointError(f"{path} is corrupt: flavour {config.flavour!r} is not one of {', '.join(FLAVOURS)}")
    if config.pooling not in POOLINGS:
        raise CheckpointError(f"{path} is corrupt: pooling {config.pooling!r} is not one of {', '.join(POOLINGS)}")
    if not config.files:
        raise CheckpointError(f"{path} is corrupt: it records no file hashes")
    if config.sentence_scorer is not None and not isinstance(config.sentence_scorer, dict):
        raise CheckpointError(f"{path} is corrupt: sentence_scorer must be a JSON object")
    return config


def verify_checkpoint_files(folder: Path, config: CheckpointConfig) -> None:
    """Check that every file the config records exists and has the recorded sha256.

    Raises:
        CheckpointError: naming the first missing or altered file.
    """
    for relative, expected in sorted(config.files.items()):
        path = Path(folder) / relative
        if not path.is_file():
            raise CheckpointError(f"checkpoint {folder} is incomplete: {relative} is missing")
        actual = sha256_of_file(path)
        if actual != expected:
            raise CheckpointError(
                f"checkpoint {folder} is corrupt: sha256 of {relative} is {actual[:12]}..., "
                f"expected {expected[:12]}... (re-download or re-save it)"
            )


def make_files_readable(folder: Path) -> None:
    """Give every file under ``folder`` the permissions the user's umask grants new files.

    safetensors writes its files with mode 0600 whatever the umask, so a checkpoint copied to a shared folder or
    a container image would be unreadable by other users; plain files written by ``open`` get ``0666 & ~umask``.
    """
    umask = os.umask(0)
    os.umask(umask)
    for path in Path(folder).rglob("*"):
        if path.is_file():
            path.chmod(0o666 & ~umask)


def hash_folder_files(folder: Path) -> Dict[str, str]:
    """sha256 of every file under ``folder`` except the config itself, keyed by POSIX relative path."""
    hashes: Dict[str, str] = {}
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file() and path.name != CONFIG_NAME:
            hashes[path.relative_to(folder).as_posix()] = sha256_of_file(path)
    return hashes
