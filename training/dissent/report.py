"""Test-set results in the shape of the paper's Table 5 (and Table 8's per-marker precision / recall).

Each recipe run writes ``test_metrics.json`` into its output folder (from the best dev checkpoint's
test-set predictions, also written as ``test_predictions.jsonl``); :func:`table5` lays several runs out
as the paper does: one row per model, "F1 / Acc" column pairs for All, Books 8 and Books 5.

    python -m coherence_metric.training.dissent.report runs/dissent-cpu-bilstm-books5 runs/dissent-cpu-bilstm-books8 ...
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from coherence_metric.errors import CoherenceMetricError, InputError

from ..state_files import write_text_atomically
from .markers import TABLE_NAMES
from .objective import marker_scores

METRICS_FILE = "test_metrics.json"
PREDICTIONS_FILE = "test_predictions.jsonl"


def score_predictions(labels: Sequence[int], predictions: Sequence[int], markers: Sequence[str]) -> Dict[str, Any]:
    """Accuracy, macro-F1 and per-marker precision / recall / F1 / support (percent-free fractions)."""
    from sklearn.metrics import precision_recall_fscore_support

    scores: Dict[str, Any] = marker_scores(list(labels), list(predictions), len(markers))
    precision, recall, f1, support = precision_recall_fscore_support(
        list(labels), list(predictions), labels=list(range(len(markers))), zero_division=0)
    scores["per_marker"] = {marker: {"precision": float(precision[i]), "recall": float(recall[i]),
                                     "f1": float(f1[i]), "support": int(support[i])}
                            for i, marker in enumerate(markers)}
    scores["pairs"] = len(labels)
    return scores


def write_test_report(output_dir: Path, marker_set: str, model_name: str, s1: Sequence[str], s2: Sequence[str],
                      labels: Sequence[int], predictions: Sequence[int], markers: Sequence[str]) -> Dict[str, Any]:
    """Write ``test_predictions.jsonl`` and ``test_metrics.json``; return the metrics."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomically("".join(json.dumps({"s1": first, "s2": second, "marker": markers[label],
                                              "predicted": markers[predicted]}) + "\n"
                                  for first, second, label, predicted in zip(s1, s2, labels, predictions)),
                          output_dir / PREDICTIONS_FILE)
    metrics = {"marker_set": marker_set, "model": model_name, **score_predictions(labels, predictions, markers)}
    write_text_atomically(json.dumps(metrics, indent=2), output_dir / METRICS_FILE)
    return metrics


def table5(results: Sequence[Mapping[str, Any]]) -> str:
    """Markdown in Table 5's layout: rows = models, columns = F1 and accuracy (percent) per marker set.

    Args:
        results: ``test_metrics.json`` contents (each with ``model``, ``marker_set``, ``macro_f1``, ``accuracy``).
    """
    rows: Dict[str, Dict[str, Mapping[str, Any]]] = {}
    for result in results:
        if result.get("marker_set") not in TABLE_NAMES:
            raise InputError(f"result has unknown marker_set {result.get('marker_set')!r}")
        rows.setdefault(str(result["model"]), {})[str(result["marker_set"])] = result
    columns = " | ".join(f"{TABLE_NAMES[name]} F1 | {TABLE_NAMES[name]} Acc" for name in TABLE_NAMES)
    header = f"| Model | {columns} |"
    lines = [header, "|---|" + "---:|" * (2 * len(TABLE_NAMES))]
    for model, by_set in rows.items():
        cells: List[str] = []
        for name in TABLE_NAMES:
            found = by_set.get(name)
            cells += ([f"{100 * found['macro_f1']:.1f}", f"{100 * found['accuracy']:.1f}"] if found else ["-", "-"])
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table5_from_runs(run_dirs: Sequence[Path]) -> str:
    """:func:`table5` over the ``test_metrics.json`` of recipe output folders.

    Raises:
        InputError: a folder without ``test_metrics.json``.
    """
    results = []
    for folder in run_dirs:
        path = Path(folder) / METRICS_FILE
        if not path.is_file():
            raise InputError(f"{folder}: no {METRICS_FILE} (did the recipe run to the end?)")
        results.append(json.loads(path.read_text(encoding="utf-8")))
    return table5(results)


def main(argv: Optional[List[str]] = None) -> int:
    """Print Table 5 for the given run folders; one-line errors (exit status 2) for a bad folder."""
    parser = argparse.ArgumentParser(description="DisSent test results as the paper's Table 5.")
    parser.add_argument("runs", nargs="+", type=Path, help="recipe output folders")
    args = parser.parse_args(argv)
    try:
        print(table5_from_runs(args.runs))
    except CoherenceMetricError as error:
        parser.exit(2, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["METRICS_FILE", "PREDICTIONS_FILE", "score_predictions", "table5", "table5_from_runs", "write_test_report"]
