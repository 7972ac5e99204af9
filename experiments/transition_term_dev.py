"""The default's text score mixed with the transition model's mean boundary logit, on dev data only (issue 41's next
idea; nothing here is shipped or reads a test set).

A text's option score is ``(1 - w) * default + w * mean(transition-model logits of its boundaries)`` (a one-sentence
text keeps its score), read by ``dev_report``'s own ruler: human_dev's dev-select half, synthetic dev, and the order
and truncation checks, with each option's paired difference from ``w = 0``.

    python -m experiments.transition_term_dev --weights 0,0.1,0.2,0.3,0.5 --out runs/transition-term-dev.json
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional

from coherence_metric import CoherenceScorer
from coherence_metric.scoring.transition_pass import TransitionModel
from coherence_metric.training.pointwise.dev_report import (
    dev_documents,
    evaluate_option,
    load_dev_data,
    option_summary,
    paired_difference,
)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--weights", default="0,0.1,0.2,0.3,0.5")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    data = load_dev_data()
    scorer = CoherenceScorer(args.model, dtype="fp32")
    transitions_model = TransitionModel()
    whole: Dict[str, List[float]] = {}
    transitions: Dict[str, List[List[float]]] = {}
    for key, texts in dev_documents(data).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            whole[key] = scorer.score([list(text) for text in texts]).scores
        transitions[key] = transitions_model.transition_values(texts)
    options: List[Dict[str, Any]] = [evaluate_option(data, whole, transitions, float(weight))
                                     for weight in args.weights.split(",")]
    for option in options:
        option["vs_first"] = paired_difference(options[0]["credits"], option["credits"])
    for option in options:
        del option["credits"]
        print(f"w={option['weight']}: " + option_summary(option, [("vs w=0", "vs_first")]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"model": args.model, "options": options,
                                    "seconds": time.perf_counter() - started}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
