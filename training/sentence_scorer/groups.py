"""The training and dev groups of the sentence-level term, embedded once and cached in the run folder.

A group is an item's positive, its first permutations and its intrusion negatives (the same documents the main
trainer's dev evaluation scores). Embedding is the slow part (about 55 sentences per second on one core for
MiniLM), so the embeddings are saved with a key of everything that made them and reused by a resumed run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import torch

from coherence_metric.toolkit import SentenceEmbedder

from ..data.examples import TrainingItem
from ..data.intrusions import Intrusion, build_document_intrusions, build_intrusions, build_sibling_intrusions
from ..data.selection import load_prepared
from ..evaluation import Span, group_documents
from ..state_files import save_atomically

logger = logging.getLogger("coherence_metric.training")


@dataclass
class EmbeddedGroups:
    """Documents as rows of one embedding matrix, and where each item's group lies among them."""

    embeddings: torch.Tensor
    documents: List[List[int]]
    spans: List[Span]

    def group(self, index: int) -> List[List[int]]:
        """The documents of one group: the positive first."""
        start, permutations, intrusions = self.spans[index]
        return self.documents[start:start + 1 + permutations + intrusions]


def load_items(folder: Path, decontaminate: bool, source_limits: Dict[str, int],
               seed: int) -> Tuple[List[TrainingItem], List[TrainingItem]]:
    """A prepared data folder's train and dev items, decontaminated and limited as the main trainer does."""
    prepared = load_prepared(folder, decontaminate, source_limits, seed)
    return prepared.train, prepared.dev


def draw_items(items: Sequence[TrainingItem], count: int, seed: int) -> List[TrainingItem]:
    """``count`` items drawn with ``seed`` (all when fewer): the items :func:`sample_groups` builds its groups from."""
    return random.Random(seed).sample(list(items), min(count, len(items)))


def sample_groups(items: Sequence[TrainingItem], count: int, permutations: int, intrusions: int,
                  seed: int, document_intrusions: int = 0, sibling_intrusions: int = 0
                  ) -> Tuple[List[List[str]], List[Span]]:
    """``count`` items drawn with ``seed`` (all when fewer), as groups of sentence-list documents.

    Each group: the positive, ``permutations`` permutations, then ``intrusions`` nearest-sentence intrusions,
    ``document_intrusions`` similar-document ones and ``sibling_intrusions`` same-document ones
    (``coherence_metric.training.data.intrusions``). The first two kinds take their intruders from the drawn items
    themselves (another document of the same corpus), so their negatives depend only on the draw; a sibling intruder
    comes from another block of the item's own document anywhere in ``items``.
    """
    sample = draw_items(items, count, seed)
    kinds = intrusions_by_kind(sample, items, intrusions, document_intrusions, sibling_intrusions, seed)
    found = {item.id: [intrusion for intrusion, _ in kinds[item.id]] for item in sample}
    return group_documents(sample, permutations, found)


def intrusions_by_kind(sample: Sequence[TrainingItem], items: Sequence[TrainingItem], intrusions: int,
                       document_intrusions: int, sibling_intrusions: int, seed: int
                       ) -> Dict[str, List[Tuple[Intrusion, str]]]:
    """Each drawn item's intrusions in group order, with their kind ("nearest sentence", "similar document",
    "same document"); an intrusion an earlier kind already made is kept once."""
    found: Dict[str, List[Tuple[Intrusion, str]]] = {item.id: [] for item in sample}
    for kind, built in (("nearest sentence", build_intrusions(sample, intrusions, seed)),
                        ("similar document", build_document_intrusions(sample, document_intrusions, seed)),
                        ("same document", build_sibling_intrusions(sample, sibling_intrusions, seed, pool=items))):
        for item_id, intruded in built.items():
            known = {intrusion for intrusion, _ in found[item_id]}
            found[item_id].extend((intrusion, kind) for intrusion in intruded if intrusion not in known)
    return found


def cache_key(settings: Dict[str, Any]) -> str:
    """A short hash of everything that determines a set of embedded groups."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def embedded_groups(path: Path, key: str, documents: Sequence[Sequence[str]], spans: List[Span],
                    encoder: SentenceEmbedder) -> EmbeddedGroups:
    """The groups' embeddings: read from ``path`` when it was written with the same ``key``, else computed and saved."""
    if path.is_file():
        try:  # tensors, ints and lists only; an unreadable cache (a kill mid-copy, an older format) is recomputed
            stored = torch.load(path, weights_only=True)
        except Exception as error:
            logger.warning("%s is unreadable (%s): computing the sentence embeddings again", path,
                           type(error).__name__)
            stored = {}
        if isinstance(stored, dict) and stored.get("key") == key:
            logger.info("sentence embeddings: reusing %s", path)
            return EmbeddedGroups(stored["embeddings"], stored["documents"], stored["spans"])
    embeddings, rows = encoder.embed_documents(documents)
    save_atomically({"key": key, "embeddings": embeddings, "documents": rows, "spans": spans}, path)
    logger.info("sentence embeddings: %d sentences of %d documents saved to %s", len(embeddings), len(rows), path)
    return EmbeddedGroups(embeddings, rows, spans)


__all__ = ["EmbeddedGroups", "cache_key", "draw_items", "embedded_groups", "intrusions_by_kind", "load_items",
           "sample_groups"]
