"""LMVLM: 1,046 pairs of LM continuations of one prompt, with 3 annotator rows, scored by Krippendorff's alpha.

``pos``/``neg`` are text A / text B, not preferred / dispreferred: the preference is in the annotations,
where ``'0'`` means text A (``pos``) was judged more coherent and ``'1'`` means text B (``neg``). Rows 0 and 1
are identical upstream. Items and annotation rows stay in file order, because they are aligned by index.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from coherence_metric.errors import InputError
from coherence_metric.research.data_dir import require_data_file

from ..pickles import load_pickle
from .base import DEFAULT_SEED, LMVLM_AGREEMENT, TestSet
from .paradigm import identical_pair_notes, paradigm_dir, read_pair_pickle

LOGGER = logging.getLogger("coherence_metric.benchmarks")

NAME = "LMVLM"
PAIRS_FILE = "LMvLM.pkl"
ANNOTATIONS_FILE = "LMvLM_Annotations.pkl"
LABELS = ("0", "1")
N_ANNOTATORS = 3


def _read_annotations(path: Path, n_items: int) -> tuple[tuple[str, ...], ...]:
    rows = load_pickle(require_data_file(path, "LMvLM annotations"))
    if not isinstance(rows, list) or len(rows) != N_ANNOTATORS:
        raise InputError(f"{path}: expected a list of {N_ANNOTATORS} annotator rows")
    checked = []
    for number, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != n_items:
            raise InputError(f"{path}: annotator row {number} must hold {n_items} labels, one per LMvLM pair")
        labels = tuple(str(label) for label in row)
        unexpected = sorted(set(labels) - set(LABELS))
        if unexpected:
            raise InputError(f"{path}: annotator row {number} has labels {unexpected}, expected '0' or '1'")
        checked.append(labels)
    return tuple(checked)


def load_lmvlm(data_dir: Optional[Path] = None, seed: int = DEFAULT_SEED) -> TestSet:
    """Load the LMVLM pairs and their annotator rows, aligned by index.

    Args:
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.
        seed: unused (nothing is sampled); accepted so every loader has the same signature.

    Returns:
        A TestSet of 1,046 items with 3 annotation rows, whose primary metric is ``lmvlm_agreement``.
    """
    folder = paradigm_dir(data_dir)
    items = read_pair_pickle(folder / PAIRS_FILE)
    annotations = _read_annotations(folder / ANNOTATIONS_FILE, len(items))
    LOGGER.info("loaded %s: %d pairs, %d annotator rows", NAME, len(items), len(annotations))
    return TestSet(
        name=NAME,
        items=tuple(items),
        source=f"{folder / PAIRS_FILE} + {folder / ANNOTATIONS_FILE}",
        notes={
            "annotator_rows": len(annotations),
            "identical_annotator_rows": "0 and 1 (upstream quirk)",
            **identical_pair_notes(items),
        },
        annotations=annotations,
        primary_metric=LMVLM_AGREEMENT,
    )
