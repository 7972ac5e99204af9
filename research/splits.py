"""Train/dev/test splits by document id, and the held-out documents the benchmarks permute.

A document's split is a function of its id alone (SHA-256, not Python's salted ``hash``): 90/5/5 into
train/dev/test. So every block of a document lands in the same split, the assignment is the same on every
machine and run, and adding a corpus never moves another corpus's documents. A corpus registered as
``held_out_only`` (the WSJ sample, our stand-in for the paper's permuted-WSJ test) is all test.

Exact duplicates inside a corpus (Reuters repeats some stories under new ids; the BBC set holds ~130
repeated articles) would put the same text in two splits; of each group of identical documents only the
one with the smallest id is kept, a choice that does not depend on reading order.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Set

from coherence_metric.errors import InputError

from .corpora import CORPORA
from .documents import Document

SPLITS = ("train", "dev", "test")
SPLIT_FRACTIONS = {"train": 0.90, "dev": 0.05, "test": 0.05}


def split_of(doc_id: str, held_out_only: bool = False) -> str:
    """Return the split (``"train"``, ``"dev"`` or ``"test"``) of a document id.

    Args:
        doc_id: a ``Document.id``.
        held_out_only: the document's corpus is test-only.

    Returns:
        The split name; stable across runs, machines and Python versions.
    """
    if held_out_only:
        return "test"
    digest = hashlib.sha256(doc_id.encode("utf-8")).digest()
    position = int.from_bytes(digest[:8], "big") / 2**64
    cumulative = 0.0
    for split in SPLITS:
        cumulative += SPLIT_FRACTIONS[split]
        if position < cumulative:
            return split
    return SPLITS[-1]


def _content_key(document: Document) -> bytes:
    return hashlib.sha256("\n".join(document.sentences).encode("utf-8")).digest()


def duplicate_ids(documents: Iterable[Document]) -> Set[str]:
    """Return the ids of documents whose sentences exactly repeat a document with a smaller id.

    Args:
        documents: one corpus's documents, in any order.

    Returns:
        The ids to skip; the smallest id of each group of identical documents is not among them.
    """
    keeper: Dict[bytes, str] = {}
    duplicates: Set[str] = set()
    for document in documents:
        key = _content_key(document)
        kept = keeper.get(key)
        if kept is None:
            keeper[key] = document.id
        elif document.id < kept:
            duplicates.add(kept)
            keeper[key] = document.id
        else:
            duplicates.add(document.id)
    return duplicates


def held_out_documents(corpus: str, split: str = "test", data_dir: Optional[Path] = None) -> Iterator[Document]:
    """Yield a corpus's documents that fall in ``split``: the same ones ``train prepare`` puts there.

    The benchmarks build their permuted-document test from these (test split), so no model trained on
    the train split has seen them. Documents are returned whole; apply
    ``coherence_metric.training.data.examples.build_items`` (or at least the 4-sentence rule) for the paper's positives.

    Args:
        corpus: a key of ``CORPORA`` (e.g. ``"reuters"``, ``"wsj"``).
        split: ``"train"``, ``"dev"`` or ``"test"``.
        data_dir: the shared data folder; ``None`` finds it the usual way.

    Returns:
        An iterator of Documents in the reader's order, duplicates removed.
    """
    if corpus not in CORPORA:
        raise InputError(f"unknown corpus {corpus!r}: choose from {', '.join(CORPORA)}")
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}: choose from {', '.join(SPLITS)}")
    return _documents_in_split(corpus, split, data_dir)


def _documents_in_split(corpus: str, split: str, data_dir: Optional[Path]) -> Iterator[Document]:
    entry = CORPORA[corpus]
    documents: List[Document] = list(entry.documents(data_dir))
    skip = duplicate_ids(documents)
    for document in documents:
        if document.id not in skip and split_of(document.id, entry.held_out_only) == split:
            yield document
