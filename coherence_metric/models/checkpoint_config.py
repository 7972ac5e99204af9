"""The checkpoint's ``coherence_config.json``: what it holds, how it is read, and how files are fingerprinted.

This module has no torch import: the CLI lists and verifies checkpoints without loading a model.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Dict, List, Optional, Tuple

from ..errors import CheckpointError
from ..install_hints import UPGRADE_HINT
from ..safe_json import InvalidJson, parse_json
from ..version import __version__

CONFIG_NAME = "coherence_config.json"
FORMAT_VERSION = 6
"""The newest format this code reads. Checkpoints are written in the oldest format that describes them, so
older releases keep reading what they can score correctly."""
COHESION_FORMAT_VERSION = 2
"""Format 2 adds the cohesion term (``cohesion_weight`` in the head file): a release that reads only format 1
would ignore it and give other scores, so it must refuse such a checkpoint instead."""
COHESION_KEY = "cohesion_weight"
SENTENCE_SCORER_FORMAT_VERSION = 3
"""Format 3 adds the sentence-level term (``sentence_scorer`` in the config, its tensors in the head file)."""
LOCAL_TERM_FORMAT_VERSION = 4
"""Format 4 adds the local term (``local_weight`` in the head file): a text's score mixes in the mean score of its
adjacent sentence pairs, each scored alone by the same model; a release that reads only format 3 would ignore it."""
LOCAL_KEY = "local_weight"
TRANSITION_TERM_FORMAT_VERSION = 5
"""Format 5 adds the ``reference`` flavour and the transition term. A reference checkpoint holds no weights: ``base``
names a checkpoint shipped in the package (its name and fingerprint, checked at load), so a new scoring setting over
existing weights ships without copying them; ``transition_term`` mixes into each text's score the mean boundary logit
of a transition model (:mod:`coherence_metric.models.transition_term`). A release that reads only format 4 would score
the base alone, so it must refuse such a checkpoint."""
LAYER_CUT_FORMAT_VERSION = 6
"""Format 6 adds ``num_layers``: the model keeps the first ``num_layers`` transformer layers of the named backbone (a
smaller, faster student, :mod:`coherence_metric.models.layers`). A release that reads only format 5 would run every
layer of the backbone, so it must refuse such a checkpoint."""
REFERENCE_FLAVOUR = "reference"
FLAVOURS = ("full", "adapter", "delta", REFERENCE_FLAVOUR)
POOLINGS = ("last", "cls", "mean")
HEAD_FILE = "head.safetensors"
BACKBONE_DIR = "backbone"
ADAPTER_DIR = "adapter"
DELTA_FILE = "backbone_delta.safetensors"
TOKENIZER_DIR = "tokenizer"
LOADED_PATHS = (HEAD_FILE, DELTA_FILE, BACKBONE_DIR, ADAPTER_DIR, TOKENIZER_DIR)
"""Where the loaders open files. Every file there must be listed in ``files`` (so verified): an unlisted
``tokenizer/special_tokens_map.json`` alone changes the tokens, hence the scores."""
FINGERPRINT_SCHEME = 2
"""What ``CheckpointConfig.fingerprint`` hashes. Scheme 1 hashed the file list alone, so editing ``pooling`` or
``max_length`` kept the fingerprint; scheme 2 adds every config field that can change a score."""
SCORING_FIELDS = ("flavour", "backbone", "pooling", "max_length", "hidden_size", "sentence_scorer", "files")
"""The config fields a loader reads to build the model. ``training``, ``library_versions`` and ``format_version``
are a record no loader reads, so they stay out of the fingerprint."""
OPTIONAL_SCORING_FIELDS = ("base", "transition_term", "num_layers")
"""Scoring fields of formats 5 and 6, hashed only where set, so every older checkpoint keeps its fingerprint."""
CODE_SUFFIXES = (".py", ".pyc", ".pyo", ".pyd", ".so")
"""Files a checkpoint never holds: transformers imports a folder's Python modules when a config names them."""
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib", ".h5", ".msgpack", ".npy", ".npz")
"""Weight formats a checkpoint never holds: pickles (``pytorch_model.bin``) and other frameworks' files. Weights are
safetensors, which hold tensors and nothing that runs."""
CUSTOM_CODE_KEY = "auto_map"
"""The key by which a transformers ``config.json`` or ``tokenizer_config.json`` names code to import."""
MAX_CONFIG_BYTES = 1 << 20
"""The largest ``coherence_config.json`` read (1 MiB; the packaged ones are a few KiB). A 1.5 GB sparse config took
3.3 GB of memory before it was refused as corrupt: the size is checked before a byte is read."""
FIRST_FORMAT_VERSION = 1
FIELDS_FORMAT_VERSION = {"sentence_scorer": SENTENCE_SCORER_FORMAT_VERSION}
"""The first format that has each optional field: a config holding one under an older format_version claims a
format whose readers would ignore it. ``base`` and ``transition_term`` come with the reference flavour (checked as
the flavour; elsewhere they are refused as such) and ``num_layers`` is checked where it is read."""
_SHA256 = re.compile(r"[0-9a-f]{64}")
_HASH_CHUNK = 1 << 20


def sha256_of_file(path: Path) -> str:
    """Return the hex sha256 of a file, read in 1 MiB chunks so large weights do not fill memory
    (:func:`hash_and_copy` without a copy)."""
    return hash_and_copy(path)


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
    base: Optional[Dict[str, str]] = None
    transition_term: Optional[Dict[str, Any]] = None
    num_layers: Optional[int] = None

    def fingerprint(self) -> str:
        """A short hash of the files' sha256 and of every config field that can change a score (``SCORING_FIELDS``,
        as canonical JSON): two checkpoints share it only if they give the same scores from the same bytes."""
        data = self.to_dict()
        scoring = {"fingerprint_scheme": FINGERPRINT_SCHEME, **{key: data.get(key) for key in SCORING_FIELDS}}
        scoring.update({key: data[key] for key in OPTIONAL_SCORING_FIELDS if data.get(key) is not None})
        canonical = json.dumps(scoring, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]

    def files_fingerprint(self) -> str:
        """The fingerprint of scheme 1 (the file list alone): ``training.base_checkpoint`` of checkpoints written
        before scheme 2, ``cm-minilm-2026.11``'s included, records its base in it."""
        joined = "\n".join(f"{name}:{digest}" for name, digest in sorted(self.files.items()))
        return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:12]

    def to_dict(self) -> Dict[str, Any]:
        """The JSON-ready form written to ``coherence_config.json``."""
        data = asdict(self)
        data["format_version"] = self.format_version
        for key in ("sentence_scorer",) + OPTIONAL_SCORING_FIELDS:
            if data[key] is None:  # older formats have no such key
                del data[key]
        return data

    def write(self, folder: Path) -> Path:
        """Write the config into ``folder`` and return the file's path."""
        path = folder / CONFIG_NAME
        path.write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return path


def read_checkpoint_config(folder: Path) -> CheckpointConfig:
    """Read and validate ``coherence_config.json`` from a checkpoint folder.

    Every field is checked for its type here, so a malformed config is a one-line error naming the field, never a
    traceback later in the loaders.

    Raises:
        CheckpointError: the file is missing, not JSON, of a newer format, lacks a required key, holds a value of
            the wrong type, lists a path outside the folder, or leaves unverified a backbone it builds on.
    """
    path = Path(folder) / CONFIG_NAME
    if not path.is_file():
        raise CheckpointError(f"{folder} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
    data = _read_json_object(path)
    config = CheckpointConfig(
        flavour=_choice(data, "flavour", FLAVOURS, path),
        backbone=_backbone_spec(_required(data, "backbone", path), path),
        pooling=_choice(data, "pooling", POOLINGS, path),
        max_length=_positive_int(data, "max_length", path),
        hidden_size=_positive_int(data, "hidden_size", path),
        files=_file_hashes(_required(data, "files", path), path, reference=data.get("flavour") == REFERENCE_FLAVOUR),
        training=_json_object(data, "training", path),
        library_versions=_json_object(data, "library_versions", path),
        format_version=_format_version(data, Path(folder), path),
        sentence_scorer=_json_object(data, "sentence_scorer", path) if data.get("sentence_scorer") is not None
        else None,
        base=_base_reference(data, path),
        transition_term=_transition_term(data, path),
        num_layers=_num_layers(data, path),
    )
    problem = unverified_backbone(config)
    if problem:
        raise CheckpointError(f"{path} is corrupt: {problem}")
    return config


def unverified_backbone(config: CheckpointConfig, has_cohesion: bool = False) -> Optional[str]:
    """Why the config reads a pretrained backbone it cannot verify, or None.

    Adapter and delta checkpoints apply their weights over the named backbone, and the sentence-level terms
    (``sentence_scorer``, the head file's cohesion weight) embed sentences with it; without
    ``backbone.weights_sha256`` any weights found at that name would be used, so the same fingerprint could
    give other scores.
    """
    if config.backbone.weights_sha256 is not None or config.flavour == REFERENCE_FLAVOUR:  # the base verifies its own
        return None
    if config.flavour != "full":
        reader = f"a {config.flavour} checkpoint applies its weights over that backbone"
    elif config.sentence_scorer is not None or has_cohesion:
        reader = "its sentence-level term embeds sentences with that backbone"
    else:
        return None
    return f"backbone.weights_sha256 is null, but {reader}: record the sha256 of its model.safetensors"


def _shown(value: Any) -> str:
    """A config value for an error message: its repr, cut so the message stays one short line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _read_json_object(path: Path) -> Dict[str, Any]:
    """The config's JSON object, read only when at most ``MAX_CONFIG_BYTES`` (checked on the size first, then on the
    bytes read, so a file that grows in between is caught too)."""
    size = path.stat().st_size
    if size > MAX_CONFIG_BYTES:
        raise CheckpointError(f"{path} is {size} bytes, a config is at most {MAX_CONFIG_BYTES}: the checkpoint is "
                              "corrupt or not a coherence-metric checkpoint")
    with open(path, "rb") as handle:
        raw = handle.read(MAX_CONFIG_BYTES + 1)
    if len(raw) > MAX_CONFIG_BYTES:
        raise CheckpointError(f"{path} is over {MAX_CONFIG_BYTES} bytes, a config is at most {MAX_CONFIG_BYTES}: the "
                              "checkpoint is corrupt or not a coherence-metric checkpoint")
    try:
        data = parse_json(raw, str(path))
    except InvalidJson as error:
        raise CheckpointError(f"{path} is corrupt: not valid JSON ({error.reason})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path} is corrupt: expected a JSON object")
    return data


def _format_version(data: Dict[str, Any], folder: Path, path: Path) -> int:
    """The config's format version; a newer one than this code reads asks for an upgrade."""
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CheckpointError(f"{path} is corrupt: no integer format_version")
    if version < FIRST_FORMAT_VERSION:
        raise CheckpointError(f"{path} is corrupt: format_version must be at least {FIRST_FORMAT_VERSION}, got "
                              f"{version}")
    needs = {key: first for key, first in FIELDS_FORMAT_VERSION.items() if data.get(key) is not None}
    if data.get("flavour") == REFERENCE_FLAVOUR:
        needs[f"the {REFERENCE_FLAVOUR} flavour"] = TRANSITION_TERM_FORMAT_VERSION
    for what, first in needs.items():
        if version < first:  # a reader of that format would ignore the field and score something else
            raise CheckpointError(f"{path} is corrupt: it claims format_version {version}, but {what} needs "
                                  f"format_version {first} or later")
    if version > FORMAT_VERSION:
        raise CheckpointError(
            f"{folder} has checkpoint format {version}, but coherence-metric {__version__} reads up to "
            f"format {FORMAT_VERSION}: upgrade coherence-metric ({UPGRADE_HINT})"
        )
    return version


def _required(data: Dict[str, Any], key: str, path: Path) -> Any:
    if key not in data:
        raise CheckpointError(f"{path} is corrupt: missing key {key!r}")
    return data[key]


def _choice(data: Dict[str, Any], key: str, choices: Tuple[str, ...], path: Path) -> str:
    value = _required(data, key, path)
    if value not in choices:
        raise CheckpointError(f"{path} is corrupt: {key} {_shown(value)} is not one of {', '.join(choices)}")
    return str(value)


def _positive_int(data: Dict[str, Any], key: str, path: Path) -> int:
    """An integer above 0; JSON's ``true``, ``256.5`` and ``"256"`` are refused rather than converted."""
    value = _required(data, key, path)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise CheckpointError(f"{path} is corrupt: {key} must be a positive integer, got {_shown(value)}")
    return value


def _json_object(data: Dict[str, Any], key: str, path: Path) -> Dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise CheckpointError(f"{path} is corrupt: {key} must be a JSON object, got {_shown(value)}")
    return dict(value)


def _base_reference(data: Dict[str, Any], path: Path) -> Optional[Dict[str, str]]:
    """``base`` of a reference checkpoint: the packaged checkpoint's name and fingerprint (required there, refused
    elsewhere, so a checkpoint never carries weights and a base at once)."""
    value = data.get("base")
    if data.get("flavour") != REFERENCE_FLAVOUR:
        if value is not None:
            raise CheckpointError(f"{path} is corrupt: base is set, but only a {REFERENCE_FLAVOUR} checkpoint has one")
        return None
    if not isinstance(value, dict) or set(value) != {"name", "fingerprint"}:
        raise CheckpointError(f"{path} is corrupt: a {REFERENCE_FLAVOUR} checkpoint needs base "
                              f"{{\"name\": ..., \"fingerprint\": ...}}, got {_shown(value)}")
    if not all(isinstance(item, str) and item for item in value.values()) or "/" in value["name"]:
        raise CheckpointError(f"{path} is corrupt: base must name a packaged checkpoint and its fingerprint, got "
                              f"{_shown(value)}")
    return dict(value)


def _transition_term(data: Dict[str, Any], path: Path) -> Optional[Dict[str, Any]]:
    """``transition_term``: the transition model's name and fingerprint, and the weight in (0, 1) of its mean
    boundary logit in a text's score."""
    value = data.get("transition_term")
    if value is None:
        return None
    if data.get("flavour") != REFERENCE_FLAVOUR:
        raise CheckpointError(f"{path} is corrupt: transition_term is set, but only a {REFERENCE_FLAVOUR} checkpoint "
                              "can carry one")
    if not isinstance(value, dict) or set(value) != {"model", "fingerprint", "weight"}:
        raise CheckpointError(f"{path} is corrupt: transition_term needs model, fingerprint and weight, got "
                              f"{_shown(value)}")
    weight = value["weight"]
    if (not isinstance(value["model"], str) or not value["model"] or "/" in value["model"]
            or not isinstance(value["fingerprint"], str) or isinstance(weight, bool)
            or not isinstance(weight, (int, float)) or not 0.0 < weight < 1.0):
        raise CheckpointError(f"{path} is corrupt: transition_term must name a packaged transition model, its "
                              f"fingerprint and a weight between 0 and 1, got {_shown(value)}")
    return dict(value)


def _num_layers(data: Dict[str, Any], path: Path) -> Optional[int]:
    """``num_layers``: how many of the backbone's first transformer layers the model keeps (format 6; None: all).
    A reference checkpoint takes its base's model as it is, so it carries none."""
    if data.get("num_layers") is None:
        return None
    if data.get("flavour") == REFERENCE_FLAVOUR:
        raise CheckpointError(f"{path} is corrupt: num_layers is set, but a {REFERENCE_FLAVOUR} checkpoint takes its "
                              "base's model as it is")
    count = _positive_int(data, "num_layers", path)
    if isinstance(data.get("format_version"), int) and data["format_version"] < LAYER_CUT_FORMAT_VERSION:
        raise CheckpointError(f"{path} is corrupt: num_layers needs format_version {LAYER_CUT_FORMAT_VERSION}, "
                              f"got {data['format_version']}")
    return count


def _is_sha256(value: Any) -> bool:
    return isinstance(value, str) and _SHA256.fullmatch(value) is not None


def _optional_string(value: Dict[str, Any], key: str, path: Path) -> Optional[str]:
    item = value.get(key)
    if item is not None and not isinstance(item, str):
        raise CheckpointError(f"{path} is corrupt: backbone.{key} must be a string or null, got {_shown(item)}")
    return item


def _backbone_spec(value: Any, path: Path) -> BackboneSpec:
    """The ``backbone`` section, each field checked for its type."""
    if not isinstance(value, dict):
        raise CheckpointError(f"{path} is corrupt: backbone must be a JSON object, got {_shown(value)}")
    unknown = sorted(set(value) - {spec_field.name for spec_field in fields(BackboneSpec)})
    if unknown:
        raise CheckpointError(f"{path} is corrupt: backbone has unknown keys {', '.join(map(repr, unknown))}")
    name = value.get("name_or_path")
    if not isinstance(name, str) or not name.strip():
        raise CheckpointError(f"{path} is corrupt: backbone.name_or_path must be a non-empty string, "
                              f"got {_shown(name)}")
    digest = value.get("weights_sha256")
    if digest is not None and not _is_sha256(digest):
        raise CheckpointError(f"{path} is corrupt: backbone.weights_sha256 must be a sha256 (64 lowercase hex "
                              f"digits) or null, got {_shown(digest)}")
    return BackboneSpec(name_or_path=name, revision=_optional_string(value, "revision", path),
                        model_type=_optional_string(value, "model_type", path) or "", weights_sha256=digest)


def is_relative_inside(name: str) -> bool:
    """True for a POSIX path that stays inside the folder it is joined to: relative, no ``..``, ``.`` or empty
    parts, no backslash, drive or control character (``../../etc/passwd`` and ``/etc/passwd`` are refused)."""
    return (
        bool(name)
        and not any(character == "\\" or ord(character) < 32 for character in name)
        and not PurePosixPath(name).is_absolute()
        and not PureWindowsPath(name).drive
        and all(part not in ("", ".", "..") for part in name.split("/"))
    )


def _file_hashes(value: Any, path: Path, reference: bool = False) -> Dict[str, str]:
    """The ``files`` section: relative paths inside the folder, each with a lowercase hex sha256 (none for a
    reference checkpoint, whose weights are its base's)."""
    if not isinstance(value, dict):
        raise CheckpointError(f"{path} is corrupt: files must be a JSON object of path: sha256, got {_shown(value)}")
    if reference:
        if value:
            raise CheckpointError(f"{path} is corrupt: a {REFERENCE_FLAVOUR} checkpoint holds no files, but it "
                                  f"lists {_shown(sorted(value))}")
        return {}
    if not value:
        raise CheckpointError(f"{path} is corrupt: it records no file hashes")
    for name, digest in value.items():
        if not is_relative_inside(name):
            raise CheckpointError(f"{path} is corrupt: files lists {_shown(name)}, which is not a relative path "
                                  "inside the checkpoint")
        if not _is_sha256(digest):
            raise CheckpointError(f"{path} is corrupt: files[{name!r}] must be a sha256 (64 lowercase hex digits), "
                                  f"got {_shown(digest)}")
    return dict(value)


def verify_checkpoint_files(folder: Path, config: CheckpointConfig, hashes: bool = True,
                            copy_to: Optional[Path] = None) -> None:
    """Check that the loaders will read only listed, verified bytes from inside ``folder``.

    In this order, so nothing outside the folder is read: (1) the config, every listed path and everything under
    ``LOADED_PATHS`` resolves inside the folder (a Hub cache snapshot's links into its repo's ``blobs/`` too);
    (2) every file under ``LOADED_PATHS`` is listed in ``files``, and so are the head and the flavour's backbone
    files; (3) unless ``hashes`` is False, every listed file exists and has its recorded sha256.

    ``copy_to`` (a private folder the caller made): every listed file is written there, at the same relative path,
    from the very bytes that were hashed, so loading from that copy loads verified bytes. Loading from ``folder``
    after the check read each file a second time, and a file replaced in between (a hard link and ``os.replace``
    right after its hash) would be loaded unverified.

    Raises:
        CheckpointError: naming the first file that escapes the folder, is unlisted, missing or altered.
    """
    root = Path(folder)
    roots = _allowed_roots(root)
    for name in [CONFIG_NAME, *sorted(config.files)]:
        _check_inside(root, name, roots)
    present = _loaded_files(root, roots)
    problem = custom_code_problem(root, sorted(set(present) | set(config.files) | set(files_under(root))))
    if problem:
        raise CheckpointError(f"checkpoint {root} is refused: {problem}")
    unlisted = [name for name in present if name not in config.files]
    if unlisted:
        raise CheckpointError(f"checkpoint {root} is refused: {unlisted[0]} is not listed in its {CONFIG_NAME}'s "
                              "files, so its bytes cannot be verified (re-save the checkpoint)")
    _check_flavour_files(root, config)
    if hashes:
        _check_hashes(root, config, copy_to)


def files_under(root: Path) -> List[str]:
    """Every file name under ``root`` (relative, POSIX), without following folder links (a link loop ends)."""
    names: List[str] = []
    for directory, _, files in os.walk(root):
        relative = Path(directory).relative_to(root)
        names.extend((relative / name).as_posix() for name in files)
    return names


def custom_code_problem(folder: Path, names: Optional[List[str]] = None, pickles: bool = True) -> Optional[str]:
    """Why transformers could run code or unpickle data from ``folder``, or None.

    A checkpoint, or a backbone folder under one, must never run code: it may not hold Python files
    (``tokenization_x.py``), and no JSON file in it may carry ``auto_map``, the key by which transformers imports a
    folder's modules; with ``pickles`` (checkpoints) it may not hold pickled or other non-safetensors weights
    (``pytorch_model.bin``) either. A pretrained backbone folder is checked without ``pickles``: Hub downloads often
    carry a ``pytorch_model.bin`` beside ``model.safetensors``, and only the latter is ever read. ``names`` are the
    files to look at, relative to ``folder`` (default: every file under it).
    """
    root = Path(folder)
    for name in sorted(names if names is not None else files_under(root)):
        lowered = name.lower()
        if lowered.endswith(CODE_SUFFIXES):
            return f"it holds code ({name}); a checkpoint never runs code"
        if pickles and lowered.endswith(PICKLE_SUFFIXES):
            return f"it holds {name}, weights that are not safetensors (a pickle can run code): save as safetensors"
        problem = _json_problem(root / name, name) if lowered.endswith(".json") else None
        if problem:
            return problem
    return None


def _json_problem(path: Path, name: str) -> Optional[str]:
    """Why the JSON file ``path`` is refused: an object carrying ``auto_map``, or JSON nested too deeply or holding
    too long an integer for any reader (transformers' json fails on it with a traceback). Other unreadable JSON is
    left to the loaders' checks."""
    if not path.is_file():
        return None
    try:
        data = parse_json(path.read_bytes(), name)
    except OSError:
        return None
    except InvalidJson as error:
        return f"{error}, which no loader can read" if error.past_limit else None
    if isinstance(data, dict) and CUSTOM_CODE_KEY in data:
        return f"{name} names custom code ({CUSTOM_CODE_KEY}); a checkpoint never runs code"
    return None


def _allowed_roots(folder: Path) -> Tuple[Path, ...]:
    """Where a checkpoint's files may really be: inside its folder and, for a Hugging Face cache snapshot
    (``models--org--name/snapshots/<commit>/``, whose entries link to ``../../blobs/<hash>``), its repo's blobs."""
    real = folder.resolve()
    repo = real.parent.parent
    blobs = repo / "blobs"
    # blobs/ must be a real folder of the repo: a blobs link (to "/", say) would let every link lead anywhere.
    if (real.parent.name == "snapshots" and repo.name.startswith("models--") and blobs.is_dir()
            and not blobs.is_symlink() and blobs.resolve().parent == repo):
        return real, blobs.resolve()
    return (real,)


def _check_inside(root: Path, name: str, roots: Tuple[Path, ...]) -> None:
    """Refuse ``name`` when it is not a plain relative path or a symlink on its way leads out of ``roots``."""
    if not is_relative_inside(name):
        raise CheckpointError(f"checkpoint {root} is refused: {name!r} is not a relative path inside the checkpoint")
    try:
        real = (root / name).resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        raise CheckpointError(f"checkpoint {root} is refused: {name} is a symlink loop") from None
    if not any(real == allowed or real.is_relative_to(allowed) for allowed in roots):
        raise CheckpointError(f"checkpoint {root} is refused: {name} links outside the checkpoint (to {real})")


def _loaded_files(root: Path, roots: Tuple[Path, ...]) -> List[str]:
    """Every non-folder entry under ``LOADED_PATHS``, each checked to resolve inside ``roots`` before a folder
    is listed (folder links are followed once each, so a link loop ends)."""
    found: List[str] = []
    seen: set = set()
    pending = [name for name in LOADED_PATHS if (root / name).is_symlink() or (root / name).exists()]
    while pending:
        name = pending.pop()
        _check_inside(root, name, roots)
        path = root / name
        if not path.is_dir():
            found.append(name)
        elif path.resolve() not in seen:
            seen.add(path.resolve())
            pending.extend(f"{name}/{child.name}" for child in path.iterdir())
    return sorted(found)


def _check_flavour_files(root: Path, config: CheckpointConfig) -> None:
    """The head and the flavour's backbone files must be listed: a config that lists none of them would
    otherwise load whatever sits there unchecked (or fail later, less clearly)."""
    if config.flavour == REFERENCE_FLAVOUR:  # its base checks its own files when it loads
        return
    needed = {"full": BACKBONE_DIR + "/", "adapter": ADAPTER_DIR + "/", "delta": DELTA_FILE}[config.flavour]
    for required in (HEAD_FILE, needed):
        if not any(name == required or (required.endswith("/") and name.startswith(required))
                   for name in config.files):
            raise CheckpointError(f"checkpoint {root} is incomplete: its {CONFIG_NAME} lists no {required}")


def hash_and_copy(path: Path, target: Optional[Path] = None) -> str:
    """The hex sha256 of a file, read once in 1 MiB chunks; with ``target``, each chunk hashed is also written there,
    so ``target`` holds exactly the bytes the hash is of, whatever happens to ``path`` meanwhile."""
    digest = hashlib.sha256()
    with contextlib.ExitStack() as stack:
        source = stack.enter_context(open(path, "rb"))
        out = None
        if target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            out = stack.enter_context(open(target, "xb"))  # x: never through a link someone put there
        for chunk in iter(lambda: source.read(_HASH_CHUNK), b""):
            digest.update(chunk)
            if out is not None:
                out.write(chunk)
    return digest.hexdigest()


def _check_hashes(root: Path, config: CheckpointConfig, copy_to: Optional[Path] = None) -> None:
    for relative, expected in sorted(config.files.items()):
        path = root / relative
        if not path.is_file():
            raise CheckpointError(f"checkpoint {root} is incomplete: {relative} is missing")
        try:
            actual = hash_and_copy(path, None if copy_to is None else copy_to / relative)
        except OSError as error:
            raise CheckpointError(f"checkpoint {root}: cannot read {relative} ({error.strerror or error})") from None
        if actual != expected:
            raise CheckpointError(
                f"checkpoint {root} is corrupt: sha256 of {relative} is {actual[:12]}..., "
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
