"""Score a JSONL file of system outputs and print one line per system, as an evaluation script would.

Each line of the input holds {"system": ..., "text": ...} (the text may also be a list of sentences):

    python examples/score_system_outputs.py examples/system_outputs.jsonl

Texts of all systems are scored in one call, so the model loads once and batches stay full. The command line does
the same, with intervals and p-values: ``coherence-metric compare FILE.jsonl --group-by system``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

from coherence_metric import CoherenceMetricError, CoherenceScorer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jsonl", help="one JSON object per line with 'system' and 'text'")
    parser.add_argument("--model", default="default", help="checkpoint: 'default', a folder or a Hub id")
    parser.add_argument("--field", default="text", help="the field holding the text (as the CLI's --field)")
    parser.add_argument("--text-field", dest="field", help=argparse.SUPPRESS)  # the old name, kept working
    parser.add_argument("--system-field", default="system", help="the field naming the system")
    args = parser.parse_args()
    try:
        with open(args.jsonl, encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle if line.strip()]
        systems = [record[args.system_field] for record in records]
        scorer = CoherenceScorer(args.model)
        result = scorer.score([record[args.field] for record in records])
    except (OSError, ValueError, KeyError, CoherenceMetricError) as error:
        print(f"score_system_outputs: error: {error}", file=sys.stderr)
        return 2
    by_system = defaultdict(list)
    for system, value in zip(systems, result.scores):
        by_system[system].append(value)
    for system, values in sorted(by_system.items(), key=lambda item: -sum(item[1]) / len(item[1])):
        print(f"{system}\t{sum(values) / len(values):.4f}\t(n={len(values)})")
    print(f"signature: {result.signature}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
