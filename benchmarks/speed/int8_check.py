"""Would int8 pay on this CPU? The default with its encoder's Linear layers quantised to int8 by torch's dynamic
quantisation (per-tensor weights, and per-channel weights), against the same model in fp32 and, where the CPU has
native bf16, in bf16, on the speed suite's 256-token news texts, in one process, each path timed twice, interleaved.

The rule for shipping ``--dtype int8`` (``targets.toml``'s ``[int8]``): at least ``min_speedup`` times the faster
float path here, and the winner of at least ``min_winners_kept`` of pairs kept (bf16's measured tolerance is the
bar). A third condition follows from what a metric promises: a text's score may not depend on which other texts share
its batch. Dynamic quantisation picks each activation's scale from the whole batch tensor (padding included), so the
check scores the first texts alone as well and reports the largest difference from their scores in the full call
(``batch_dependence``), which may not exceed ``max_batch_dependence`` (fp32's own is reported beside it).

bf16 is timed only where the CPU has native bf16 (AMX or AVX512-BF16): elsewhere it is emulated, hundreds of times
slower, and ``dtype="auto"`` never picks it, so fp32 is the float path to beat.

The report says every number; docs/benchmarks.md ("int8") has the runs behind the decision.

Run: ``python -m coherence_metric.benchmarks.speed.int8_check [--texts 96] [--model fast] [--output FILE]``.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import time
import warnings
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

import torch

from coherence_metric import CoherenceScorer
from coherence_metric.toolkit import cpu_description

from ..reporting import targets
from ..reporting.files import write_script_output
from .cpu_speed import TextBuilder, float_paths, news_sentences

#: How many texts are also scored alone (each a forward pass of its own) for ``batch_dependence``.
ALONE_TEXTS = 8
#: The int8 schemes tried: weight scales per tensor (torch's default) or per output channel.
SCHEMES = {"int8": False, "int8_per_channel": True}


def quantised(scorer: CoherenceScorer, per_channel: bool = False) -> CoherenceScorer:
    """A copy of ``scorer`` whose encoder's Linear layers are dynamically quantised to int8 (the head stays fp32),
    with one weight scale per tensor or, with ``per_channel``, one per output channel."""
    twin = copy.copy(scorer)
    twin.model = copy.deepcopy(scorer.model)
    qconfig = (torch.ao.quantization.per_channel_dynamic_qconfig if per_channel
               else torch.ao.quantization.default_dynamic_qconfig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao's deprecation notice, once per process
        twin.model.backbone = torch.ao.quantization.quantize_dynamic(twin.model.backbone, {torch.nn.Linear: qconfig},
                                                                     dtype=torch.qint8)
    return twin


def winners_kept(reference: Sequence[float], other: Sequence[float]) -> float:
    """Share of all pairs of texts that ``other`` orders as ``reference`` does (ties in either count as changed)."""
    pairs = list(itertools.combinations(range(len(reference)), 2))
    same = sum((reference[i] - reference[j]) * (other[i] - other[j]) > 0 for i, j in pairs)
    return same / len(pairs)


def batch_dependence(scorer: CoherenceScorer, texts: Sequence[str], in_batch: Sequence[float]) -> float:
    """The largest difference between a text's score alone and its score in the call that scored ``texts``."""
    return max(abs(scorer.score([text]).scores[0] - score) for text, score in zip(texts, in_batch))


def decide(rates: Mapping[str, float], kept: Mapping[str, float], dependence: Mapping[str, float],
           floats: Sequence[str]) -> Dict[str, Dict[str, object]]:
    """Per int8 scheme: its speed-up over the fastest float path and whether it passes all three conditions of
    ``targets.toml``'s ``[int8]``."""
    rule = targets.load().int8
    fastest = max(rates[name] for name in floats)
    verdicts: Dict[str, Dict[str, object]] = {}
    for scheme in (name for name in rates if name not in floats):
        speedup = rates[scheme] / fastest
        verdicts[scheme] = {
            "vs_fastest_float": round(speedup, 3),
            "ship": bool(speedup >= rule.min_speedup and kept[scheme] >= rule.min_winners_kept
                         and dependence[scheme] <= rule.max_batch_dependence),
        }
    return verdicts


def run(model: str = "fast", n_texts: int = 96) -> Dict[str, object]:
    """Texts/s of every path (best of two interleaved timings each), the int8 schemes' deviations from fp32, the
    pairs they keep, and how much a text's score depends on its batch."""
    scorer = CoherenceScorer(model, dtype="fp32")
    texts = TextBuilder(scorer.tokenizer, news_sentences(), 0).fixed(256, n_texts)
    floats = float_paths()
    scorers: Dict[str, CoherenceScorer] = {"fp32": scorer}
    if "bf16" in floats:
        scorers["bf16"] = copy.copy(scorer)
        scorers["bf16"].dtype = "bf16"
    scorers.update({name: quantised(scorer, per_channel) for name, per_channel in SCHEMES.items()})
    rates: Dict[str, float] = {name: 0.0 for name in scorers}
    scores: Dict[str, List[float]] = {}
    for _ in range(2):
        for name, each in scorers.items():
            each.score(texts[:32])  # warm-up: kernels for these shapes
            started = time.perf_counter()
            scores[name] = each.score(texts).scores
            rates[name] = max(rates[name], n_texts / (time.perf_counter() - started))
    others = [name for name in scorers if name != "fp32"]
    deviation = {name: max(abs(a - b) for a, b in zip(scores[name], scores["fp32"])) for name in others}
    kept = {name: winners_kept(scores["fp32"], scores[name]) for name in others}
    dependence = {name: batch_dependence(each, texts[:ALONE_TEXTS], scores[name][:ALONE_TEXTS])
                  for name, each in scorers.items()}
    verdicts = decide(rates, kept, dependence, floats)
    return {
        "model": scorer.model_label, "cpu": cpu_description(), "torch": torch.__version__, "texts": n_texts,
        "tokens": 256, "threads": torch.get_num_threads(),
        "float_paths": floats,
        "texts_per_second": {name: round(rate, 2) for name, rate in rates.items()},
        "max_abs_deviation_from_fp32": {name: round(value, 4) for name, value in deviation.items()},
        "winners_kept": {name: round(value, 4) for name, value in kept.items()},
        "batch_dependence": {name: round(value, 5) for name, value in dependence.items()},
        "schemes": verdicts,
        "ship_int8": any(verdict["ship"] for verdict in verdicts.values()),
    }


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="fast", help="the committed checks are the fast tier's")
    parser.add_argument("--texts", type=int, default=96)
    parser.add_argument("--output", type=Path, help="also write the result here (JSON)")
    arguments = parser.parse_args(argv)
    text = json.dumps(run(arguments.model, arguments.texts), indent=1)
    print(text)
    if arguments.output:
        write_script_output(arguments.output, text + "\n")


if __name__ == "__main__":
    main()
