"""MkDocs hook: click 8.3 gives options without a default (flags such as ``--version``) the default ``UNSET``, which
mkdocs-click 0.9 prints as ``Sentinel.UNSET`` in the CLI reference's Default column; show an empty cell instead."""

from __future__ import annotations

from typing import Any

UNSET_CELL = "<td><code>Sentinel.UNSET</code></td>"


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    """The page's HTML with click's unset-default marker blanked (only the CLI reference has any)."""
    return html.replace(UNSET_CELL, "<td></td>")
