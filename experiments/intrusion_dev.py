"""Can ``explain``'s transition model find an intruded sentence better? Options read on the localisation benchmark's
dev documents only (issue 38; nothing here reads the test split).

The shipped model reads each boundary as (the two sentences before it, the sentence after it). An intruder at
position k breaks two boundaries, but the model's value of the second one (intruder -> next) reads a context that
still holds the sentence before the intruder, which the next sentence does follow: of its dev hits, 82 are the
boundary into the intruder and 45 the one out of it. Readings that need no training are compared with the model
alone, on the same dev texts (paired bootstrap of the top-1 difference):

- ``skip``: the model also reads, for each inner sentence k, whether sentence k+1 follows the sentences before k
  (the text with k left out). Where leaving k out joins its neighbours better than keeping it
  (``gain_k = skip_k - mean(value_{k-1}, value_k)`` above 0), both boundaries of k are lowered by ``lam * gain_k``.
- ``cosine``: the adjacent-sentence cosine of the pretrained encoder, added as ``a * z(cosine)`` to ``z(value)``
  (z: over all dev boundaries; the cosine sees a jump in topic, which is what an intruder is).
- ``narrow``: the model given only the sentence before the boundary (so an intruder alone is the context of the
  boundary after it), alone, or averaged with, or the minimum of, the two-sentence reading.
- mixes of these.

    python -m experiments.intrusion_dev --limit 200 --out training/ablation/reports/transitions/intrusion-dev.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from coherence_metric.benchmarks.localisation import cosine_transitions, hit_flags, paired_difference
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.localisation_sets import KINDS, LocalisationItem, load_localisation_sets
from coherence_metric.scoring.transition_pass import LEFT_CONTEXT, TransitionModel, transition_values


def narrow_pairs(sentences: Sequence[str]) -> List[tuple]:
    """For each boundary, the pair (the one sentence before it, the sentence after it): the context the model reads at
    a text's first boundary, here at every boundary, so an intruder alone is the context of the boundary after it."""
    return [(sentences[cut - 1], sentences[cut]) for cut in range(1, len(sentences))]


def skip_pairs(sentences: Sequence[str]) -> List[tuple]:
    """For each inner sentence k, the pair (the ``LEFT_CONTEXT`` sentences before k, sentence k+1)."""
    return [(" ".join(sentences[max(0, k - LEFT_CONTEXT):k]), sentences[k + 1]) for k in range(1, len(sentences) - 1)]


def pair_values(model: TransitionModel, sentence_lists: Sequence[Sequence[str]], build: Any) -> List[List[float]]:
    """Per text, the model's logit of each pair ``build`` makes of it."""
    return transition_values(model.model, model.tokenizer, sentence_lists, model.device, build)


def with_skip(values: Sequence[float], skips: Sequence[float], lam: float) -> List[float]:
    """Boundary values lowered around each sentence whose removal joins its neighbours better than keeping it."""
    adjusted = list(values)
    for offset, skip in enumerate(skips):
        k = offset + 1  # inner sentence k sits between boundaries k-1 and k
        gain = skip - (values[k - 1] + values[k]) / 2.0
        if gain > 0:
            adjusted[k - 1] -= lam * gain
            adjusted[k] -= lam * gain
    return adjusted


def with_cosine(values: Sequence[float], cosines: Sequence[float], weight: float,
                scale: Dict[str, tuple]) -> List[float]:
    """z(value) + weight * z(cosine), both standardised over every dev boundary."""
    (v_mean, v_sd), (c_mean, c_sd) = scale["model"], scale["cosine"]
    return [(v - v_mean) / v_sd + weight * (c - c_mean) / c_sd for v, c in zip(values, cosines)]


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    sets: Dict[str, List[LocalisationItem]] = load_localisation_sets(args.limit, args.seed, JsonCache(None),
                                                                     split="dev")
    model = TransitionModel()
    values, skips, cosines, narrows = {}, {}, {}, {}
    for kind in KINDS:
        documents = [item.sentences for item in sets[kind]]
        values[kind] = model.transition_values(documents)
        skips[kind] = pair_values(model, documents, skip_pairs)
        narrows[kind] = pair_values(model, documents, narrow_pairs)
        cosines[kind] = cosine_transitions(documents)
    every_value = np.concatenate([v for kind in KINDS for v in values[kind] if v])
    every_cosine = np.concatenate([c for kind in KINDS for c in cosines[kind] if c])
    scale = {"model": (float(every_value.mean()), float(every_value.std())),
             "cosine": (float(every_cosine.mean()), float(every_cosine.std()))}
    options: Dict[str, Any] = {"model": lambda kind, i: values[kind][i]}
    for lam in (0.25, 0.5, 1.0):
        options[f"skip lam={lam}"] = (lambda kind, i, lam=lam: with_skip(values[kind][i], skips[kind][i], lam))
    for weight in (0.25, 0.5, 1.0):
        options[f"cosine a={weight}"] = (lambda kind, i, weight=weight:
                                         with_cosine(values[kind][i], cosines[kind][i], weight, scale))
    for lam in (0.5, 1.0):
        for weight in (0.25, 0.5):
            options[f"skip lam={lam} + cosine a={weight}"] = (
                lambda kind, i, lam=lam, weight=weight:
                with_cosine(with_skip(values[kind][i], skips[kind][i], lam), cosines[kind][i], weight, scale))
    options["narrow"] = lambda kind, i: narrows[kind][i]
    options["mean(model, narrow)"] = lambda kind, i: [(a + b) / 2 for a, b in zip(values[kind][i], narrows[kind][i])]
    options["min(model, narrow)"] = lambda kind, i: [min(a, b) for a, b in zip(values[kind][i], narrows[kind][i])]
    for weight in (0.25, 0.5):
        options[f"mean(model, narrow) + cosine a={weight}"] = (
            lambda kind, i, weight=weight:
            with_cosine([(a + b) / 2 for a, b in zip(values[kind][i], narrows[kind][i])], cosines[kind][i], weight,
                        scale))
    options["cosine"] = lambda kind, i: cosines[kind][i]
    flags = {name: {kind: hit_flags(sets[kind], [option(kind, i) for i in range(len(sets[kind]))])
                    for kind in KINDS} for name, option in options.items()}
    rows = []
    for name in options:
        row: Dict[str, Any] = {"name": name, "top1": {}, "top2": {}, "vs_model_top1": {}}
        for kind in KINDS:
            row["top1"][kind] = float(flags[name][kind][:, 0].mean())
            row["top2"][kind] = float(flags[name][kind][:, 1].mean())
            difference = paired_difference(flags[name][kind], flags["model"][kind], args.seed)
            row["vs_model_top1"][kind] = [difference["top1"], difference["top1_interval"]]
        row["mean_top1"] = float(np.mean(list(row["top1"].values())))
        pooled = np.concatenate([flags[name][kind][:, 0] - flags["model"][kind][:, 0] for kind in KINDS])
        draws = np.random.default_rng(args.seed).integers(0, len(pooled), size=(1000, len(pooled)))
        row["vs_model_mean_top1"] = [float(pooled.mean()),
                                     [float(x) for x in np.percentile(pooled[draws].mean(axis=1), [2.5, 97.5])]]
        rows.append(row)
        print(f"{name:32s} " + " ".join(f"{kind} {100 * row['top1'][kind]:5.1f} "
                                         f"({100 * row['vs_model_top1'][kind][0]:+5.1f} "
                                         f"[{100 * row['vs_model_top1'][kind][1][0]:+.1f},"
                                         f"{100 * row['vs_model_top1'][kind][1][1]:+.1f}])" for kind in KINDS)
              + f" | mean {100 * row['mean_top1']:.1f} ({100 * row['vs_model_mean_top1'][0]:+.1f} "
                f"[{100 * row['vs_model_mean_top1'][1][0]:+.1f},{100 * row['vs_model_mean_top1'][1][1]:+.1f}])")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"split": "dev", "limit": args.limit, "seed": args.seed, "scale": scale,
                                    "rows": rows, "seconds": round(time.perf_counter() - started, 1)}, indent=1)
                        + "\n")
    print(f"{time.perf_counter() - started:.0f}s -> {args.out}")


if __name__ == "__main__":
    main()
