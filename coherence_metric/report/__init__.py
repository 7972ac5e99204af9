"""The HTML report of a systems comparison: one self-contained file to open, scroll and share.

``coherence-metric report A B [C ...] -o report.html`` and ``SystemsComparison.to_html()`` write it; see
:mod:`.html` for what the page holds and :mod:`.build` for how the inputs to shade are chosen.
"""

from __future__ import annotations

from .build import DEFAULT_EXPLAIN_ROWS, SystemsReport, build_report, check_writable, explain_systems
from .html import render_html
from .payload import build_payload

__all__ = ["DEFAULT_EXPLAIN_ROWS", "SystemsReport", "build_payload", "build_report", "check_writable",
           "explain_systems", "render_html"]
