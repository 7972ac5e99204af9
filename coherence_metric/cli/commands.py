"""The whole command tree with every command registered: what ``main``, the docs and the tests import.

The command modules import the root group from ``cli/group.py`` and attach themselves to it, so the group
only knows them once they are imported; this module is that import, in one place.
"""

from __future__ import annotations

from . import backbone, compare, diagnose, download, explain, models, report, score  # noqa: F401  (registers the commands)
from .group import cli

__all__ = ["cli"]
