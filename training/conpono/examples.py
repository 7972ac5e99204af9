"""CONPONO examples: an anchor segment, and candidates at distances k from it (seed 001, section 2 and 2.3).

One example, as the paper and its reference code build it:

- a paragraph; an anchor of ``anchor_sentences`` consecutive sentences (the paper: 4) at a random place;
- for a distance k in ``[-K..-1, 1..K]`` the target is ``target_sentences`` consecutive sentences (the paper:
  3) whose nearest sentence is |k| positions from the anchor's nearest edge: k = +1 starts right after the
  anchor, k = -1 ends right before it, and for the paper's example an anchor s7..s10 has the k = -4 target
  s1..s3. Sentences between the anchor and a distant target are left out on purpose. A target that runs
  off the paragraph is cut at its edge; a distance whose nearest sentence lies outside is not available;
- ``1 + hard_negatives`` in-paragraph spans at distinct distances (the paper: 4, "we randomly select 4 of
  the 8 possible k targets"). Each span at a distance within K is the true target of its own k and a hard
  negative of the others, so one example carries up to ``1 + hard_negatives`` losses over the same
  candidates, as in the paper ("4 losses (1 for each of the 4 randomly chosen true targets)");
- ``random_negatives`` spans of ``target_sentences`` sentences from other documents (the paper: 28).

Where fewer than ``1 + hard_negatives`` distances within K exist (short paragraphs, or K = 1 with its two
distances), the hard-negative slots are filled with same-paragraph spans at distances beyond K, which
have no loss of their own; where the paragraph has none left, with extra random spans. Every example
therefore has the same number of candidates, and K = 1 is "binary sentence ordering with negative
samples" as the paper describes it, still with in-paragraph hard negatives.

Paragraphs. :class:`~coherence_metric.research.documents.Document` keeps sentences, not paragraph marks (the corpus
readers join paragraphs before sentence splitting), so a "paragraph" here is a window of
``paragraph_sentences`` consecutive sentences of one document: our stand-in for the paper's paragraphs of
Wikipedia and BooksCorpus, named as such. A trailing window too short to hold an anchor and one target is
joined to the window before it.

Everything is deterministic: an example depends only on the ``random.Random`` handed in, which callers
seed with the stream position (training) or the example's index (the dev slice).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from coherence_metric.errors import InputError
from coherence_metric.research.documents import Document

from ..checks import refuse_failed

MAX_TRIES = 50  # draws of a random negative before giving up on finding a text not already a candidate


@dataclass(frozen=True)
class ExampleSettings:
    """How examples are cut; defaults are the paper's (section 2.3, A.2)."""

    anchor_sentences: int = 4
    target_sentences: int = 3
    max_distance: int = 4
    hard_negatives: int = 3
    random_negatives: int = 28

    def check(self, where: str) -> None:
        """Raise an InputError naming the bad setting."""
        checks = [
            (self.anchor_sentences >= 1, "anchor_sentences must be at least 1"),
            (self.target_sentences >= 1, "target_sentences must be at least 1"),
            (1 <= self.max_distance <= 8, "max_distance (K) must be between 1 and 8 (the paper uses 1..4)"),
            (self.hard_negatives >= 0, "hard_negatives must be 0 or more"),
            (self.random_negatives >= 0, "random_negatives must be 0 or more"),
        ]
        refuse_failed(checks, where)

    @property
    def candidates(self) -> int:
        """Candidates per example: the in-paragraph spans plus the random ones."""
        return 1 + self.hard_negatives + self.random_negatives

    @property
    def min_paragraph_sentences(self) -> int:
        """The shortest paragraph that holds an anchor and one target."""
        return self.anchor_sentences + 1


@dataclass(frozen=True)
class Paragraph:
    """Consecutive sentences of one document (a window: see the module docstring)."""

    doc_id: str
    sentences: Tuple[str, ...]


@dataclass(frozen=True)
class Candidate:
    """One candidate: its text, the document it came from and its distance from the anchor (None: random)."""

    text: str
    doc_id: str
    distance: Optional[int]


@dataclass
class ConponoExample:
    """An anchor, its candidates and, per distance k that has a loss, the index of k's true target.

    ``anchor_start`` is the anchor's first sentence in its paragraph (kept for inspection and tests).
    """

    anchor: str
    candidates: List[Candidate]
    targets: Dict[int, int] = field(default_factory=dict)
    doc_id: str = ""
    anchor_start: int = 0


def distances(max_distance: int) -> List[int]:
    """``[-K..-1, 1..K]``: the order of the per-distance weights W_k and of the label rows."""
    return [*range(-max_distance, 0), *range(1, max_distance + 1)]


def distance_row(k: int, max_distance: int) -> int:
    """Row of distance k in :func:`distances` (k = -K is row 0, k = +K is row 2K-1)."""
    if k == 0 or abs(k) > max_distance:
        raise ValueError(f"distance {k} is outside [-{max_distance}..-1, 1..{max_distance}]")
    return k + max_distance if k < 0 else k + max_distance - 1


def paragraphs_of(documents: Iterable[Document], window: int, min_sentences: int) -> List[Paragraph]:
    """Cut documents into windows of ``window`` consecutive sentences (the paragraph stand-in).

    Args:
        documents: the documents, in a fixed order.
        window: sentences per paragraph.
        min_sentences: shorter paragraphs are joined to the previous window of the same document, or
            dropped when the document itself is shorter.

    Returns:
        The paragraphs in document order.
    """
    if window < min_sentences:
        raise InputError(f"data.paragraph_sentences ({window}) must be at least anchor_sentences + 1 "
                         f"({min_sentences})")
    paragraphs: List[Paragraph] = []
    for document in documents:
        chunks = [list(document.sentences[start:start + window])
                  for start in range(0, len(document.sentences), window)]
        if len(chunks) > 1 and len(chunks[-1]) < min_sentences:
            chunks[-2].extend(chunks.pop())
        paragraphs.extend(Paragraph(document.id, tuple(chunk)) for chunk in chunks if len(chunk) >= min_sentences)
    return paragraphs


def target_span(length: int, anchor_start: int, anchor_length: int, k: int,
                target_length: int) -> Optional[Tuple[int, int]]:
    """The sentence range ``[start, end)`` of the target at distance k, cut at the paragraph's edges.

    Returns None when the target's nearest sentence lies outside the paragraph.
    """
    if k > 0:
        first = anchor_start + anchor_length + k - 1
        return (first, min(first + target_length, length)) if first < length else None
    last = anchor_start + k
    return (max(0, last - target_length + 1), last + 1) if last >= 0 else None


def _text(sentences: Sequence[str]) -> str:
    return " ".join(sentences)


def build_example(paragraph: Paragraph, pool: Sequence[Paragraph], settings: ExampleSettings,
                  rng: random.Random) -> ConponoExample:
    """One example from ``paragraph``, random negatives drawn from ``pool`` (other documents only).

    Args:
        paragraph: at least ``settings.min_paragraph_sentences`` sentences.
        pool: paragraphs to draw random negatives from; those of ``paragraph.doc_id`` are skipped.
        settings: the counts and sizes.
        rng: the only source of randomness.

    Returns:
        The example, its candidates shuffled; ``targets`` maps each labelled k to its candidate's index.

    Raises:
        InputError: the pool has no paragraph of another document to draw random negatives from.
    """
    sentences = paragraph.sentences
    n = len(sentences)
    if n < settings.min_paragraph_sentences:
        raise InputError(f"paragraph of {paragraph.doc_id} has {n} sentences; an example needs "
                         f"{settings.min_paragraph_sentences}")
    anchor_start = rng.randrange(n - settings.anchor_sentences + 1)
    anchor_end = anchor_start + settings.anchor_sentences

    def span_at(k: int) -> Optional[Tuple[int, int]]:
        return target_span(n, anchor_start, settings.anchor_sentences, k, settings.target_sentences)

    within = [k for k in distances(settings.max_distance) if span_at(k) is not None]
    beyond = [k for k in range(-n, n + 1) if abs(k) > settings.max_distance and span_at(k) is not None]
    rng.shuffle(within)
    rng.shuffle(beyond)
    slots = 1 + settings.hard_negatives
    chosen = within[:slots]
    labelled = set(chosen)
    chosen += beyond[: slots - len(chosen)]

    candidates: List[Candidate] = []
    seen = {_text(sentences[anchor_start:anchor_end])}
    for k in chosen:
        start, end = span_at(k)  # type: ignore[misc]  # chosen only holds available distances
        text = _text(sentences[start:end])
        if text in seen:  # a repeated sentence would make two candidates (or a candidate and the anchor) equal
            labelled.discard(k)
            continue
        seen.add(text)
        candidates.append(Candidate(text, paragraph.doc_id, k))
    randoms = settings.random_negatives + (slots - len(candidates))
    candidates.extend(_random_candidates(paragraph.doc_id, pool, randoms, settings.target_sentences, seen, rng))
    rng.shuffle(candidates)
    targets = {candidate.distance: index for index, candidate in enumerate(candidates)
               if candidate.distance is not None and candidate.distance in labelled}
    return ConponoExample(anchor=_text(sentences[anchor_start:anchor_end]), candidates=candidates,
                          targets=dict(sorted(targets.items())), doc_id=paragraph.doc_id,
                          anchor_start=anchor_start)


def _random_candidates(doc_id: str, pool: Sequence[Paragraph], count: int, target_sentences: int,
                       seen: set, rng: random.Random) -> List[Candidate]:
    """``count`` spans of ``target_sentences`` sentences from paragraphs of other documents, all distinct."""
    found: List[Candidate] = []
    for _ in range(count):
        for _ in range(MAX_TRIES):
            other = pool[rng.randrange(len(pool))]
            if other.doc_id == doc_id:
                continue
            start = rng.randrange(max(len(other.sentences) - target_sentences + 1, 1))
            text = _text(other.sentences[start:start + target_sentences])
            if text not in seen:
                seen.add(text)
                found.append(Candidate(text, other.doc_id, None))
                break
        else:
            raise InputError(f"cannot draw {count} distinct random negatives from other documents than {doc_id}: "
                             f"the split's {len(pool)} paragraphs come from too few documents; add corpora or "
                             "raise data.max_documents / data.dev_max_documents")
    return found


__all__ = ["Candidate", "ConponoExample", "ExampleSettings", "Paragraph", "build_example", "distance_row",
           "distances", "paragraphs_of", "target_span"]
