"""Dev checks of the two halves of coherence that a cross-text objective can lose (issue 41).

0.2.0's default learnt to put different texts on one scale and lost what the seed paper is about: it ranked a short
text above one shuffled copy of itself only ~63% of the time, and preferred a text's first sentence alone to the whole
text 97% of the time. These checks run on held-out 3-6 sentence texts of the training corpora's *dev* split (never a
test set), beside every option and at every evaluation of a run:

- ``own_shuffle``: how often a text outscores one shuffled copy of itself (ties half);
- ``first_beats_whole``: how often the text's first sentence alone outscores the whole text (0.5 = neutral);
- ``truncation_gap_sd``: mean of (first sentence - whole) in standard deviations of the whole texts' scores;
- ``count_spearman``: Spearman between a text's score and its sentence count over texts of 1-6 sentences (0 = the
  score does not follow length).
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence

from coherence_metric.research.documents import Document

from ..data.permutations import negative_orders

Scorer = Callable[[List[List[str]]], List[float]]


@dataclass(frozen=True)
class DevTexts:
    """The fixed held-out texts the checks score: each text, one shuffle of it, its first sentence, and texts of
    every length 1-6 for the length correlation."""

    texts: List[List[str]]
    shuffles: List[List[str]]
    lengths: List[List[str]]


def build_dev_texts(documents: Sequence[Document], seed: int = 41) -> DevTexts:
    """3-6 sentence leads of the documents with 3+ sentences, one distinct shuffle each, and a 1-6 sentence lead of
    every document (its length drawn uniformly), all seeded."""
    texts: List[List[str]] = []
    shuffles: List[List[str]] = []
    lengths: List[List[str]] = []
    for document in documents:
        rng = random.Random(f"{seed}:{document.id}")
        sentences = [sentence for sentence in document.sentences if sentence.strip()]
        if sentences:
            lengths.append(sentences[: rng.randint(1, min(6, len(sentences)))])
        if len(sentences) < 3:
            continue
        text = sentences[: rng.randint(3, min(6, len(sentences)))]
        orders = negative_orders(text, 1, rng)
        if not orders:
            continue
        texts.append(text)
        shuffles.append([text[index] for index in orders[0]])
    return DevTexts(texts, shuffles, lengths)


def _ranks(values: Sequence[float]) -> List[float]:
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(first: Sequence[float], second: Sequence[float]) -> float:
    """Spearman's rho with average ranks for ties; 0.0 when either side is constant."""
    a, b = _ranks(first), _ranks(second)
    if len(set(a)) < 2 or len(set(b)) < 2:
        return 0.0
    mean_a, mean_b = statistics.fmean(a), statistics.fmean(b)
    covariance = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b))
    norm = (sum((x - mean_a) ** 2 for x in a) * sum((y - mean_b) ** 2 for y in b)) ** 0.5
    return covariance / norm


def win_credit(first: float, second: float) -> float:
    """1 when ``first`` scores higher, 0.5 for a tie, 0 otherwise (a pairwise accuracy's credit)."""
    return 1.0 if first > second else 0.5 if first == second else 0.0


def run_dev_checks(dev: DevTexts, score: Scorer) -> Dict[str, float]:
    """The four checks, scoring every text with ``score`` in one call (sentence lists in, scores out)."""
    firsts = [text[:1] for text in dev.texts]
    scores = score(dev.texts + dev.shuffles + firsts + dev.lengths)
    n = len(dev.texts)
    whole, shuffled, first = scores[:n], scores[n:2 * n], scores[2 * n:3 * n]
    by_length = scores[3 * n:]
    spread = statistics.pstdev(whole) if n > 1 else 0.0
    gap = statistics.fmean(f - w for f, w in zip(first, whole)) if n else 0.0
    return {
        "own_shuffle": statistics.fmean(win_credit(w, s) for w, s in zip(whole, shuffled)) if n else 0.0,
        "first_beats_whole": statistics.fmean(win_credit(f, w) for f, w in zip(first, whole)) if n else 0.0,
        "truncation_gap_sd": gap / spread if spread > 0 else 0.0,
        "count_spearman": spearman(by_length, [float(len(text)) for text in dev.lengths]),
    }


__all__ = ["DevTexts", "build_dev_texts", "run_dev_checks", "spearman", "win_credit"]
