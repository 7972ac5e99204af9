"""The texts a teacher scores once so a student can learn its judgement: what the default's recipe trains on, plus
the variants where the teacher is known to be wrong.

Each training example of the recipe (``training/pointwise/texts.py``) gives its positive, its sampled negatives and
its lead. To those the pool adds, for every positive of 3+ sentences, its lone first sentence, its first third, its
first half and an in-order subset of its sentences (an extract): the texts a student must not learn to score above the
whole just because the teacher does. Every ``long_every``-th document also gives a long text of 300-800 words (a
window of consecutive sentences), its shuffle, its first sentence and its first third: users score texts that long
and the recipe's long windows stop near 400 words.

The pool is deterministic (the recipe's seed, the pass, the document), in the order the trainer visits the documents,
so its first N texts are the ones the first training steps need; texts are keyed by the sha256 of the text as the
scorer reads it (the sentences joined with one space), so a score computed once is found again by any pool that
holds the same text.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Set, Tuple

from coherence_metric.research.documents import Document

from ..texts import PointwiseData, PointwiseExample, make_example, sample_documents, styled

#: The share of a text's sentences each lead cut keeps (at least one sentence, fewer than all).
CUTS = {"cut_first": 0.0, "cut_third": 1 / 3, "cut_half": 0.5}
LONG_WORDS = (300, 800)
KEY_HEX = 16
"""Hex digits of a text's key: 64 bits, so a pool of millions of texts has no collision in practice."""


@dataclass(frozen=True)
class PoolText:
    """One text of the pool: its key, the text as the scorer reads it, its kind and where it came from."""

    key: str
    text: str
    kind: str
    source: str
    sentences: Tuple[str, ...]


def text_key(text: str) -> str:
    """A text's key: the first 16 hex digits of the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_HEX]


def _cut(sentences: Sequence[str], share: float) -> List[str]:
    return list(sentences[:min(len(sentences) - 1, max(1, int(len(sentences) * share)))])


def extract_of(sentences: Sequence[str], rng: random.Random) -> Optional[List[str]]:
    """An in-order subset of 2 to n-1 sentences that is not a lead (an extractive summary's shape), or None for a
    text under 3 sentences."""
    if len(sentences) < 3:
        return None
    size = rng.randint(2, len(sentences) - 1)
    while True:
        kept = sorted(rng.sample(range(len(sentences)), size))
        if kept != list(range(size)):
            return [sentences[index] for index in kept]


def variants(sentences: Sequence[str], rng: random.Random) -> Iterator[Tuple[str, List[str]]]:
    """The cuts and the extract of a positive of 3+ sentences."""
    if len(sentences) < 3:
        return
    for kind, share in CUTS.items():
        yield kind, _cut(sentences, share)
    extract = extract_of(sentences, rng)
    if extract is not None:
        yield "extract", extract


def example_texts(example: PointwiseExample, rng: random.Random) -> Iterator[Tuple[str, List[str]]]:
    """Every text of one training example (positive, negatives, lead) and the positive's variants."""
    yield "positive", example.positive
    for kind, negative in example.negatives:
        yield f"negative:{kind}", negative
    if example.lead is not None:
        yield "lead", example.lead
    yield from variants(example.positive, rng)


def long_window(document: Document, rng: random.Random) -> Optional[List[str]]:
    """A window of consecutive sentences of 300-800 words, or None when the document is shorter."""
    sentences = document.sentences
    counts = [len(sentence.split()) for sentence in sentences]
    if sum(counts) < LONG_WORDS[0]:
        return None
    target = rng.randint(*LONG_WORDS)
    start = rng.randrange(0, len(sentences))
    while start > 0 and sum(counts[start:]) < LONG_WORDS[0]:
        start -= 1
    window, words = [], 0
    for sentence, count in zip(sentences[start:], counts[start:]):
        if window and words + count > LONG_WORDS[1]:
            break
        window.append(sentence)
        words += count
        if words >= target:
            break
    return window if words >= LONG_WORDS[0] and len(window) >= 3 else None


def long_texts(document: Document, style: str, rng: random.Random) -> Iterator[Tuple[str, List[str]]]:
    """A long text of the document, its shuffle, its first sentence and its first third."""
    window = long_window(document, rng)
    if window is None:
        return
    window = styled(window, style)
    yield "long", window
    shuffled = list(window)
    while shuffled == window:
        rng.shuffle(shuffled)
    yield "long_shuffle", shuffled
    yield "long_cut_first", _cut(window, 0.0)
    yield "long_cut_third", _cut(window, 1 / 3)


#: The pool's texts that the recipe's own steps do not make, each with the kind of the text that caps its target
#: (a cut, an extract or a shuffle is no better than the whole it came from).
EXTRA_CAPS = {"cut_first": "positive", "cut_third": "positive", "cut_half": "positive", "extract": "positive",
              "long_shuffle": "long", "long_cut_first": "long", "long_cut_third": "long", "long": None}


def document_texts(example: PointwiseExample, document: Document, data: PointwiseData, epoch: int, visit: int,
                   long_every: int) -> List[Tuple[str, List[str]]]:
    """Every pool text of one document's visit (the ``visit``-th of pass ``epoch``): the example's texts, its
    positive's variants and, every ``long_every``-th visit, a long text and its variants, by kind."""
    rng = random.Random(f"{data.seed}:pool:{epoch}:{document.id}")
    made = list(example_texts(example, rng))
    if long_every and visit % long_every == 0:
        made.extend(long_texts(document, example.style, rng))
    return made


def pool_extras(example: PointwiseExample, document: Document, data: PointwiseData, epoch: int, visit: int,
                long_every: int) -> Tuple[Tuple[str, List[str]], ...]:
    """The pool texts of a visit beyond the example's own (cuts, extract, long text and its variants): what a step
    adds so the teacher's scores of them are learnt, not only computed."""
    return tuple((kind, sentences) for kind, sentences in document_texts(example, document, data, epoch, visit,
                                                                         long_every) if kind in EXTRA_CAPS)


def visiting_order(count: int, seed: int, epoch: int) -> List[int]:
    """The order in which the pointwise objective visits ``count`` training documents in pass ``epoch``."""
    order = list(range(count))
    random.Random(f"{seed}:order:{epoch}").shuffle(order)
    return order


def build_pool(data: PointwiseData, epochs: int = 1, long_every: int = 2,
               documents: Optional[Sequence[Document]] = None) -> Iterator[PoolText]:
    """The pool's texts in order, each once (by key).

    Args:
        data: the recipe's ``data:`` section (its corpora, seed, negatives, styles...).
        epochs: passes over the training documents (each pass draws other cuts and negatives).
        long_every: every this many documents of a pass also give a long text and its variants (0: none).
        documents: the training documents (default: the recipe's sample of the train split).
    """
    documents = list(documents) if documents is not None else sample_documents(data, "train")
    seen: Set[str] = set()
    for epoch in range(epochs):
        for visit, index in enumerate(visiting_order(len(documents), data.seed, epoch)):
            document = documents[index]
            example = make_example(document, documents, data, epoch)
            for kind, sentences in document_texts(example, document, data, epoch, visit, long_every):
                text = " ".join(sentences)
                key = text_key(text)
                if key in seen or not text.strip():
                    continue
                seen.add(key)
                yield PoolText(key, text, kind, example.id, tuple(sentences))
