"""Training texts shaped like what a metric scores, and their generator-like corruptions.

A metric next to ROUGE scores summaries and story continuations: 1-6 sentences, often lower-cased and tokenised.
The paper trained on long documents cut at 256 tokens and never saw a one-sentence text. Here every example is a
short text cut from a corpus document (its lead, the first k sentences, or a window of k sentences anywhere),
written as it arrives in evaluation data (plain, lower-cased, PTB-tokenised, or both; the same style for the
positive and its negatives, so style is never a cue), with negatives from
:mod:`coherence_metric.training.data.corruptions`.

An example depends only on the seed, the document and the pass over the data (``epoch``), never on what was
drawn before, so a resumed run sees exactly the examples it would have seen.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA
from coherence_metric.research.documents import Document
from coherence_metric.research.splits import split_of
from coherence_metric.toolkit import tokenise_like_ptb

from ..checks import refuse_failed
from ..data.corruptions import CORRUPTIONS
from ..data.decontamination import benchmark_sentences, sentence_key
from ..data.local_corruptions import fit_length

STYLES = ("plain", "lower", "tokenised", "lower_tokenised")
#: Other documents a corruption that borrows sentences (intrusion, topic switch) may draw from, per example.
POOL_SIZE = 8
#: The lead cuts a recipe may name (``data.lead_cuts``), as the share of a text's sentences each keeps; every lead
#: keeps at least one sentence, so ``first`` is the lone first sentence.
LEAD_CUTS = {"first": 0.0, "third": 1 / 3, "half": 0.5}


@dataclass
class PointwiseData:
    """``data:`` of a pointwise recipe.

    Attributes:
        corpora: corpus names (``coherence_metric.research.corpora``); train and dev documents come from their
            own splits.
        train_documents: at most this many training documents per corpus (seeded sample).
        dev_documents: at most this many dev documents per corpus.
        min_sentences / max_sentences: a text's length k is drawn uniformly in this range (capped by the document).
        lead_share: share of texts that are the document's first k sentences (a summary's shape); the rest are a
            window of k consecutive sentences anywhere in it.
        styles: weight of each way a text is written: ``plain``, ``lower``, ``tokenised``, ``lower_tokenised``.
        negatives: per kind of :data:`coherence_metric.training.data.corruptions.CORRUPTIONS`, how many negatives
            of that kind each text gets (0 turns a kind off; a kind that cannot apply to a text gives none).
        negatives_per_text: keep a seeded sample of this many of a text's negatives (None: all). On a CPU the
            forward and backward passes over every negative dominate a step; a sample keeps every kind in play
            across the batch at a fraction of the cost.
        decontaminate: drop documents sharing an 8+-word sentence with a benchmark test set.
        seed: seeds the document sample and every example.
        long_share: share of texts that are long windows of ``long_min_sentences``-``long_max_sentences``
            consecutive sentences (a whole document's worth, up to the token limit), so order is learnt on long
            texts too; 0 keeps every text short.
        long_min_sentences / long_max_sentences: the length range of a long window.
        length_matched: cut each negative back to its positive's sentence count (``fit_length``): kinds that insert
            a sentence would otherwise make negatives longer than positives, and fewer sentences a cue.
        truncation_leads: give every positive of 2+ sentences a lead (its first k < n sentences) that the objective's
            ``truncation_weight`` holds level with the whole text: a cut-short text is neither better nor worse.
        lead_cuts: where leads are cut, drawn uniformly among the named cuts: ``first`` (the first sentence),
            ``third`` (the first third of the sentences), ``half`` (the first half); empty: k uniform in [1, n-1].
            On a long text a uniform k is rarely the lone first sentence, the lead that beats the whole most often.
        lead_min_sentences: give a lead only to positives of at least this many sentences (2: every text that has
            a lead). Set to ``long_min_sentences``, only long texts are held level with their leads, so a loss that
            lifts a long text above its lead does not also lift every short text above its own.
    """

    corpora: List[str] = field(default_factory=lambda: ["bbc", "reuters", "lee", "abc", "mctest", "tales"])
    train_documents: int = 2000
    dev_documents: int = 100
    min_sentences: int = 1
    max_sentences: int = 6
    lead_share: float = 0.5
    styles: Dict[str, float] = field(default_factory=lambda: {"plain": 2.0, "lower": 1.0, "tokenised": 1.0,
                                                               "lower_tokenised": 1.0})
    negatives: Dict[str, int] = field(default_factory=lambda: {kind: 1 for kind in CORRUPTIONS})
    negatives_per_text: Optional[int] = None
    decontaminate: bool = True
    seed: int = 13
    long_share: float = 0.0
    long_min_sentences: int = 7
    long_max_sentences: int = 16
    length_matched: bool = False
    truncation_leads: bool = False
    lead_cuts: List[str] = field(default_factory=list)
    lead_min_sentences: int = 2

    def check(self, where: str) -> None:
        """Raise InputError naming the first bad key."""
        unknown = sorted(set(self.negatives) - set(CORRUPTIONS))
        bad_styles = sorted(set(self.styles) - set(STYLES))
        checks = [
            (not unknown, f"data.negatives: unknown kinds {unknown} (known: {', '.join(CORRUPTIONS)})"),
            (not bad_styles, f"data.styles: unknown styles {bad_styles} (known: {', '.join(STYLES)})"),
            (all(count >= 0 for count in self.negatives.values()), "data.negatives: counts must be >= 0"),
            (sum(self.negatives.values()) >= 1, "data.negatives: at least one negative per text"),
            (self.negatives_per_text is None or self.negatives_per_text >= 1, "data.negatives_per_text must be >= 1"),
            (all(weight >= 0 for weight in self.styles.values()) and sum(self.styles.values()) > 0,
             "data.styles: weights must be >= 0, not all 0"),
            (1 <= self.min_sentences <= self.max_sentences, "data: need 1 <= min_sentences <= max_sentences"),
            (0.0 <= self.lead_share <= 1.0, "data.lead_share must lie in [0, 1]"),
            (0.0 <= self.long_share <= 1.0, "data.long_share must lie in [0, 1]"),
            (1 <= self.long_min_sentences <= self.long_max_sentences,
             "data: need 1 <= long_min_sentences <= long_max_sentences"),
            (self.train_documents >= 1 and self.dev_documents >= 1, "data: train/dev_documents must be >= 1"),
            (bool(self.corpora), "data.corpora: name at least one corpus"),
            (set(self.lead_cuts) <= set(LEAD_CUTS),
             f"data.lead_cuts: unknown cuts {sorted(set(self.lead_cuts) - set(LEAD_CUTS))} "
             f"(known: {', '.join(LEAD_CUTS)})"),
            (self.lead_min_sentences >= 2, "data.lead_min_sentences must be >= 2 (a lead is shorter than its text)"),
        ]
        refuse_failed(checks, where)


@dataclass(frozen=True)
class PointwiseExample:
    """One coherent short text and its corruptions, each tagged with its kind; ``extras``: texts by kind that only a
    teacher's stored scores supervise (the pool's cuts, extract and long texts of the same document)."""

    id: str
    style: str
    positive: List[str]
    negatives: List[Tuple[str, List[str]]]
    lead: Optional[List[str]] = None
    extras: Tuple[Tuple[str, List[str]], ...] = ()


def lead_length(count: int, cuts: Sequence[str], rng: random.Random) -> int:
    """Sentences in the lead of a text of ``count`` >= 2 sentences: one of ``cuts`` drawn uniformly (see
    ``PointwiseData.lead_cuts``), at least one sentence and fewer than ``count``; no cuts: uniform in [1, count-1]."""
    if not cuts:
        return rng.randint(1, count - 1)
    cut = rng.choice(list(cuts))
    return min(count - 1, max(1, int(count * LEAD_CUTS[cut])))


def styled(sentences: Sequence[str], style: str) -> List[str]:
    """The sentences as evaluation data often arrives: lower-cased, PTB-tokenised, both, or as they are."""
    if style in ("tokenised", "lower_tokenised"):
        sentences = [tokenise_like_ptb(sentence) for sentence in sentences]
    if style in ("lower", "lower_tokenised"):
        sentences = [sentence.lower() for sentence in sentences]
    return list(sentences)


def cut_text(document: Document, data: PointwiseData, rng: random.Random) -> List[str]:
    """A lead or a window of k sentences of the document, k uniform in [min_sentences, max_sentences]."""
    sentences = document.sentences
    if data.long_share > 0 and rng.random() < data.long_share:  # no draw at all when off: old recipes unchanged
        k = min(rng.randint(data.long_min_sentences, data.long_max_sentences), len(sentences))
        start = rng.randrange(0, len(sentences) - k + 1)
        return list(sentences[start:start + k])
    k = min(rng.randint(data.min_sentences, data.max_sentences), len(sentences))
    if rng.random() < data.lead_share or len(sentences) == k:
        return list(sentences[:k])
    start = rng.randrange(0, len(sentences) - k + 1)
    return list(sentences[start:start + k])


def make_example(document: Document, pool: Sequence[Document], data: PointwiseData, epoch: int) -> PointwiseExample:
    """The example of ``document`` in pass ``epoch``: a cut text, a style, and its negatives kind by kind."""
    rng = random.Random(f"{data.seed}:{epoch}:{document.id}")
    text = cut_text(document, data, rng)
    styles = [style for style in STYLES if data.styles.get(style, 0.0) > 0]
    style = rng.choices(styles, weights=[data.styles[style] for style in styles])[0]
    others = [other.sentences for other in rng.sample(pool, min(POOL_SIZE + 1, len(pool)))
              if other.id != document.id][:POOL_SIZE]
    negatives: List[Tuple[str, List[str]]] = []
    for kind, count in data.negatives.items():
        made: List[List[str]] = []
        for draw in range(count * 2):  # a second try when a draw repeats an earlier one
            corrupted = CORRUPTIONS[kind](text, random.Random(f"{data.seed}:{epoch}:{document.id}:{kind}:{draw}"),
                                          others)
            if corrupted is None:
                break
            if data.length_matched:
                corrupted = fit_length(text, corrupted)
                if corrupted is None:  # the corruption lived in the dropped tail: draw again
                    continue
            if corrupted not in made:
                made.append(corrupted)
            if len(made) == count:
                break
        negatives.extend((kind, styled(corrupted, style)) for corrupted in made)
    if data.negatives_per_text is not None and len(negatives) > data.negatives_per_text:
        kept = sorted(rng.sample(range(len(negatives)), data.negatives_per_text))
        negatives = [negatives[index] for index in kept]
    lead = None
    if data.truncation_leads and len(text) >= data.lead_min_sentences:
        lead = styled(text[: lead_length(len(text), data.lead_cuts, rng)], style)
    return PointwiseExample(f"{document.id}@{epoch}", style, styled(text, style), negatives, lead)


def sample_documents(data: PointwiseData, split: str) -> List[Document]:
    """Up to ``train_documents`` / ``dev_documents`` documents of each corpus from its ``split``, seeded, in a
    stable order; decontaminated when asked."""
    limit = data.train_documents if split == "train" else data.dev_documents
    chosen: List[Document] = []
    for name in data.corpora:
        if name not in CORPORA:
            raise InputError(f"data.corpora: unknown corpus {name!r} (known: {', '.join(CORPORA)})")
        corpus = CORPORA[name]
        documents = sorted((document for document in corpus.documents()
                            if split_of(document.id, corpus.held_out_only) == split and document.sentences),
                           key=lambda document: document.id)
        random.Random(f"{data.seed}:{name}:{split}").shuffle(documents)
        chosen.extend(documents[:limit] if not data.decontaminate else _clean(documents, limit))
    if not chosen:
        raise InputError(f"no {split} documents in {', '.join(data.corpora)}")
    return chosen


@functools.lru_cache(maxsize=1)
def _benchmark_sentence_keys() -> frozenset:
    """Keys of every 8+-word sentence of the benchmark test sets (read once per process: it takes seconds)."""
    return frozenset(benchmark_sentences())


def _clean(documents: Sequence[Document], limit: int) -> List[Document]:
    """The first ``limit`` documents sharing no 8+-word sentence with a benchmark test set."""
    banned = _benchmark_sentence_keys()
    kept: List[Document] = []
    for document in documents:
        if not any(sentence_key(sentence) in banned for sentence in document.sentences):
            kept.append(document)
        if len(kept) == limit:
            break
    return kept
