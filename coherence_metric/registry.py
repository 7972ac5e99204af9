"""Turning a ``model`` argument into a checkpoint folder: ``default``, a packaged name, a folder or a Hub id.

No torch here, so ``coherence-metric models`` and ``download`` stay quick.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from .checkpoint_config import CONFIG_NAME
from .errors import CheckpointError, ModelNotFoundError
from .hub import download_snapshot, is_hub_repo_id

DEFAULT_MODEL = "default"
PACKAGED_CHECKPOINTS_DIR = Path(__file__).resolve().parent / "checkpoints"


@dataclass(frozen=True)
class ResolvedModel:
    """Where a model argument led: the folder to load and the label that goes into the signature."""

    folder: Path
    label: str
    source: str  # "package", "local" or "hub"


def packaged_checkpoints() -> List[str]:
    """Names of the checkpoints shipped inside the package (folders holding a config)."""
    if not PACKAGED_CHECKPOINTS_DIR.is_dir():
        return []
    return sorted(p.name for p in PACKAGED_CHECKPOINTS_DIR.iterdir() if (p / CONFIG_NAME).is_file())


def _looks_like_path(name: str) -> bool:
    return name.startswith((".", "/", "~")) or "\\" in name or name.count("/") > 1


def resolve_model(model: str, revision: Optional[str] = None, local_files_only: bool = False) -> ResolvedModel:
    """Find the checkpoint folder a ``model`` argument names.

    Args:
        model: ``"default"``, the name of a packaged checkpoint, a local folder, or a Hub repo id.
        revision: Hub revision (branch, tag or commit) for a repo id; rejected for other kinds.
        local_files_only: never use the network (``HF_HUB_OFFLINE=1`` does the same).

    Raises:
        ModelNotFoundError: the argument names nothing that exists (or the default has not shipped yet).
        CheckpointError: a folder exists but is not a checkpoint.
        NetworkError: a Hub id could not be fetched.
    """
    if not isinstance(model, str) or not model.strip():
        raise ModelNotFoundError(f"model must be a non-empty string, got {model!r}")
    packaged = packaged_checkpoints()
    if model == DEFAULT_MODEL and DEFAULT_MODEL not in packaged:
        from .version import __version__

        raise ModelNotFoundError(
            f"the default checkpoint has not shipped yet in coherence-metric {__version__}: "
            "pass a checkpoint folder or Hub id (model=... / --model ...)"
        )
    if model in packaged:
        return ResolvedModel(PACKAGED_CHECKPOINTS_DIR / model, model, "package")

    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / CONFIG_NAME).is_file():
            raise CheckpointError(f"{model} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
        return ResolvedModel(path.resolve(), f"local:{path.resolve().name}", "local")
    if path.exists():
        raise ModelNotFoundError(f"model {model!r} is a file; a checkpoint is a folder holding {CONFIG_NAME}")
    if _looks_like_path(model):
        raise ModelNotFoundError(f"no checkpoint folder at {model}")
    if not is_hub_repo_id(model) or "/" not in model:
        names = ", ".join(packaged) or "none shipped yet"
        raise ModelNotFoundError(
            f"unknown model {model!r}: not a packaged checkpoint ({names}), a local folder or a Hub id like org/name"
        )
    folder = download_snapshot(model, revision, local_files_only=local_files_only)
    if not (folder / CONFIG_NAME).is_file():
        raise CheckpointError(f"Hub repo {model} is not a coherence-metric checkpoint: it has no {CONFIG_NAME}")
    label = f"{model}@{revision}" if revision else model
    return ResolvedModel(folder, label, "hub")
