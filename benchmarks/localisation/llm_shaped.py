"""Does ``explain`` put its flag on a real break in text written the way LLMs write, and never on the framing?

On the dev set of :mod:`.llm_shaped_set` (chat answers built from dev news documents, each with one known inserted
bullet), ``explain`` runs on the broken texts and on the same texts without the break, and the report gives:

- ``broken.top1``: the share of broken texts whose strongest flag (the one ``--flag 1`` shows) is the inserted
  bullet, with a 95% Wilson interval, and its chance rate: a flag put on a random unit among those that can be
  flagged (body units after the first), averaged over texts (``chance_top1``), and on a random unit of any kind
  (``chance_top1_any_unit``);
- ``flags_on_unread_units``: flags, of any rank, on a frame, heading or code unit, in either text, and
  ``flags_on_emoji_units`` on a unit of emoji alone (0 by construction: the check that they stay 0);
- ``clean.texts_flagged``: the share of clean texts that get a flag (what a reader would be shown in error);
- ``plain_prose``: the same two numbers for the same content written as plain prose (the bullets' sentences, with
  and without the inserted one): what the chat shape costs or gains against the form the thresholds were set on;
- ``scores``: what the framing does to ``score``: the clean texts as written, the same with their frame units left
  out, and the bullets' sentences as plain prose, with the rank correlation of each form with the prose.

Run: ``python -m coherence_metric.benchmarks.localisation.llm_shaped --model fast --out
benchmarks/reports/<checkpoint>/llm-shaped-dev.json`` (fp32; 120 items are 480 texts explained, a few minutes on a
2-core CPU).
Nothing here is chosen on these texts: the thresholds are explain's, set on CoheSentia dev stories.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Sequence

from coherence_metric import __version__
from coherence_metric.toolkit import BODY, FRAME, KINDS, split_units, symbols_only

from ..reporting.files import write_script_output
from .llm_shaped_set import MAX_BULLETS, MIN_BULLETS, MIN_INSERTED_WORDS, STYLES, ShapedItem, load_items

SUITE = "llm-shaped-dev"
DEFAULT_COUNT = 120
#: Flags read per text: every flag (a cap far above any text's units), so flags on unread units are all seen.
ALL_FLAGS = 1000


def wilson(hits: int, total: int, z: float = 1.96) -> List[float]:
    """The 95% Wilson score interval of a share (right at 0 and 1, unlike the normal approximation)."""
    if not total:
        return [0.0, 0.0]
    share = hits / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _flags_on(texts: Sequence[Any], unit_is: Callable[[str, str], bool]) -> int:
    """Flags, of any rank, on units for which ``unit_is(kind, text)`` holds."""
    return sum(1 for text in texts for flag in text.flags
               if unit_is(text.units[flag.index], text.sentences[flag.index]))


def summarise(items: Sequence[ShapedItem], broken: Sequence[Any], clean: Sequence[Any]) -> Dict[str, Any]:
    """The report's numbers from the explained broken and clean texts (``TextExplanation``s, in item order)."""
    hits = sum(1 for item, text in zip(items, broken) if text.flags and text.flags[0].index == item.inserted)
    by_style: Dict[str, Dict[str, Any]] = {}
    for style in STYLES:
        chosen = [(item, text) for item, text in zip(items, broken) if item.style == style]
        found = sum(1 for item, text in chosen if text.flags and text.flags[0].index == item.inserted)
        by_style[style] = {"texts": len(chosen), "top1": round(found / len(chosen), 4) if chosen else None}
    candidates = [sum(1 for kind in text.units if kind in BODY) - 1 for text in broken]
    explained = [*broken, *clean]
    count = len(items)
    return {
        "texts": count,
        "broken": {
            "top1": round(hits / count, 4),
            "top1_interval": wilson(hits, count),
            "chance_top1": round(sum(1 / value for value in candidates) / count, 4),
            "chance_top1_any_unit": round(sum(1 / len(text.units) for text in broken) / count, 4),
            "no_flag": round(sum(1 for text in broken if not text.flags) / count, 4),
            "inserted_flagged_any_rank": round(sum(1 for item, text in zip(items, broken)
                                                   if any(flag.index == item.inserted for flag in text.flags))
                                               / count, 4),
            "top_flag_kinds": dict(Counter(text.flags[0].kind for text in broken if text.flags)),
            "by_style": by_style,
        },
        "clean": {
            "texts_flagged": round(sum(1 for text in clean if text.flags) / count, 4),
            "texts_flagged_interval": wilson(sum(1 for text in clean if text.flags), count),
            "body_units_flagged": round(sum(len(text.flags) for text in clean)
                                        / sum(sum(1 for kind in text.units if kind in BODY) for text in clean), 4),
        },
        "flags_on_unread_units": _flags_on(explained, lambda kind, _: kind not in BODY),
        "flags_on_emoji_units": _flags_on(explained, lambda _, sentence: symbols_only(sentence)),
        "units": dict(Counter(kind for item in items for kind in (unit.kind for unit in split_units(item.broken)))),
    }


def frame_effect(scorer: Any, items: Sequence[ShapedItem]) -> Dict[str, Any]:
    """Mean ``score`` of the clean texts as written, without their frame units, and of their bullets' sentences as
    plain prose, and each form's Spearman correlation with the prose: whether leaving frames out of the score would
    bring it closer to that of the same content written plainly."""
    from scipy.stats import spearmanr

    written = [item.clean for item in items]
    unframed = [" ".join(unit.text for unit in split_units(item.clean) if unit.kind != FRAME) for item in items]
    prose = [item.prose(False) for item in items]
    scores = scorer.score([*written, *unframed, *prose]).scores
    count = len(items)
    forms = {"as_written": scores[:count], "frames_left_out": scores[count:2 * count]}
    plain = scores[2 * count:]
    result: Dict[str, Any] = {"plain_prose_mean": round(sum(plain) / count, 4)}
    for name, values in forms.items():
        result[name] = {"mean": round(sum(values) / count, 4),
                        "mean_abs_difference_from_prose": round(sum(abs(a - b) for a, b in zip(values, plain))
                                                                / count, 4),
                        "spearman_with_prose": round(float(spearmanr(values, plain)[0]), 4)}
    return result


def prose_reference(items: Sequence[ShapedItem], broken: Sequence[Any], clean: Sequence[Any]) -> Dict[str, Any]:
    """Top-1 and clean flag rate of the same content as plain prose (``ShapedItem.prose``; the inserted sentence is
    unit ``position`` there)."""
    count = len(items)
    hits = sum(1 for item, text in zip(items, broken) if text.flags and text.flags[0].index == item.position)
    flagged = sum(1 for text in clean if text.flags)
    return {"top1": round(hits / count, 4), "top1_interval": wilson(hits, count),
            "chance_top1": round(sum(1 / (len(text.sentences) - 1) for text in broken) / count, 4),
            "no_flag": round(sum(1 for text in broken if not text.flags) / count, 4),
            "clean_texts_flagged": round(flagged / count, 4), "clean_texts_flagged_interval": wilson(flagged, count)}


def run(model: str, count: int, seed: int, dtype: str = "fp32") -> Dict[str, Any]:
    """Build the set, explain its broken and clean texts with ``model`` in ``dtype``, and return the report."""
    from coherence_metric import CoherenceScorer

    started = time.perf_counter()
    items = load_items(count, seed)
    scorer = CoherenceScorer(model, dtype=dtype)
    texts = ([item.broken for item in items] + [item.clean for item in items]
             + [item.prose(True) for item in items] + [item.prose(False) for item in items])
    result = scorer.explain(texts, flagged=ALL_FLAGS)
    count = len(items)
    broken, clean = result.texts[:count], result.texts[count:2 * count]
    prose_broken, prose_clean = result.texts[2 * count:3 * count], result.texts[3 * count:]
    report: Dict[str, Any] = {
        "suite": SUITE,
        "model": model,
        "signature": str(result.signature),
        "mechanism": result.mechanism,
        "recipe": {
            "documents": "dev split of the news corpora (coherence_metric.research.standins.read_news_documents, "
                         "split='dev'); never a test set",
            "count": count,
            "seed": seed,
            "styles": list(STYLES),
            "bullets": [MIN_BULLETS, MAX_BULLETS],
            "inserted": f"a sentence of {MIN_INSERTED_WORDS}+ words of another dev document, as a bullet after the "
                        "first",
            "unit_kinds": list(KINDS),
        },
        **summarise(items, broken, clean),
        "plain_prose": prose_reference(items, prose_broken, prose_clean),
        "scores": frame_effect(scorer, items),
    }
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["coherence_metric"] = __version__
    return report


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="fast", help="the committed report is the fast tier's")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help="texts (each explained clean and broken)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dtype", default="fp32")
    parser.add_argument("--out", help="also write the report here (JSON)")
    arguments = parser.parse_args(argv)
    text = json.dumps(run(arguments.model, arguments.count, arguments.seed, arguments.dtype), indent=1)
    print(text)
    if arguments.out:
        write_script_output(arguments.out, text + "\n")


if __name__ == "__main__":
    main()
