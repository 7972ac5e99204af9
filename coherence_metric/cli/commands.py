"""The whole command tree with every command registered: what ``main``, the docs and the tests import.

The command modules import the root group from ``cli/__init__.py`` and attach themselves to it, so the group
only knows them once they are imported; this module is that import, in one place.
"""

from __future__ import annotations

from . import backbone, cli, compare, diagnose, download, explain, models, report, score  # noqa: F401  (registers the commands)

__all__ = ["cli"]
