"""Ordered sentences from the project's corpora, served as contiguous blocks (seed 004's batches).

Both multi-view objectives read a *contiguous* run of N sentences per batch: the discriminative one counts
the sentences within ``c`` positions of each sentence as its context, the generative one predicts each
sentence's successor. So the stream keeps every document's sentences in order, documents one after the
other, and a batch is a window of N consecutive sentences. Every sentence carries its document's index, so
neighbours across a document boundary are not treated as context (the paper's BookCorpus is one long
stream per book and does not need the distinction; our corpora are many short articles).

Determinism by position (what :class:`coherence_metric.training.loop.ObjectiveLoop` needs for exact resume): an epoch
visits every window once in an order drawn from ``random.Random(seed, epoch)``; each epoch also shifts the window
grid by an offset drawn from the same generator, so sentences at a window's edge in one epoch sit inside
one in the next.

Documents come from :func:`coherence_metric.research.splits.held_out_documents`, so the training stream holds only
train-split documents (hashed by id) and the held-out numbers come from the dev split.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Optional, Sequence

from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA
from coherence_metric.research.documents import Document
from coherence_metric.research.splits import held_out_documents


@dataclass(frozen=True)
class Block:
    """N consecutive sentences of the stream and the document index of each (equal index = same document)."""

    sentences: List[str]
    documents: List[int]


class SentenceStream:
    """The sentences of a list of documents in order, cut into blocks of ``block_size``.

    Args:
        documents: documents in a fixed order; those with fewer than 2 sentences are dropped (no context).
        block_size: N, the batch size.
        seed: mixes into every epoch's order and offset.
        where: names the stream in error messages (e.g. ``"train split of lee"``).
    """

    def __init__(self, documents: Iterable[Document], block_size: int, seed: int = 0, where: str = "stream") -> None:
        if block_size < 2:
            raise InputError(f"{where}: the batch size must be at least 2 sentences, got {block_size}")
        self.sentences: List[str] = []
        self.documents: List[int] = []
        count = 0
        for document in documents:
            sentences = [sentence for sentence in document.sentences if sentence.strip()]
            if len(sentences) < 2:
                continue
            self.sentences.extend(sentences)
            self.documents.extend([count] * len(sentences))
            count += 1
        self.document_count = count
        self.block_size = block_size
        self.seed = seed
        if len(self.sentences) < block_size:
            raise InputError(f"{where} has {len(self.sentences)} sentences in documents of 2 or more, fewer than "
                             f"one batch of {block_size}: add corpora, raise the limits or lower the batch size")
        # Windows start at offset + k * N; this many fit for every offset in [0, N - 1].
        self.blocks_per_epoch = max((len(self.sentences) - (block_size - 1)) // block_size, 1)

    def __len__(self) -> int:
        return len(self.sentences)

    def window(self, start: int) -> Block:
        """The block of ``block_size`` sentences starting at ``start``."""
        end = start + self.block_size
        return Block(self.sentences[start:end], self.documents[start:end])

    def block(self, position: int) -> Block:
        """The training block at a stream position: the same position gives the same block in every run."""
        epoch, index = divmod(position, self.blocks_per_epoch)
        generator = random.Random(f"{self.seed}:{epoch}")
        spare = len(self.sentences) - self.blocks_per_epoch * self.block_size
        offset = generator.randrange(min(spare, self.block_size - 1) + 1)
        order = list(range(self.blocks_per_epoch))
        generator.shuffle(order)
        return self.window(offset + order[index] * self.block_size)

    def fixed_blocks(self, count: int) -> List[Block]:
        """The first ``count`` blocks on the unshifted grid: the held-out set, the same at every evaluation."""
        return [self.window(index * self.block_size) for index in range(min(count, len(self) // self.block_size))]


def split_documents(corpora: Sequence[str], split: str, max_documents: Optional[int] = None,
                    data_dir: Optional[Path] = None) -> List[Document]:
    """The documents of ``split`` from each corpus in turn, at most ``max_documents`` per corpus.

    Raises:
        InputError: an unknown corpus, or a held-out-only one (the WSJ sample is never trained on).
    """
    if not corpora:
        raise InputError("data.corpora is empty: name at least one corpus (e.g. wiki, bbc, reuters)")
    documents: List[Document] = []
    for name in corpora:
        if name not in CORPORA:
            raise InputError(f"data.corpora: unknown corpus {name!r} (known: {', '.join(CORPORA)})")
        if CORPORA[name].held_out_only:
            raise InputError(f"data.corpora: {name!r} is held out for testing only and is never trained on")
        taken = held_out_documents(name, split, data_dir)
        for number, document in enumerate(taken):
            if max_documents is not None and number >= max_documents:
                break
            documents.append(document)
    return documents


__all__ = ["Block", "SentenceStream", "split_documents"]
