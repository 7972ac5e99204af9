"""Dev checks of the two halves of coherence that a cross-text objective can lose.

0.2.0's default learnt to put different texts on one scale and lost what the seed paper is about: it ranked a short
text above one shuffled copy of itself only ~63% of the time, and preferred a text's first sentence alone to the whole
text 97% of the time. These checks run on held-out 3-6 sentence texts of the training corpora's *dev* split (never a
test set), beside every option and at every evaluation of a run:

- ``own_shuffle``: how often a text outscores one shuffled copy of itself (ties half);
- ``first_beats_whole``: how often the text's first sentence alone outscores the whole text (0.5 = neutral);
- ``truncation_gap_sd``: mean of (first sentence - whole) in standard deviations of the whole texts' scores;
- ``count_spearman``: Spearman between a text's score and its sentence count over texts of 1-6 sentences (0 = the
  score does not follow length).

Two more checks, each on its own texts (so the four above and their texts never move):

- ``extractive_vs_lead`` / ``extractive_vs_shuffle``: an extractive summary is the document's sentences in order
  with gaps. A metric that scores it below the same document's lead of the same length punishes a style that
  half the summarisation systems it judges write (0.5 = neutral); against a shuffle of itself it should win (1.0).
- ``{band}_{cut}_beats_whole``: how often a text's first sentence, first third or first half outscores the whole
  text, per length band (``short``: 3-6 sentences; ``long``: stories and articles of a few hundred words), since a
  metric can be neutral on short texts and still prefer a lead of a long one (0.5 = neutral).
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Sequence

from coherence_metric.research.documents import Document
from coherence_metric.research.permutations import negative_orders

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


#: How many documents of each corpus give an extractive text (three texts each: enough to see 0.5 from 0.3, few
#: enough for a CPU to score beside every option).
EXTRACTIVE_PER_SOURCE = 15
#: An extractive text keeps the first sentence and picks the rest from this many leading sentences, as extractive
#: systems on news do; starting at the first sentence keeps a dangling opening reference out of the comparison,
#: so the subset differs from the lead only by its gaps.
EXTRACTIVE_WINDOW = 12


@dataclass(frozen=True)
class ExtractiveTexts:
    """Per document: an in-order subset of its sentences with gaps, its lead of the same length, and a shuffle of
    the subset (the three lists are parallel)."""

    subsets: List[List[str]]
    leads: List[List[str]]
    shuffles: List[List[str]]


def extractive_positions(count: int, rng: random.Random) -> List[int]:
    """Sorted positions of a 3-5 sentence extract of a ``count``-sentence document (``count`` >= 6): the first
    sentence, then the rest from the leading :data:`EXTRACTIVE_WINDOW`, never the plain lead (at least one gap)."""
    window = min(count, EXTRACTIVE_WINDOW)
    size = rng.randint(3, min(5, window - 1))
    while True:
        positions = [0, *sorted(rng.sample(range(1, window), size - 1))]
        if positions != list(range(size)):
            return positions


def build_extractive_texts(documents: Sequence[Document], seed: int = 52,
                           per_source: int = EXTRACTIVE_PER_SOURCE) -> ExtractiveTexts:
    """Extractive texts of the first ``per_source`` documents of each corpus that have 6+ sentences, seeded."""
    subsets: List[List[str]] = []
    leads: List[List[str]] = []
    shuffles: List[List[str]] = []
    taken: Dict[str, int] = {}
    for document in documents:
        sentences = [sentence for sentence in document.sentences if sentence.strip()]
        if len(sentences) < 6 or taken.get(document.source, 0) >= per_source:
            continue
        rng = random.Random(f"{seed}:{document.id}")
        subset = [sentences[position] for position in extractive_positions(len(sentences), rng)]
        orders = negative_orders(subset, 1, rng)
        if not orders or subset == sentences[: len(subset)]:  # repeated sentences can make either degenerate
            continue
        taken[document.source] = taken.get(document.source, 0) + 1
        subsets.append(subset)
        leads.append(sentences[: len(subset)])
        shuffles.append([subset[index] for index in orders[0]])
    return ExtractiveTexts(subsets, leads, shuffles)


def extractive_documents(extractive: ExtractiveTexts) -> List[List[str]]:
    """The texts :func:`run_extractive_checks` scores, in its order: subsets, leads, shuffles."""
    return extractive.subsets + extractive.leads + extractive.shuffles


def run_extractive_checks(extractive: ExtractiveTexts, score: Scorer) -> Dict[str, float]:
    """``extractive_vs_lead`` and ``extractive_vs_shuffle``: the subset's win credit against each (ties half)."""
    n = len(extractive.subsets)
    scores = score(extractive_documents(extractive))
    if not n:
        return {}  # no document long enough: no number rather than a made-up neutral one
    subset, lead, shuffled = scores[:n], scores[n:2 * n], scores[2 * n:3 * n]
    return {
        "extractive_vs_lead": statistics.fmean(map(win_credit, subset, lead)),
        "extractive_vs_shuffle": statistics.fmean(map(win_credit, subset, shuffled)),
    }


#: A band's cuts: name -> sentences kept of an n-sentence text (rounded up, so a third of a 6+ sentence text is 2+
#: sentences and every cut of a 2+ sentence text is shorter than the text).
CUTS: Dict[str, Callable[[int], int]] = {
    "first": lambda count: 1,
    "first_third": lambda count: -(-count // 3),
    "first_half": lambda count: -(-count // 2),
}
SHORT, LONG = "short", "long"
#: Short-band texts (spread over the 3-6 sentence check texts): four texts each.
SHORT_BAND_TEXTS = 48


def spread(items: Sequence[List[str]], count: int) -> List[List[str]]:
    """At most ``count`` items evenly spaced through ``items`` (corpus after corpus, so every corpus keeps a share)."""
    if len(items) <= count:
        return list(items)
    return [items[index * len(items) // count] for index in range(count)]


def band_documents(bands: Mapping[str, Sequence[List[str]]]) -> List[List[str]]:
    """The texts :func:`run_band_checks` scores, in its order: per band, the wholes, then each cut of them."""
    texts: List[List[str]] = []
    for wholes in bands.values():
        texts.extend(list(text) for text in wholes)
        for keep in CUTS.values():
            texts.extend(list(text[: keep(len(text))]) for text in wholes)
    return texts


def run_band_checks(bands: Mapping[str, Sequence[List[str]]], score: Scorer) -> Dict[str, float]:
    """``{band}_{cut}_beats_whole`` for every band and cut: how often the cut outscores its whole (ties half)."""
    scores = score(band_documents(bands))
    result: Dict[str, float] = {}
    cursor = 0
    for band, wholes in bands.items():
        n = len(wholes)
        whole = scores[cursor:cursor + n]
        cursor += n
        for cut in CUTS:
            part = scores[cursor:cursor + n]
            cursor += n
            if n:  # an empty band gives no number rather than a made-up neutral one
                result[f"{band}_{cut}_beats_whole"] = statistics.fmean(map(win_credit, part, whole))
    return result


__all__ = ["CUTS", "DevTexts", "ExtractiveTexts", "band_documents", "build_dev_texts", "build_extractive_texts",
           "extractive_documents", "extractive_positions", "run_band_checks", "run_dev_checks",
           "run_extractive_checks", "spearman", "spread", "win_credit"]
