"""Small inline SVG charts for the HTML report: histograms drawn as rectangles, no plotting library, no script.

A report must open from disk with no network and stay light to import, so the charts are a few dozen SVG elements
computed here, however many inputs there are (a strip plot of 5,000 points per system would be 15,000 elements).
"""

from __future__ import annotations

import math
from html import escape
from typing import List, Optional, Sequence, Tuple

WIDTH = 360
HEIGHT = 120
MARGIN = 24
TOP = 34
BINS = 30
TITLE_CHARACTERS = 58


def bin_edges(values: Sequence[float], bins: int = BINS, span: Optional[Tuple[float, float]] = None) -> List[float]:
    """``bins + 1`` equal-width edges over ``span`` (default: the values' range; a constant gets a unit-wide one)."""
    low, high = span if span is not None else (min(values), max(values))
    if not high > low:
        low, high = low - 0.5, high + 0.5
    step = (high - low) / bins
    return [low + step * index for index in range(bins + 1)]


def histogram(values: Sequence[float], edges: Sequence[float]) -> List[int]:
    """Counts per bin (the last bin closed on the right)."""
    counts = [0] * (len(edges) - 1)
    low, high = edges[0], edges[-1]
    width = (high - low) / len(counts)
    for value in values:
        if low <= value <= high:
            counts[min(int((value - low) / width), len(counts) - 1)] += 1
    return counts


def _number(value: float) -> str:
    return f"{value:.3g}"


def histogram_svg(values: Sequence[float], title: str, span: Optional[Tuple[float, float]] = None,
                  marks: Sequence[Tuple[float, str]] = (), color: str = "#4a78b5") -> str:
    """An SVG histogram of ``values`` with vertical lines at ``marks`` (value, label), its axis ends labelled.

    Args:
        values: the numbers (at least one).
        title: the accessible title (``<title>``) and caption.
        span: the x range; pass the same one to charts that should be read side by side.
        marks: vertical reference lines, e.g. zero and the mean.
        color: the bars' fill.
    """
    edges = bin_edges(values, span=span)
    counts = histogram(values, edges)
    tallest = max(counts) or 1
    plot_width, plot_height = WIDTH - 2 * MARGIN, HEIGHT - TOP - MARGIN
    low, high = edges[0], edges[-1]

    def x_of(value: float) -> float:
        return MARGIN + (value - low) / (high - low) * plot_width

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{WIDTH}" height="{HEIGHT}" role="img"><title>{escape(title)}</title>']
    bar_width = plot_width / len(counts)
    for index, count in enumerate(counts):
        if count:
            height = count / tallest * plot_height
            parts.append(f'<rect x="{MARGIN + index * bar_width:.1f}" y="{TOP + plot_height - height:.1f}" '
                         f'width="{max(bar_width - 1, 0.5):.1f}" height="{height:.1f}" fill="{color}">'
                         f'<title>{_number(edges[index])} to {_number(edges[index + 1])}: {count}</title></rect>')
    base = TOP + plot_height
    parts.append(f'<line x1="{MARGIN}" y1="{base}" x2="{WIDTH - MARGIN}" y2="{base}" stroke="#555"/>')
    for value, label in marks:
        if low <= value <= high and math.isfinite(value):
            x = x_of(value)
            parts.append(f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{base}" stroke="#c0392b" '
                         f'stroke-dasharray="3 2"/><text x="{x:.1f}" y="{TOP - 7}" font-size="9" '
                         f'text-anchor="middle" fill="#c0392b">{escape(label)}</text>')
    parts.append(f'<text x="{MARGIN}" y="{HEIGHT - 6}" font-size="10" fill="#333">{_number(low)}</text>')
    parts.append(f'<text x="{WIDTH - MARGIN}" y="{HEIGHT - 6}" font-size="10" text-anchor="end" '
                 f'fill="#333">{_number(high)}</text>')
    shown = title if len(title) <= TITLE_CHARACTERS else "\u2026" + title[-(TITLE_CHARACTERS - 1):]
    parts.append(f'<text x="{WIDTH / 2}" y="13" font-size="11" text-anchor="middle" fill="#222">{escape(shown)}</text>')
    parts.append("</svg>")
    return "".join(parts)
