"""How much window overlap long texts need, measured on dev only.

The scorer reads a text longer than ``max_length`` as sentence windows that overlap by about half, so each word of a
long text goes through the model about twice, and long texts run at 0.5-0.6 of short texts' words/s. Fewer, less
overlapping windows would be faster, but every long text's score would move. This tool scores the same dev texts as
:mod:`.dev_report` with each overlap (``half``: the scorer's; ``k``: windows that repeat k sentences) and reports,
per option: every dev number of ``dev_report``, the paired difference of human_dev dev-select accuracy against
``half``, the share of same-prompt human_dev pairs whose winner stays the same (the tolerance a faster path must meet:
99%, as for bf16), and tokens read per word on the long band (the cost). The ``half`` option is checked against the
scorer's own scores on the length-band texts, so the tool measures the scorer's windows and not a copy of them::

    python -m coherence_metric.training.pointwise.window_overlap fast --overlaps half,1,2 \\
        --out training/ablation/reports/window_overlap/default.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from coherence_metric import CoherenceScorer
from coherence_metric.research.datasets.ratings import word_count
from coherence_metric.toolkit import window_tokens, window_units

from ..state_files import write_output
from .dev_checks import LONG
from .dev_report import DevData, dev_documents, evaluate_option, load_dev_data, paired_difference

HALF = "half"
#: The winner-agreement a faster path must keep (the bf16 rule of docs/reading-scores.md).
SAME_WINNER_TOLERANCE = 0.99
#: The dev part that holds long texts (several windows): where the 'half' option is checked against the scorer.
LONG_PART = "bands"


def parse_overlap(value: str) -> Optional[int]:
    """``half`` -> None (the scorer's windows), ``k`` -> k sentences."""
    if value == HALF:
        return None
    if not value.isdigit() or int(value) < 1:
        raise SystemExit(f"--overlaps: {value!r} is neither 'half' nor a positive number of sentences")
    return int(value)


class WindowedScores:
    """Whole-text scores of sentence lists with a chosen window overlap, each distinct unit scored once."""

    def __init__(self, model: str) -> None:
        self.scorer = CoherenceScorer(model, dtype="fp32")
        self._cache: Dict[str, float] = {}

    def scores(self, texts: Sequence[Sequence[str]], overlap: Optional[int]) -> List[float]:
        """The mean of each text's window scores (one window for a text within ``max_length``)."""
        units, owners = window_units(self.scorer.tokenizer, texts, self.scorer.max_length, overlap)
        joined = [" ".join(unit) for unit in units]
        missing = sorted(set(joined) - set(self._cache))
        if missing:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._cache.update(zip(missing, self.scorer.score(missing).scores))
        totals, counts = [0.0] * len(texts), [0] * len(texts)
        for owner, text in zip(owners, joined):
            totals[owner] += self._cache[text]
            counts[owner] += 1
        return [total / count for total, count in zip(totals, counts)]

    def tokens_per_word(self, texts: Sequence[Sequence[str]], overlap: Optional[int]) -> float:
        """Tokens the document pass reads per word of ``texts`` (special tokens included)."""
        tokens = window_tokens(self.scorer.tokenizer, texts, self.scorer.max_length, overlap)
        return tokens / sum(word_count(text) for text in texts)


def same_winner(data: DevData, first: Dict[str, List[float]], second: Dict[str, List[float]]) -> Dict[str, float]:
    """Per human_dev set, the share of same-prompt dev-select pairs whose higher-scored text is the same."""
    shares = {}
    for rated in data.rated:
        groups: Dict[str, List[int]] = {}
        for position, index in enumerate(data.rated_texts[rated.name]):
            groups.setdefault(rated.texts[index].group, []).append(position)
        a, b = first[rated.name], second[rated.name]
        agreements = [(a[i] > a[j]) == (b[i] > b[j]) for members in groups.values()
                      for i, j in itertools.combinations(members, 2)]
        shares[rated.name] = sum(agreements) / len(agreements)
    return shares


def compare_overlaps(model: str, overlaps: Sequence[str]) -> Dict[str, Any]:
    """Every option's dev numbers, its paired difference and winner agreement against ``half``, and its cost."""
    data = load_dev_data()
    documents = dev_documents(data)
    scores = WindowedScores(model)
    check = documents[LONG_PART] if LONG_PART in documents else []
    own = scores.scorer.score([list(text) for text in check]).scores if check else []
    options: List[Dict[str, Any]] = []
    whole_by_option: Dict[str, Dict[str, List[float]]] = {}
    for name in [HALF, *[value for value in overlaps if value != HALF]]:
        overlap = parse_overlap(name)
        whole = {key: scores.scores(texts, overlap) for key, texts in documents.items()}
        if overlap is None and check:
            drift = max(abs(a - b) for a, b in zip(own, whole[LONG_PART]))
            if drift > 1e-4:
                raise SystemExit(f"the 'half' windows moved the scorer's own scores by {drift:.2g}: the tool no "
                                 "longer copies the scorer's windows")
        option = evaluate_option(data, whole, {key: [] for key in whole}, 0.0)
        option["overlap"] = name
        option["long_tokens_per_word"] = scores.tokens_per_word(data.bands[LONG], overlap) if data.bands else None
        whole_by_option[name] = whole
        options.append(option)
    for option in options:
        option["vs_half"] = paired_difference(options[0]["credits"], option["credits"])
        option["same_winner_as_half"] = same_winner(data, whole_by_option[HALF], whole_by_option[option["overlap"]])
    for option in options:
        del option["credits"]
    return {"model": model, "options": options, "tolerance": SAME_WINNER_TOLERANCE}


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default="fast", help="the committed comparison is the fast tier's")
    parser.add_argument("--overlaps", default="half,1,2", help="'half' and/or sentence counts, comma-separated")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = compare_overlaps(args.model, args.overlaps.split(","))
    result["seconds"] = round(time.perf_counter() - started, 1)
    write_output(json.dumps(result, indent=1) + "\n", args.out)
    for option in result["options"]:
        agreement = ", ".join(f"{name} {share:.3f}" for name, share in option["same_winner_as_half"].items())
        print(f"overlap {option['overlap']}: human {option['human_mean']:.3f} vs half "
              f"{option['vs_half']['difference']:+.3f} {[round(v, 3) for v in option['vs_half']['interval']]} | "
              f"same winner {agreement} | long first>whole {option.get(f'{LONG}_first_beats_whole', float('nan')):.2f}"
              f" | long tokens/word {option['long_tokens_per_word']:.2f}")


if __name__ == "__main__":
    main()
