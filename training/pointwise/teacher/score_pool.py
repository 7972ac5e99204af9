"""Score a recipe's pool of texts with a teacher, in parts that resume: ``python -m
coherence_metric.training.pointwise.teacher.score_pool``.

Run it in the background (``nohup``) and again on the next machine: it reads the parts already in ``--out``, scores
only the pool's first ``--texts`` texts that no part holds, a part at a time, and says after each part how far it
is and what a part cost. ``--summary`` prints the count and the cost so far without scoring.

Example (the 0.8.0 default's recipe, the accurate tier as teacher, fp32)::

    nohup python -m coherence_metric.training.pointwise.teacher.score_pool \\
        --recipe training/configs/gpu-minilm-joint.yaml --teacher accurate --texts 50000 \\
        --out training/teacher_scores/cm-mpnet-lora-joint-2026.11 > teacher.log 2>&1 &
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence

from coherence_metric import CoherenceScorer
from coherence_metric.errors import CoherenceMetricError
from coherence_metric.toolkit import cpu_description

from ..recipe import load_pointwise_recipe
from .pool import build_pool
from .scores import Scorer, chunks, load_scores, write_part

DEFAULT_PART_SIZE = 256


def pending_texts(recipe: Path, count: int, done: set, epochs: int, long_every: int) -> List[tuple]:
    """The pool's first ``count`` texts that ``done`` lacks, as (key, text), in pool order."""
    data = load_pointwise_recipe(recipe).data
    first = itertools.islice(build_pool(data, epochs=epochs, long_every=long_every), count)
    return [(item.key, item.text) for item in first if item.key not in done]


def _arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m coherence_metric.training.pointwise.teacher.score_pool",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipe", type=Path, required=True, help="a pointwise recipe whose data the pool draws")
    parser.add_argument("--teacher", default="accurate", help="the teacher checkpoint (name, alias or folder)")
    parser.add_argument("--texts", type=int, default=50_000, help="score the pool's first N texts")
    parser.add_argument("--out", type=Path, required=True, help="the folder of parts (read, then added to)")
    parser.add_argument("--dtype", default="fp32", choices=["fp32", "bf16"])
    parser.add_argument("--part-size", type=int, default=DEFAULT_PART_SIZE)
    parser.add_argument("--epochs", type=int, default=1, help="passes over the training documents in the pool")
    parser.add_argument("--long-every", type=int, default=2, help="every Nth document also gives a long text")
    parser.add_argument("--max-seconds", type=float, default=None, help="stop after the part that passes this")
    parser.add_argument("--summary", action="store_true", help="print what is scored so far and stop")
    return parser.parse_args(argv)


def run(arguments: argparse.Namespace) -> int:
    """Score what is missing; returns how many texts this run scored."""

    started = time.monotonic()
    teacher = CoherenceScorer(arguments.teacher, dtype=arguments.dtype, progress=False)
    signature = teacher.signature
    scorer = Scorer(signature.model, signature.fingerprint, arguments.dtype)
    loaded = load_scores(arguments.out, scorer)
    print(f"{arguments.out}: {loaded.cost_line()}", flush=True)
    if arguments.summary:
        return 0
    todo = pending_texts(arguments.recipe, arguments.texts, set(loaded.scores), arguments.epochs,
                         arguments.long_every)
    print(f"{len(todo):,} of the pool's first {arguments.texts:,} texts to score, {arguments.part_size} a part",
          flush=True)
    cpu = cpu_description(cores=True)  # what each part's seconds were measured on
    scored = 0
    for part in chunks(todo, arguments.part_size):
        wall, process = time.monotonic(), time.process_time()
        values = teacher.score([text for _, text in part]).scores
        meta = {"signature": str(signature), "cpu": cpu, "wall_seconds": round(time.monotonic() - wall, 2),
                "cpu_seconds": round(time.process_time() - process, 2), "texts": len(part)}
        path = write_part(arguments.out, scorer, {key: value for (key, _), value in zip(part, values)}, meta)
        scored += len(part)
        print(f"{path.name}: {len(part)} texts in {meta['wall_seconds']:.0f} s "
              f"({len(part) / max(meta['wall_seconds'], 1e-9):.2f} texts/s); {scored:,} of {len(todo):,} this run",
              flush=True)
        if arguments.max_seconds is not None and time.monotonic() - started > arguments.max_seconds:
            print("stopping: --max-seconds reached", flush=True)
            break
    return scored


def main(argv: Optional[Sequence[str]] = None) -> None:
    arguments = _arguments(argv)
    try:
        run(arguments)
    except CoherenceMetricError as error:
        print(f"score_pool: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
