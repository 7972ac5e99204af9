"""Training examples for the transition model, built on sentence indices so a new corruption costs nothing.

The sampled training documents become one table of sentences; a window is a run of a document's rows, corrupted one
of three ways as the localisation benchmark corrupts its held-out documents (an intruded sentence, a moved one, a
swapped adjacent pair; ``coherence_metric.research.localisation_sets``) or left intact, with one label per boundary: 1
where the two sentences followed each other in the document, 0 where they did not. Each boundary becomes one
(context, next sentence) pair (:func:`coherence_metric.scoring.transition_pass.boundary_pairs`). Intruders follow
INSteD's rule (:class:`~coherence_metric.research.datasets.intrusion.IntruderFinder`: the most similar sentence of
another
training document), found once per document position.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from coherence_metric.research.datasets.intrusion import IntruderFinder
from coherence_metric.research.localisation_sets import new_adjacencies
from coherence_metric.toolkit import boundary_pairs

logger = logging.getLogger("coherence_metric.training")

KINDS = ("intact", "intrusion", "moved", "swap")


@dataclass
class IndexedDocuments:
    """Documents as rows of one sentence table, with each position's intruder row (-1: none found)."""

    sentences: List[str]
    rows: List[List[int]]
    intruders: List[List[int]]


@dataclass
class Window:
    """One training example: the rows of its sentences in reading order, and a label per boundary."""

    rows: List[int]
    labels: List[float]
    kind: str


def index_documents(documents: Sequence[Sequence[str]]) -> IndexedDocuments:
    """One sentence table for ``documents`` (each sentence a row, in order) and each position's intruder row."""
    sentences: List[str] = []
    rows: List[List[int]] = []
    for document in documents:
        rows.append(list(range(len(sentences), len(sentences) + len(document))))
        sentences.extend(document)
    finder = IntruderFinder(documents)
    intruders: List[List[int]] = []
    for index, document in enumerate(documents):
        found = [finder.find(index, position) for position in range(len(document))]
        intruders.append([-1 if intruder is None else rows[intruder.doc_index][intruder.sentence_index]
                          for intruder in found])
    logger.info("transition model: %d documents, %d sentences", len(rows), len(sentences))
    return IndexedDocuments(sentences, rows, intruders)


def _window_span(count: int, min_sentences: int, max_sentences: int, lead_share: float,
                 rng: random.Random) -> Tuple[int, int]:
    length = rng.randint(min(min_sentences, count), min(max_sentences, count))
    start = 0 if rng.random() < lead_share else rng.randint(0, count - length)
    return start, length


def corrupt_order(kind: str, length: int, rng: random.Random, intruder_at: Optional[Sequence[int]] = None
                  ) -> Optional[List[int]]:
    """A window's reading order as positions in the document window (-1: the intruder), or None when ``kind``
    cannot apply (too short; no intruder for any eligible position)."""
    order = list(range(length))
    if kind == "intact":
        return order
    if kind == "swap":
        first = rng.randrange(length - 1)
        order[first], order[first + 1] = order[first + 1], order[first]
        return order
    if kind == "moved":
        source = rng.randrange(length)
        targets = [target for target in range(length) if abs(target - source) >= 2]
        if not targets:
            return None
        order.pop(source)
        order.insert(rng.choice(targets), source)
        return order
    eligible = [position for position in range(1, length) if intruder_at is None or intruder_at[position] >= 0]
    if not eligible:
        return None
    order[rng.choice(eligible)] = -1
    return order


def sample_window(documents: IndexedDocuments, index: int, kinds: Dict[str, float], min_sentences: int,
                  max_sentences: int, lead_share: float, rng: random.Random) -> Optional[Window]:
    """One corrupted (or intact) window of document ``index``; None when the drawn kind cannot apply to it."""
    doc_rows = documents.rows[index]
    if len(doc_rows) < 3:
        return None
    start, length = _window_span(len(doc_rows), max(3, min_sentences), max_sentences, lead_share, rng)
    kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
    intruders = documents.intruders[index][start:start + length]
    order = corrupt_order(kind, length, rng, intruders)
    if order is None:
        return None
    # An intrusion keeps every position in place, so the intruder at reading position p is the one found for p.
    rows = [intruders[place] if position < 0 else doc_rows[start + position] for place, position in enumerate(order)]
    broken = set(new_adjacencies(order))
    return Window(rows, [0.0 if boundary in broken else 1.0 for boundary in range(length - 1)], kind)


def epoch_windows(documents: IndexedDocuments, kinds: Dict[str, float], min_sentences: int, max_sentences: int,
                  lead_share: float, per_document: int, seed: int) -> List[Window]:
    """``per_document`` windows of every document (fewer where a drawn kind cannot apply), shuffled, seeded."""
    rng = random.Random(seed)
    windows: List[Window] = []
    for index in range(len(documents.rows)):
        for _ in range(per_document):
            window = sample_window(documents, index, kinds, min_sentences, max_sentences, lead_share, rng)
            if window is not None:
                windows.append(window)
    rng.shuffle(windows)
    return windows


def boundary_examples(documents: IndexedDocuments, window: Window, intact_per_break: float,
                      rng: random.Random) -> List[Tuple[Tuple[str, str], float]]:
    """A window's (pair, label) examples: every broken boundary, and intact ones at ``intact_per_break`` per broken
    one (every intact one of an intact window up to that many, at least one), so both labels stay in balance."""
    pairs = boundary_pairs([documents.sentences[row] for row in window.rows])
    broken = [index for index, label in enumerate(window.labels) if label < 0.5]
    intact = [index for index, label in enumerate(window.labels) if label >= 0.5]
    keep = max(1, round(intact_per_break * max(len(broken), 1)))
    chosen = broken + rng.sample(intact, min(keep, len(intact)))
    return [(pairs[index], window.labels[index]) for index in sorted(chosen)]


__all__ = ["IndexedDocuments", "KINDS", "Window", "boundary_examples", "corrupt_order", "epoch_windows",
           "index_documents", "sample_window"]
