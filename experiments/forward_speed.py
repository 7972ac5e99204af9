"""Runtime settings of the default's document pass against the speed target (issue 41: 60x the paper-faithful
reference at 256 tokens; the default measures 48x on this project's 2-core AVX512-BF16 CPU, 107% of the speed suite's
forward-only limit, so only a faster forward can close the gap). Nothing here changes a score.

Times the default's backbone alone on random 256-token inputs (no padding) in each setting: the scorer's own (bf16
autocast, SDPA attention, batch 32), fp32, eager attention, bf16 weights instead of autocast, int8 dynamic
quantisation, other batch sizes, and ``torch.compile``, then the scorer's setting again (how much the machine drifted
over the run). Texts per second, median of ``--repeats`` timed runs after one untimed. Results: experiments/README.md.

    python -m experiments.forward_speed --out runs/forward-speed.json
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import statistics
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import torch

from coherence_metric import CoherenceScorer
from coherence_metric.scoring.runtime import autocast_context

TOKENS = 256
TEXTS = 32


def texts_per_second(run: Callable[[], Any], texts: int, repeats: int) -> float:
    """Median texts per second of ``run`` (which scores ``texts`` texts) over ``repeats`` timed calls, after one
    untimed call."""
    run()
    rates: List[float] = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        rates.append(texts / (time.perf_counter() - started))
    return statistics.median(rates)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--compile", action=argparse.BooleanOptionalAction, default=True,
                        help="also time torch.compile (about 30 s to compile on 2 cores)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    scorer = CoherenceScorer(args.model, dtype="fp32")
    backbone = scorer.model.backbone.eval()
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 20000, (TEXTS, TOKENS), generator=generator)
    mask = torch.ones_like(ids)
    cpu = torch.device("cpu")
    results: Dict[str, float] = {}

    def timed(name: str, model: Any, dtype: str, batch: int = TEXTS) -> None:
        def run() -> None:
            with torch.inference_mode(), autocast_context(dtype, cpu):
                for first in range(0, TEXTS, batch):
                    model(input_ids=ids[first:first + batch], attention_mask=mask[first:first + batch])
        results[name] = round(texts_per_second(run, TEXTS, args.repeats), 2)
        print(f"{name}: {results[name]} texts/s", flush=True)

    timed("scorer's setting: bf16 autocast, sdpa, batch 32", backbone, "bf16")
    timed("fp32, sdpa, batch 32", backbone, "fp32")
    for batch in (8, 16):
        timed(f"bf16 autocast, sdpa, batch {batch}", backbone, "bf16", batch)
    eager: Any = copy.deepcopy(backbone)
    eager.config._attn_implementation = "eager"
    timed("bf16 autocast, eager attention, batch 32", eager, "bf16")
    weights = copy.deepcopy(backbone).to(torch.bfloat16)
    timed("bf16 weights (no autocast), sdpa, batch 32", weights, "fp32")
    with warnings.catch_warnings():  # torch.ao.quantization announces its own deprecation
        warnings.simplefilter("ignore")
        int8 = torch.ao.quantization.quantize_dynamic(copy.deepcopy(backbone), {torch.nn.Linear}, dtype=torch.qint8)
    timed("int8 dynamic quantisation of the linear layers, sdpa, batch 32", int8, "fp32")
    if args.compile:
        started = time.perf_counter()
        compiled = torch.compile(backbone)
        with torch.inference_mode(), autocast_context("bf16", cpu):
            compiled(input_ids=ids, attention_mask=mask)
        results["compile seconds"] = round(time.perf_counter() - started, 1)
        timed("torch.compile, bf16 autocast, sdpa, batch 32", compiled, "bf16")
        timed("torch.compile, bf16 autocast, sdpa, batch 16", compiled, "bf16", 16)
    timed("scorer's setting again (drift over the run)", backbone, "bf16")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"model": args.model, "tokens": TOKENS, "texts": TEXTS,
                                    "threads": torch.get_num_threads(), "torch": torch.__version__,
                                    "machine": platform.processor() or platform.machine(),
                                    "load_average_before": load_before, "texts_per_second": results}, indent=1),
                        encoding="utf-8")


if __name__ == "__main__":
    main()
