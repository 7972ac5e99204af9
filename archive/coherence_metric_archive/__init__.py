"""coherence-metric's past default checkpoints, as a distribution of their own.

PyPI takes files of at most 100 MB and every default coherence-metric ever shipped must keep loading under its
immutable name, so the defaults that are no longer current move here. coherence-metric depends on this package and
finds its checkpoints through the ``coherence_metric.checkpoints`` entry point (``CHECKPOINTS_DIR``); its
``aliases.json`` pins each archived name to the sha256 of the checkpoint's config, so this package can add names but
never change what one means. Nothing to import by hand: ``score(..., model="cm-minilm-2026.11")`` finds them.
"""

from pathlib import Path

__version__ = "2026.11.0"
CHECKPOINTS_DIR = Path(__file__).resolve().parent / "checkpoints"
"""Each sub-folder is one checkpoint, named by its immutable name."""
