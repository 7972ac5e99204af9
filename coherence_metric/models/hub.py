"""Fetching folders from the Hugging Face Hub, offline-first, with errors that say what really went wrong.

A failed download is reported as a network failure or an offline cache miss, never as "unknown model"
(COMET turned offline errors into "model not supported"; users could not tell what to fix).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from ..errors import ModelNotFoundError, NetworkError

_TRUE_VALUES = {"1", "on", "yes", "true"}


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` is set, read at call time so a change after import is honoured."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE_VALUES


def is_hub_repo_id(name: str) -> bool:
    """True for a syntactically valid Hub repo id such as ``org/name`` (a local path never is one)."""
    if name.startswith((".", "/", "~")) or os.sep in name.replace("/", "") or name.count("/") > 1:
        return False
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(name)
    except Exception:  # HFValidationError: the id is malformed, which is exactly what we test for
        return False
    return True


def download_snapshot(
    repo_id: str,
    revision: Optional[str] = None,
    local_files_only: bool = False,
    allow_patterns: Optional[list] = None,
) -> Path:
    """Return a local folder with the repo's files, from the HF cache or downloaded into it.

    Args:
        repo_id: the Hub repo id.
        revision: branch, tag or commit sha; None is the default branch.
        local_files_only: never touch the network (also implied by ``HF_HUB_OFFLINE=1``).
        allow_patterns: only these files (glob patterns), e.g. to skip other frameworks' weights.

    Raises:
        ModelNotFoundError: the Hub answered that the repo or revision does not exist.
        NetworkError: the Hub could not be reached, or offline mode is on and the cache lacks the repo.
    """
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import (
        GatedRepoError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    offline = local_files_only or hub_offline()
    where = f"{repo_id}@{revision}" if revision else repo_id
    try:
        folder = snapshot_download(
            repo_id, revision=revision, local_files_only=offline, allow_patterns=allow_patterns
        )
    except GatedRepoError:
        raise NetworkError(f"{where} is gated on the Hub: log in with `hf auth login` and accept its terms") from None
    except RevisionNotFoundError:
        raise ModelNotFoundError(f"revision {revision!r} not found in Hub repo {repo_id}") from None
    except RepositoryNotFoundError:
        raise ModelNotFoundError(
            f"unknown model {repo_id!r}: no such Hub repo (or it is private: log in with `hf auth login`)"
        ) from None
    except LocalEntryNotFoundError:
        if offline:
            raise NetworkError(
                f"{where} is not in the local Hugging Face cache and offline mode is on "
                "(HF_HUB_OFFLINE=1 or local_files_only): fetch it once with `coherence-metric download "
                f"{repo_id}` on a machine with network, or pass a local folder"
            ) from None
        raise NetworkError(
            f"could not reach the Hugging Face Hub to fetch {where} and it is not cached: check the network "
            "or proxy, or pass a local folder"
        ) from None
    except OSError as error:  # connection errors that escape huggingface_hub's own wrapping
        raise NetworkError(f"could not reach the Hugging Face Hub to fetch {where}: {error}") from None
    return Path(folder)
