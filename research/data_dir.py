"""Where the shared research data lives (../shared/data beside the checkout), for training and benchmarks.

Data is read in place, never copied into the repository. Set ``COHERENCE_METRIC_DATA`` to point elsewhere;
``python -m coherence_metric.research.data_folder fetch|check`` assembles and verifies such a folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from coherence_metric.errors import InputError

ENV_VAR = "COHERENCE_METRIC_DATA"
#: The command that assembles the data folder from public sources (research/data_folder.py and data_manifest.json).
ASSEMBLE_COMMAND = "python -m coherence_metric.research.data_folder fetch --data DIR"
#: Where the data folder's sources, layout and manual steps are described.
DATA_DOCS = "docs/benchmarks.md, 'Getting the data'"


def how_to_get_data() -> str:
    """The sentence every missing-data error ends with: the variable, the default place and the assembling command."""
    return (f"the benchmark data folder is ${ENV_VAR} (default: ../shared/data beside the checkout); assemble or "
            f"complete it with `{ASSEMBLE_COMMAND}`, then `export {ENV_VAR}=DIR` (see {DATA_DOCS})")


def missing_data_error(what: str, path: Path) -> InputError:
    """An InputError for a file or folder of the data folder that is not there, saying how to get it.

    Args:
        what: what is missing, e.g. ``"SummEval data"``.
        path: the path that was looked for.
    """
    return InputError(f"{what} not found: {path}; {how_to_get_data()}")


def require_data_file(path: Path, what: str = "data file") -> Path:
    """Return ``path`` when it is a file of the data folder, else raise :func:`missing_data_error` naming it."""
    if not Path(path).is_file():
        raise missing_data_error(what, Path(path))
    return Path(path)


def _candidates() -> list:
    here = Path(__file__).resolve().parent.parent
    return [here / ".." / "shared" / "data", Path.cwd() / ".." / "shared" / "data"]


def find_shared_data_dir() -> Optional[Path]:
    """Return the shared data folder, or None when there is none on this machine."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        path = Path(configured).expanduser()
        return path.resolve() if path.is_dir() else None
    for candidate in _candidates():
        if candidate.is_dir():
            return candidate.resolve()
    return None


def shared_data_dir() -> Path:
    """Return the shared data folder or raise an InputError that says how to point at it."""
    found = find_shared_data_dir()
    if found is None:
        configured = os.environ.get(ENV_VAR)
        where = f"{configured} ({ENV_VAR})" if configured else "../shared/data beside the checkout"
        raise InputError(f"benchmark data folder not found at {where}: {how_to_get_data()}")
    return found
