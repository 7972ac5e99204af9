"""The report as one self-contained HTML page: inline CSS, inline SVG charts, inline script, the data as JSON.

Nothing is fetched: no CDN, no font, no image, no remote script, so the file opens from disk, offline, years later.
The summary (scores with intervals, ranking, every pair's test) is plain HTML and reads without script; the table
of inputs is drawn by the inline script from the embedded JSON, one page of rows at a time, so a report of 5,000
inputs x 3 systems opens and scrolls (the page holds at most ``PAGE_SIZE`` rows, the JSON block holds every input).
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import Any, Dict, List, Mapping, Optional

from ..statistics.p_values import at_floor, disagreement_note, floor_note, format_p_value
from .svg import histogram_svg

PAGE_SIZE = 50
COLORS = ("#4a78b5", "#e08a2c", "#3b9c5a", "#9c4fb0", "#b5584a", "#4aa5b5")


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def embedded_json(payload: Mapping[str, Any]) -> str:
    """JSON that cannot close its ``<script>`` element early: ``<``, ``>`` and ``&`` written as \\u escapes."""
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _interval(interval: Any, digits: int = 4, signed: bool = False) -> str:
    if not interval:
        return ""
    sign = "+" if signed else ""
    return f"[{interval[0]:{sign}.{digits}f}, {interval[1]:{sign}.{digits}f}]"


def _systems_section(payload: Mapping[str, Any]) -> List[str]:
    percent = round(100 * payload["confidence"])
    lines = ["<section id='systems'><h2>Systems</h2>",
             f"<table><tr><th>Rank</th><th>System</th><th class='num'>Score</th><th>{percent}% CI</th></tr>"]
    for system in payload["systems"]:
        lines.append(f"<tr><td class='num'>{system['rank']}</td><td class='system-name'>{escape(system['name'])}</td>"
                     f"<td class='num'>{system['score']:.4f}</td><td>{_interval(system['interval'])}</td></tr>")
    lines.append("</table>")
    every = [value for system in payload["systems"] for value in system["scores"]]
    span = (min(every), max(every))
    lines.append("<div class='charts'>")
    for position, system in enumerate(payload["systems"]):
        mean = system["score"]
        lines.append(histogram_svg(system["scores"], f"{system['name']}: score per input", span=span,
                                   marks=[(mean, f"mean {mean:.3f}")], color=COLORS[position % len(COLORS)]))
    lines.append("</div>")
    lines.append(f"<p class='note'>Score distributions per system on one x axis; {percent}% intervals of the system "
                 f"score are percentile bootstraps over inputs ({payload['bootstrap_resamples']} resamples, "
                 f"seed {payload['seed']}).</p></section>")
    return lines


def _p_cell(p_value: Optional[float], count: int) -> str:
    """A p-value to 4 decimals, ``&lt;0.001`` at its floor 1/(count+1) (``count`` resamples or trials: the true
    p-value is anywhere below), or a dash where there is none (a bootstrap on too few inputs understates p)."""
    return "&ndash;" if p_value is None else escape(format_p_value(p_value, count))


def _test_notes(payload: Mapping[str, Any]) -> List[str]:
    """What a ``<`` in a p-value cell means, and each pair whose interval and p-value disagree about 0."""
    resamples, trials = payload["bootstrap_resamples"], payload["randomization_trials"]
    notes = []
    if any(at_floor(pair["p_value_bootstrap"], resamples) or at_floor(pair["p_value_randomization"], trials)
           for pair in payload["pairs"]):
        notes.append(floor_note(resamples, trials))
    for pair in payload["pairs"]:
        note = disagreement_note(pair["mean_difference_interval"], pair["p_value_bootstrap"],
                                 pair["p_value_randomization"], payload["confidence"], resamples, trials,
                                 f"{pair['a']} vs {pair['b']}")
        if note:
            notes.append(note)
    return notes


def _pairs_section(payload: Mapping[str, Any]) -> List[str]:
    percent = round(100 * payload["confidence"])
    scores = {system["name"]: system["scores"] for system in payload["systems"]}
    count = len(payload["pairs"])
    lines = ["<section id='pairs'><h2>Pairs</h2>",
             f"<table><tr><th>A</th><th>B</th><th class='num'>Mean diff A&minus;B</th><th>{percent}% CI</th>"
             f"<th class='num'>A win rate</th><th>{percent}% CI</th><th class='num'>A wins / B wins / ties</th>"
             "<th class='num'>p (bootstrap)</th><th class='num'>p (randomization)</th></tr>"]
    for pair in payload["pairs"]:
        lines.append(
            f"<tr><td>{escape(pair['a'])}</td><td>{escape(pair['b'])}</td>"
            f"<td class='num'>{pair['mean_difference']:+.4f}</td>"
            f"<td>{_interval(pair['mean_difference_interval'], signed=True)}</td>"
            f"<td class='num'>{pair['win_rate']:.3f}</td><td>{_interval(pair['win_rate_interval'], 3)}</td>"
            f"<td class='num'>{pair['wins_a']} / {pair['wins_b']} / {pair['ties']}</td>"
            f"<td class='num'>{_p_cell(pair['p_value_bootstrap'], payload['bootstrap_resamples'])}</td>"
            f"<td class='num'>{_p_cell(pair['p_value_randomization'], payload['randomization_trials'])}</td></tr>")
    lines.append("</table>")
    notes = sorted({pair["p_value_bootstrap_note"] for pair in payload["pairs"] if pair.get("p_value_bootstrap_note")})
    lines += [f"<p class='note'>&ndash;: {escape(note)}.</p>" for note in notes]
    lines += [f"<p class='note'>{escape(note)}</p>" for note in _test_notes(payload)]
    lines.append("<div class='charts'>")
    for pair in payload["pairs"]:
        differences = [a - b for a, b in zip(scores[pair["a"]], scores[pair["b"]])]
        lines.append(histogram_svg(differences, f"{pair['a']} minus {pair['b']}, per input",
                                   marks=[(0.0, "0"), (pair["mean_difference"], "mean")]))
    lines.append("</div>")
    lines.append(f"<p class='note'>A is the higher-ranked system. p-values are two-sided, per pair, not corrected for "
                 f"the {count} comparison{'s' if count != 1 else ''} (Bonferroni: compare each with 0.05 / {count}); "
                 f"approximate randomization with {payload['randomization_trials']} trials. The histograms show "
                 "the per-input differences: mass right of 0 is where A reads as more coherent.</p></section>")
    return lines


def _inputs_section(payload: Mapping[str, Any]) -> List[str]:
    headers = "".join(f"<th class='num'>{escape(system['name'])}</th>" for system in payload["systems"])
    explained = len(payload["explained"])
    mechanism = payload.get("mechanism")
    note = ("Click a row to show every system's text. Only the sentences <code>explain</code> flags (beyond a "
            "threshold set on dev data) are tinted, by the score of the transition into them (darker red: reads as "
            "following less well; <span class='legend'></span> low to high), and marked &#9660; with the kind of "
            "break (cohesion, duplication, relevance); a text with no break is shown plain.")
    if mechanism:
        note += (f" Transition scores ({escape(mechanism)}) for the {explained} inputs with the largest "
                 "differences.")
    return [
        "<section id='inputs'><h2>Inputs, largest difference first</h2>",
        f"<p class='note'>{note}</p>",
        "<div class='pager'><button id='first' type='button'>&laquo;</button>"
        "<button id='previous' type='button'>&lsaquo; previous</button><span id='page-label'></span>"
        "<button id='next' type='button'>next &rsaquo;</button><button id='last' type='button'>&raquo;</button></div>",
        f"<table id='input-table'><thead><tr><th class='num'>#</th><th>Input</th>{headers}"
        "<th class='num'>Largest difference</th></tr></thead><tbody id='input-rows'></tbody></table>",
        "</section>",
    ]


def render_html(payload: Dict[str, Any]) -> str:
    """The whole page for a report payload (:func:`coherence_metric.report.payload.build_payload`)."""
    title = escape(payload["title"])
    systems = len(payload["systems"])
    head = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{title}</title><style>{_asset('page.css')}</style></head>",
        "<body><main>",
        f"<h1>{title}</h1>",
        f"<p class='meta'>coherence-metric {escape(payload['version'])} &middot; {payload['n_inputs']} inputs "
        f"&middot; {systems} systems</p>",
    ]
    if payload.get("command"):
        head.append(f"<p class='meta'>Command: <code>{escape(payload['command'])}</code></p>")
    head.append(f"<p class='meta'>Signature: <code>{escape(payload['signature'])}</code></p>")
    if payload.get("notes"):  # what a reader must know before reading the numbers: a length gap, the known limits
        items = "".join(f"<li>{escape(note)}</li>" for note in payload["notes"])
        head.append(f"<aside class='limits' id='limits'><h2>Read with care</h2><ul>{items}</ul></aside>")
    body = _systems_section(payload) + _pairs_section(payload) + _inputs_section(payload)
    tail = [
        f"<script type='application/json' id='report-data'>{embedded_json(payload)}</script>",
        f"<script>{_asset('page.js')}</script>",
        "</main></body></html>",
    ]
    return "\n".join(head + body + tail) + "\n"
