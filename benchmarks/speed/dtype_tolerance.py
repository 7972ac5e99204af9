"""How far bf16 autocast moves scores from fp32, on the paper suite's pairs: the measurement behind the tolerance that
``tests/coherence_metric/scoring/test_dtype_tolerance.py`` enforces and docs/reading-scores.md ("bf16 and fp32")
states, made again for every new default before its tolerance is written down.

For each model and each paper-suite set (a seeded subset of ``--limit`` pairs), both texts of every pair are scored in
fp32 and in bf16 by the same loaded scorer, and the script prints, per set and over all: max, 99th percentile and
mean |score difference|, the share of pairs whose winner (higher score; a difference within 1e-5 is a tie) is the
same in both dtypes, and the pairwise accuracy in each dtype::

    python -m coherence_metric.benchmarks.speed.dtype_tolerance --limit 200 default runs/pointwise-1000/best \
        --out benchmarks/reports/<checkpoint>/dtype-tolerance.json

``--out FILE`` also writes the numbers as JSON; ``--sets`` measures other sets than the paper suite's.
"""

from __future__ import annotations

import argparse
import copy
import json
from typing import Any, Dict, List, Optional, Sequence

from coherence_metric import CoherenceScorer
from coherence_metric.research.catalogue import PAPER_TEST_SETS, load_benchmark_test_set

from ..reporting.files import write_script_output

TIE = 1e-5


def winner(a: float, b: float) -> int:
    """1 when ``a`` wins, -1 when ``b`` wins, 0 for a tie within 1e-5."""
    return 0 if abs(a - b) <= TIE else (1 if a > b else -1)


def summarise(fp32: Sequence[Sequence[float]], bf16: Sequence[Sequence[float]]) -> Dict[str, Any]:
    """Deviation and winner agreement of pairs given as (positive score, negative score) in each dtype."""
    differences = sorted(abs(a - b) for pair_a, pair_b in zip(fp32, bf16) for a, b in zip(pair_a, pair_b))
    n_pairs = len(fp32)
    same = sum(winner(*pair_a) == winner(*pair_b) for pair_a, pair_b in zip(fp32, bf16))
    return {
        "pairs": n_pairs,
        "max_abs": round(differences[-1], 6),
        "p99_abs": round(differences[min(len(differences) - 1, int(0.99 * len(differences)))], 6),
        "mean_abs": round(sum(differences) / len(differences), 6),
        "same_winner": round(same / n_pairs, 5),
        "accuracy_fp32": round(sum(pos > neg for pos, neg in fp32) / n_pairs, 4),
        "accuracy_bf16": round(sum(pos > neg for pos, neg in bf16) / n_pairs, 4),
    }


def measure_model(model: str, limit: Optional[int], seed: int,
                  sets: Sequence[str] = PAPER_TEST_SETS) -> Dict[str, Any]:
    """Score every set of ``sets`` (the paper suite's) in both dtypes with one loaded model; the result names the
    checkpoint it loaded (``checkpoint``, its immutable name) and the name it was given (``spec``)."""
    fp32 = CoherenceScorer(model, dtype="fp32")
    bf16 = copy.copy(fp32)  # the same loaded weights in the other dtype
    bf16.dtype = "bf16"
    per_set: Dict[str, Any] = {}
    pairs_fp32: List[Sequence[float]] = []
    pairs_bf16: List[Sequence[float]] = []
    for name in sets:
        test_set = load_benchmark_test_set(name, limit=limit, seed=seed)
        documents = test_set.pos_documents() + test_set.neg_documents()
        n = len(test_set)
        scores = {key: scorer.score(documents).scores for key, scorer in (("fp32", fp32), ("bf16", bf16))}
        set_fp32 = list(zip(scores["fp32"][:n], scores["fp32"][n:]))
        set_bf16 = list(zip(scores["bf16"][:n], scores["bf16"][n:]))
        per_set[name] = summarise(set_fp32, set_bf16)
        print(model, name, per_set[name], flush=True)
        pairs_fp32 += set_fp32
        pairs_bf16 += set_bf16
    overall = summarise(pairs_fp32, pairs_bf16)
    print(model, "ALL", overall, flush=True)
    return {"checkpoint": fp32.model_label, "spec": model, "signature_fp32": str(fp32.signature), "sets": per_set,
            "all": overall}


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="checkpoints (names, folders)")
    parser.add_argument("--limit", type=int, default=200, help="pairs per set (seeded subset)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the numbers as JSON here")
    parser.add_argument("--sets", default=",".join(PAPER_TEST_SETS), help="comma-separated test sets")
    args = parser.parse_args(argv)
    sets = [name.strip() for name in args.sets.split(",") if name.strip()]
    # Keyed by the checkpoint's immutable name, not the name given: an alias (``default``, ``accurate``) moves.
    result = {}
    for model in args.models:
        measured = measure_model(model, args.limit, args.seed, sets)
        result[measured["checkpoint"]] = measured
    if args.out:
        write_script_output(args.out, json.dumps({"limit": args.limit, "seed": args.seed, "models": result}, indent=2))


if __name__ == "__main__":
    main()
