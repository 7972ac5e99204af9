"""Positive documents and their permuted negatives, built as the paper says (Jwalapuram et al. 2022, 2.1).

The rules, in order:

1. a document of fewer than 4 sentences is dropped (too short for its order to carry signal);
2. a document of 20 or more sentences is cut into consecutive blocks of 10 sentences; each block of at
   least 4 sentences is a positive (the last, shorter block included); a shorter document is one positive;
3. the 600-token cap: a positive longer than ``max_tokens`` (measured with the trained model's tokenizer)
   is **cut** at a sentence boundary: trailing sentences are removed until it fits, and it is dropped only
   if fewer than 4 sentences are left. Cutting whole sentences (rather than letting the model truncate
   tokens) keeps the positive and every negative made of exactly the same sentences, all of them seen by
   the model; a token-level truncation would hide a different tail of each permutation, so the model
   could tell them apart by content instead of order (the reference code's ``--max_len`` help likewise
   asks for data preprocessed so that truncation does not affect the task). Cutting rather than dropping
   keeps long-sentence news;
4. each positive gets up to ``negatives`` unique permutations (the paper's h = 50 mining candidates),
   none equal to the original; a block with fewer distinct orders gets all of them (``len(negs)`` says
   how many), and a block whose sentences are all identical has none and is dropped.

Randomness is per item: ``random.Random(f"{seed}:{item id}")``, so an item's negatives depend only on
the seed and its own text and id, never on which documents were read before it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from coherence_metric.research.documents import Document
from coherence_metric.research.permutations import negative_orders

from .tokens import SentenceLengthCounter


@dataclass(frozen=True)
class ExampleConfig:
    """The paper's data recipe; every field goes into the manifest.

    Attributes:
        min_sentences: positives (documents and blocks) need at least this many sentences.
        long_document_sentences: documents of this many sentences or more are cut into blocks.
        block_sentences: sentences per block.
        max_tokens: the token cap for a positive, special tokens included.
        negatives: permutations per positive (h).
        seed: the seed of every per-item random generator.
    """

    min_sentences: int = 4
    long_document_sentences: int = 20
    block_sentences: int = 10
    max_tokens: int = 600
    negatives: int = 50
    seed: int = 13

    def to_dict(self) -> Dict[str, int]:
        """Return the fields as a plain dict for the manifest."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class TrainingItem:
    """One positive document and its negatives, the unit of a split file.

    Attributes:
        id: ``"<doc id>#<block index>"``, unique across all splits.
        doc_id: the source document's id (all blocks of a document share it, and its split).
        source: the corpus name.
        pos: the positive's sentences in coherent order.
        negs: the negatives as orders of ``pos`` indices: ``[pos[i] for i in order]`` is a negative
            document. Stored as indices because 50 copies of every sentence would make the files ~20x
            larger; ``negative_documents()`` expands them.
        tokens: the positive's token count under the manifest's tokenizer, special tokens included.
    """

    id: str
    doc_id: str
    source: str
    pos: List[str]
    negs: List[List[int]]
    tokens: int = 0

    def negative_documents(self) -> List[List[str]]:
        """Return every negative as a list of sentences (the reference code's ``negs`` format)."""
        return [[self.pos[index] for index in order] for order in self.negs]

    def to_json(self) -> Dict[str, Any]:
        """Return the JSON-ready dict written as one line of a split file."""
        return {
            "id": self.id,
            "doc_id": self.doc_id,
            "source": self.source,
            "pos": list(self.pos),
            "negs": [list(order) for order in self.negs],
            "tokens": self.tokens,
        }

    @classmethod
    def from_json(cls, record: Dict[str, Any]) -> "TrainingItem":
        """Rebuild an item from one parsed line of a split file (extra keys are ignored)."""
        return cls(
            id=record["id"],
            doc_id=record["doc_id"],
            source=record["source"],
            pos=list(record["pos"]),
            negs=[list(order) for order in record["negs"]],
            tokens=int(record.get("tokens", 0)),
        )


@dataclass
class BuildCounts:
    """What happened to documents and blocks on the way to items; summed per corpus and split."""

    documents: int = 0
    documents_duplicate: int = 0
    documents_short: int = 0
    documents_used: int = 0
    blocks_short: int = 0
    blocks_cut_at_cap: int = 0
    blocks_dropped_at_cap: int = 0
    blocks_without_negatives: int = 0
    positives: int = 0
    negatives: int = 0
    positives_with_fewer_negatives: int = 0
    sentences: int = 0
    tokens: int = 0

    def add(self, other: "BuildCounts") -> None:
        """Add another tally into this one."""
        for name, value in other.__dict__.items():
            setattr(self, name, getattr(self, name) + value)

    def to_dict(self) -> Dict[str, int]:
        """Return the counts as a plain dict for the manifest."""
        return dict(self.__dict__)


def document_blocks(sentences: Sequence[str], config: ExampleConfig) -> List[Tuple[int, List[str]]]:
    """Cut a document into candidate positives by sentence count (rules 1 and 2), before the token cap.

    Args:
        sentences: the document's sentences.
        config: the recipe.

    Returns:
        ``(block index, sentences)`` pairs; empty for a document under ``min_sentences``. Block indices
        count every block of the document, so an item id never changes when a neighbouring block is dropped.
    """
    if len(sentences) < config.min_sentences:
        return []
    if len(sentences) < config.long_document_sentences:
        return [(0, list(sentences))]
    size = config.block_sentences
    blocks = [list(sentences[start : start + size]) for start in range(0, len(sentences), size)]
    return [(index, block) for index, block in enumerate(blocks) if len(block) >= config.min_sentences]


def sentences_within_cap(lengths: Sequence[int], special_tokens: int, max_tokens: int) -> int:
    """Return how many leading sentences fit in ``max_tokens`` (rule 3).

    Args:
        lengths: token counts of the block's sentences, without special tokens.
        special_tokens: the tokenizer's special tokens for one sequence.
        max_tokens: the cap.

    Returns:
        The largest k such that the first k sentences plus special tokens fit.
    """
    total = special_tokens
    for kept, length in enumerate(lengths):
        total += length
        if total > max_tokens:
            return kept
    return len(lengths)


def build_items(
    document: Document,
    config: ExampleConfig,
    counter: SentenceLengthCounter,
    counts: Optional[BuildCounts] = None,
) -> List[TrainingItem]:
    """Turn one document into training items: blocks, token cap, negatives (rules 1-4).

    Args:
        document: a document from a corpus reader.
        config: the recipe (sizes, cap, number of negatives, seed).
        counter: measures tokens with the trained model's tokenizer (a ``TokenCounter``).
        counts: a tally to update with what was kept, cut and dropped, if given.

    Returns:
        The document's items in block order; empty when nothing survives the rules.
    """
    tally = counts if counts is not None else BuildCounts()
    tally.documents += 1
    if len(document.sentences) < config.min_sentences:
        tally.documents_short += 1
        return []
    blocks = document_blocks(document.sentences, config)
    if len(document.sentences) >= config.long_document_sentences:
        tally.blocks_short += math.ceil(len(document.sentences) / config.block_sentences) - len(blocks)
    lengths = counter.sentence_lengths(document.sentences)
    items = []
    for index, block in blocks:
        start = index * config.block_sentences
        block_lengths = lengths[start : start + len(block)]
        kept = sentences_within_cap(block_lengths, counter.special_tokens, config.max_tokens)
        if kept < config.min_sentences:
            tally.blocks_dropped_at_cap += 1
            continue
        if kept < len(block):
            tally.blocks_cut_at_cap += 1
            block = block[:kept]
        item_id = f"{document.id}#{index}"
        orders = negative_orders(block, config.negatives, random.Random(f"{config.seed}:{item_id}"))
        if not orders:
            tally.blocks_without_negatives += 1
            continue
        tokens = counter.special_tokens + sum(block_lengths[:kept])
        items.append(TrainingItem(item_id, document.id, document.source, block, [list(o) for o in orders], tokens))
        tally.positives += 1
        tally.negatives += len(orders)
        tally.positives_with_fewer_negatives += int(len(orders) < config.negatives)
        tally.sentences += len(block)
        tally.tokens += tokens
    tally.documents_used += int(bool(items))
    return items
