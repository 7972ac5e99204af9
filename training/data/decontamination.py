"""Keep benchmark text out of training: drop every document that shares a long sentence with a test set.

Splitting by document id keeps the news stand-ins' own documents out of training, but not their copies:
Reuters filed many stories twice under different ids, and the Wikipedia dump holds articles INSteD built
INSTED-WIKI from. Measured on the CPU recipe's prepared data (train split): 52 Reuters, 7 BBC, 1 ABC and
1 Lee documents share sentences with NEWS-PERMUTED/NEWS-INTRUSION, 21 Wikipedia documents with INSTED-WIKI,
1 with a probe set. A sentence counts when, lower-cased and reduced to its words, it has at least
``MIN_WORDS`` words and equals a sentence of a test set; short sentences ("Reuter", datelines) are shared
by chance and say nothing.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Iterable, List, Sequence, Set, Tuple

from coherence_metric.research.catalogue import load_benchmark_test_set, suite_test_sets

from .examples import TrainingItem

MIN_WORDS = 8
WORD = re.compile(r"[a-z0-9]+")


def sentence_key(sentence: str) -> str:
    """The form two sentences are compared in: lower-case words joined by single spaces."""
    return " ".join(WORD.findall(sentence.lower()))


def benchmark_sentences(suite: str = "all") -> Dict[str, Set[str]]:
    """Sentence key -> names of the test sets of ``suite`` that hold it (sentences of ``MIN_WORDS``+ words).

    Reads every test set of the suite the way the benchmark does (stand-ins from their cache or rebuilt).
    """
    sentences: Dict[str, Set[str]] = {}
    for name in suite_test_sets(suite):
        for item in load_benchmark_test_set(name):
            for sentence in (*item.pos, *item.neg):
                key = sentence_key(sentence)
                if key.count(" ") + 1 >= MIN_WORDS:
                    sentences.setdefault(key, set()).add(name)
    return sentences


def contaminated_documents(items: Iterable[TrainingItem], sentences: Dict[str, Set[str]]
                           ) -> Dict[str, FrozenSet[str]]:
    """Document id -> the test sets it shares a sentence with, for every such document among ``items``."""
    found: Dict[str, Set[str]] = {}
    for item in items:
        for sentence in item.pos:
            names = sentences.get(sentence_key(sentence))
            if names:
                found.setdefault(item.doc_id, set()).update(names)
    return {doc_id: frozenset(names) for doc_id, names in found.items()}


def drop_documents(items: Sequence[TrainingItem], doc_ids: Iterable[str]) -> Tuple[List[TrainingItem], int]:
    """The items whose document is not in ``doc_ids`` (order kept), and how many were dropped."""
    excluded = set(doc_ids)
    kept = [item for item in items if item.doc_id not in excluded]
    return kept, len(items) - len(kept)


__all__ = ["MIN_WORDS", "benchmark_sentences", "contaminated_documents", "drop_documents", "sentence_key"]
