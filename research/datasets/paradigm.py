"""Read the pos/neg pickles released with Jwalapuram et al. (2022) into PairItems, checking their shape.

Shared by the LMVLM, STORYCLOZE, INSTED-WIKI and linguistic-probe loaders: all four use the upstream
``single`` format, a list of dicts with ``pos`` and ``neg`` sentence lists plus ``doc_id``, ``filename``
and ``reference_file``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Optional

from coherence_metric.errors import InputError
from coherence_metric.research.data_dir import require_data_file, shared_data_dir

from ..pickles import load_pickle
from .base import PairItem, TestSet

LOGGER = logging.getLogger("coherence_metric.benchmarks")

PARADIGM_FOLDER = "coherence_paradigm"
_META_KEYS = ("doc_id", "filename", "reference_file")


def paradigm_dir(data_dir: Optional[Path] = None) -> Path:
    """Return the folder of the released test sets inside the shared data folder."""
    return Path(data_dir if data_dir is not None else shared_data_dir()) / PARADIGM_FOLDER


def _sentences(value: Any, path: Path, index: int, side: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(sentence, str) for sentence in value):
        raise InputError(f"{path}: item {index} field {side!r} must be a non-empty list of sentence strings")
    return list(value)


def read_pair_pickle(path: Path) -> list[PairItem]:
    """Read one released pos/neg pickle in file order.

    Args:
        path: a pickle holding a list of dicts with ``pos`` and ``neg`` sentence lists.

    Returns:
        One PairItem per record; ``id`` is the upstream ``doc_id``, ``meta`` holds the other upstream
        fields and ``index`` (the position in the file).

    Raises:
        InputError: the file is missing, refused, corrupt, or a record lacks a valid ``pos``/``neg``.
    """
    records = load_pickle(require_data_file(path, "released test set"))
    if not isinstance(records, list) or not records:
        raise InputError(f"{path}: expected a non-empty list of pos/neg records, got {type(records).__name__}")
    items: list[PairItem] = []
    for index, record in enumerate(records):
        if not isinstance(record, dict) or "pos" not in record or "neg" not in record:
            raise InputError(f"{path}: item {index} is not a dict with 'pos' and 'neg'")
        meta = {key: record[key] for key in _META_KEYS if key in record}
        meta["index"] = index
        items.append(
            PairItem(
                id=str(record.get("doc_id", index)),
                pos=_sentences(record["pos"], path, index, "pos"),
                neg=_sentences(record["neg"], path, index, "neg"),
                meta=meta,
            )
        )
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise InputError(f"{path}: doc_id values are not unique, so items could not be told apart in reports")
    return items


def identical_pair_notes(items: list[PairItem]) -> dict[str, Any]:
    """Count and name the items whose ``pos`` equals ``neg``: no scorer can order them, so reports must say so.

    They are kept (the published counts include them) and come out of ``pairwise_accuracy`` as ties.
    """
    ids = [item.id for item in items if item.pos == item.neg]
    return {"identical_pairs": len(ids), "identical_pair_ids": ids}


def load_released_pairs(name: str, pairs_file: str, data_dir: Optional[Path] = None) -> TestSet:
    """A test set read whole, in file order, from one released pos/neg pickle of the paradigm folder (the sets whose
    pairs cannot or need not be rebuilt)."""
    path = paradigm_dir(data_dir) / pairs_file
    items = read_pair_pickle(path)
    LOGGER.info("loaded %s: %d pairs", name, len(items))
    return TestSet(name=name, items=tuple(items), source=str(path), notes=identical_pair_notes(items))
