"""Would int8 pay on this CPU? The default with its encoder's Linear layers quantised to int8 (torch's dynamic
quantisation, which runs VNNI / AMX-int8 kernels where the CPU has them) against the same model in fp32 and in bf16,
on the speed suite's 256-token news texts, in one process, each dtype timed twice, interleaved.

Issue 56's rule for shipping ``--dtype int8``: at least 1.5x the faster float path here, and the winner of at least
99% of pairs kept (bf16's measured tolerance is the bar). The report says both numbers; docs/benchmarks.md ("int8")
has the run behind the decision.

Run: ``python -m coherence_metric.benchmarks.int8_check [--texts 96] [--model default] [--output FILE]``.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import time
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import torch

from coherence_metric import CoherenceScorer

from .speed import TextBuilder, _cpu_name, news_sentences

#: The shipping rule of issue 56, item 2.
MIN_SPEEDUP = 1.5
MIN_WINNERS_KEPT = 0.99


def quantised(scorer: CoherenceScorer) -> CoherenceScorer:
    """A copy of ``scorer`` whose encoder's Linear layers are dynamically quantised to int8 (the head stays fp32)."""
    twin = copy.copy(scorer)
    twin.model = copy.deepcopy(scorer.model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao's deprecation notice, once per process
        twin.model.backbone = torch.ao.quantization.quantize_dynamic(twin.model.backbone, {torch.nn.Linear},
                                                                     dtype=torch.qint8)
    return twin


def winners_kept(reference: Sequence[float], other: Sequence[float]) -> float:
    """Share of all pairs of texts that ``other`` orders as ``reference`` does (ties in either count as changed)."""
    pairs = list(itertools.combinations(range(len(reference)), 2))
    same = sum((reference[i] - reference[j]) * (other[i] - other[j]) > 0 for i, j in pairs)
    return same / len(pairs)


def run(model: str = "default", n_texts: int = 96) -> Dict[str, object]:
    """Texts/s of fp32, bf16 and int8 (best of two interleaved timings each) and the deviations from fp32."""
    scorer = CoherenceScorer(model, dtype="fp32")
    texts = TextBuilder(scorer.tokenizer, news_sentences(), 0).fixed(256, n_texts)
    bf16 = copy.copy(scorer)
    bf16.dtype = "bf16"
    scorers = {"fp32": scorer, "bf16": bf16, "int8": quantised(scorer)}
    rates: Dict[str, float] = {name: 0.0 for name in scorers}
    scores: Dict[str, List[float]] = {}
    for _ in range(2):
        for name, each in scorers.items():
            each.score(texts[:32])  # warm-up: kernels for these shapes
            started = time.perf_counter()
            scores[name] = each.score(texts).scores
            rates[name] = max(rates[name], n_texts / (time.perf_counter() - started))
    deviation = {name: max(abs(a - b) for a, b in zip(scores[name], scores["fp32"])) for name in ("bf16", "int8")}
    kept = {name: winners_kept(scores["fp32"], scores[name]) for name in ("bf16", "int8")}
    speedup = rates["int8"] / max(rates["fp32"], rates["bf16"])
    return {
        "model": scorer.model_label, "cpu": _cpu_name(), "torch": torch.__version__, "texts": n_texts, "tokens": 256,
        "threads": torch.get_num_threads(),
        "texts_per_second": {name: round(rate, 2) for name, rate in rates.items()},
        "int8_vs_fastest_float": round(speedup, 3),
        "max_abs_deviation_from_fp32": {name: round(value, 4) for name, value in deviation.items()},
        "winners_kept": {name: round(value, 4) for name, value in kept.items()},
        "ship_int8": speedup >= MIN_SPEEDUP and kept["int8"] >= MIN_WINNERS_KEPT,
    }


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--texts", type=int, default=96)
    parser.add_argument("--output", type=Path, help="also write the result here (JSON)")
    arguments = parser.parse_args(argv)
    text = json.dumps(run(arguments.model, arguments.texts), indent=1)
    print(text)
    if arguments.output:
        arguments.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
