"""Where the shipped transition models live and what they are called: folder, default name, identity.

Apart from :mod:`coherence_metric.scoring.transition_pass` (which loads and runs one) so that the checkpoint loader can
name and check a reference checkpoint's transition model without importing the code that runs it: the loader is
below the transition model in the package's layers (the transition model loads its weights through it), and an
import back up would make a circle of five modules.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Tuple, Union

from ..errors import InputError
from .checkpoint_config import CONFIG_NAME, read_checkpoint_config

#: The shipped transition models' folder inside the package; ``explain`` reads ``DEFAULT_TRANSITION_MODEL``.
PACKAGED_DIR = Path(__file__).resolve().parent.parent / "transition_models"
DEFAULT_TRANSITION_MODEL = "tm-minilm-2026.11"


@functools.lru_cache(maxsize=8)
def transition_model_identity(name_or_path: str = DEFAULT_TRANSITION_MODEL) -> Tuple[str, str]:
    """(name, fingerprint) of a transition model from its config alone, without loading its weights: what the
    signature records (a model that then fails verification never scores, so it never signs a result).

    Raises:
        InputError: neither a packaged name nor a checkpoint folder.
    """
    folder = transition_model_folder(name_or_path)
    return folder.name, read_checkpoint_config(folder).fingerprint()


def transition_model_folder(name_or_path: Union[str, Path]) -> Path:
    """A packaged transition model's folder by name, or a checkpoint folder as given.

    Raises:
        InputError: neither.
    """
    folder = Path(name_or_path)
    if (folder / CONFIG_NAME).is_file():
        return folder
    packaged = PACKAGED_DIR / str(name_or_path)
    if "/" not in str(name_or_path) and (packaged / CONFIG_NAME).is_file():
        return packaged
    known = sorted(path.parent.name for path in PACKAGED_DIR.glob(f"*/{CONFIG_NAME}"))
    raise InputError(f"unknown transition model {str(name_or_path)!r}: not a checkpoint folder "
                     f"(packaged: {', '.join(known) or 'none'})")


__all__ = ["DEFAULT_TRANSITION_MODEL", "PACKAGED_DIR", "transition_model_folder", "transition_model_identity"]
