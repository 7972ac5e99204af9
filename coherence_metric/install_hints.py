"""Install hints that work as printed: the exact requirements of an optional extra, quoted for every shell.

Why not a ``pip install`` of ``coherence-metric[integrations]``: coherence-metric is installed from its repository,
not from the package index, so that line fails on a user's machine ("no matching distribution"). The requirements an
extra adds are read from the installed package's own metadata (so they cannot drift from setup.cfg) and printed as
one ``pip install`` line, each requirement in single quotes (zsh expands unquoted brackets and ``>``).
"""

from __future__ import annotations

import re
from importlib import metadata
from typing import List

DISTRIBUTION = "coherence-metric"
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


ARCHIVE_HINT = "pip install ./archive (in a clone of the coherence-metric repository)"
"""How the past defaults' pack is installed: it ships in the repository beside the package, not on the index."""
UPGRADE_HINT = "git pull, then pip install ./archive . (in your clone of the coherence-metric repository)"
"""How coherence-metric itself is upgraded: from its repository, as it was installed."""


def extra_requirements(extra: str) -> List[str]:
    """The requirements the installed coherence-metric declares for ``extra`` (markers removed), in setup.cfg's
    order; empty when the package's metadata is not installed (a bare checkout on ``sys.path``)."""
    try:
        declared = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    found = []
    for line in declared:
        requirement, _, marker = line.partition(";")
        named = _EXTRA_MARKER.search(marker)
        if named is not None and named.group(1) == extra:
            found.append(requirement.strip().replace(" ", ""))
    return found


def pip_install_hint(extra: str) -> str:
    """One ``pip install`` line installing what ``extra`` adds, each requirement quoted; where the metadata is
    missing, the line that installs the extra from a clone of the repository."""
    requirements = extra_requirements(extra)
    if not requirements:
        return f"pip install '.[{extra}]' (from a clone of the coherence-metric repository)"
    return "pip install " + " ".join(f"'{requirement}'" for requirement in requirements)
