"""The report's data: everything the page shows, as one JSON-ready dict (embedded whole in the HTML file).

Kept apart from the HTML so the numbers can be tested without a browser, and so a reader of a saved report can
take the embedded JSON block (``<script id="report-data">``) and reuse every score and text.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..analysis.mechanisms import mechanism_label
from ..version import __version__


def spread_order(scores: Mapping[str, Sequence[float]]) -> List[int]:
    """Input indices from the largest difference between any two systems' scores to the smallest (input order
    among equals)."""
    columns = list(scores.values())
    count = len(columns[0])
    spreads = [max(column[index] for column in columns) - min(column[index] for column in columns)
               for index in range(count)]
    return sorted(range(count), key=lambda index: (-spreads[index], index))


def _text_of(text: Any) -> Any:
    return text if isinstance(text, str) else [str(sentence) for sentence in text]


def build_payload(comparison: Any, texts: Optional[Mapping[str, Sequence[Any]]] = None,
                  explanations: Optional[Mapping[int, Mapping[str, Any]]] = None,
                  labels: Optional[Sequence[str]] = None, command: Optional[str] = None,
                  mechanism: Optional[str] = None, title: Optional[str] = None) -> Dict[str, Any]:
    """The report's JSON data.

    Args:
        comparison: a ``SystemsComparison``.
        texts: each system's texts in input order (None: a report of scores only).
        explanations: per input index, per system, a ``TextExplanation`` (the rows whose texts are shaded).
        labels: one label per input (``file:line``); None numbers them from 1.
        command: the command line that made the report.
        mechanism: what scored the transitions of ``explanations``.
        title: the page's heading.
    """
    names = list(comparison.systems)
    scores = {name: list(comparison.systems[name].scores) for name in names}
    count = len(scores[names[0]])
    ranks = comparison.ranks
    systems = []
    for name in comparison.ranking:
        result = comparison.systems[name]
        systems.append({"name": name, "rank": ranks[name], "score": result.system_score,
                        "interval": list(result.system_score_interval) if result.system_score_interval else None,
                        "scores": scores[name]})
    explained: Dict[str, Any] = {}
    for index, per_system in (explanations or {}).items():
        explained[str(index)] = {name: {"sentences": list(item.sentences), "transitions": list(item.transitions),
                                        "flagged": list(item.flagged), "score": item.score,
                                        "flags": [{"sentence": flag.index, "kind": flag.kind}
                                                  for flag in getattr(item, "flags", [])]}
                                 for name, item in per_system.items()}
    return {
        "title": title or "Coherence report",
        "version": __version__,
        "signature": str(comparison.signature.with_transitions(mechanism_label(mechanism)) if mechanism
                         else comparison.signature),
        "command": command,
        "notes": list(getattr(comparison, "notes", ())),
        "n_inputs": count,
        "confidence": comparison.confidence,
        "bootstrap_resamples": comparison.bootstrap_resamples,
        "randomization_trials": comparison.randomization_trials,
        "seed": comparison.seed,
        "systems": systems,
        "pairs": [pair.to_dict() for pair in comparison.pairs],
        "labels": list(labels) if labels is not None else [str(index + 1) for index in range(count)],
        "order": spread_order(scores),
        "texts": {name: [_text_of(text) for text in texts[name]] for name in names} if texts else None,
        "mechanism": mechanism,
        "explained": explained,
    }
