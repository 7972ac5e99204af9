"""WSJ-SAMPLE-PERMUTED: a stand-in for the paper's WSJ permuted-document test, built from the NLTK treebank sample.

The paper's test set (WSJ sections 14-24) is LDC-licensed and absent; the NLTK sample holds WSJ sections
00-01 (``raw/wsj_0001`` .. ``wsj_0199``), so the numbers are reported under this set's own name, never as
"WSJ". The files are LDC-derived: they are read from the shared data folder at run time and nothing built
from them is written into the repository.

Recipe (paper, section 2.1): documents with at least 4 sentences, 20 unique permutations each, none equal to
the original; one pair per permutation (original as ``pos``). Sentences come from the project's splitter on
the raw text (the raw files are not one sentence per line). Deterministic given ``seed``.
"""

from __future__ import annotations

import logging
import random
import re
import zipfile
from pathlib import Path
from typing import Optional

from coherence_metric.errors import InputError
from coherence_metric.research.data_dir import require_data_file, shared_data_dir
from coherence_metric.toolkit import split_sentences

from .base import DEFAULT_SEED, PairItem, TestSet
from .permutation import permuted_pairs

LOGGER = logging.getLogger("coherence_metric.benchmarks")

NAME = "WSJ-SAMPLE-PERMUTED"
TREEBANK_ZIP = Path("corpora") / "nltk_data" / "treebank.zip"
RAW_FILE = re.compile(r"^treebank/raw/(wsj_\d{4})$")
START_MARKER = ".START"
MIN_SENTENCES = 4
PERMUTATIONS_PER_DOCUMENT = 20


def _decode(data: bytes) -> str:
    """Decode a raw file; one file (wsj_0142) has stray 8-bit quote bytes, read as Latin-1 rather than dropped."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _strip_start_marker(text: str) -> str:
    """Drop the ``.START`` line the raw treebank files begin with; it is markup, not a sentence."""
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].strip() == START_MARKER:
        lines.pop(0)
    return "\n".join(lines)


def treebank_path(data_dir: Optional[Path] = None) -> Path:
    """Return the path of the NLTK treebank sample zip inside the shared data folder."""
    return Path(data_dir if data_dir is not None else shared_data_dir()) / TREEBANK_ZIP


def read_wsj_sample_documents(data_dir: Optional[Path] = None) -> list[tuple[str, list[str]]]:
    """Read every raw WSJ file of the NLTK treebank sample as (file name, sentences), in file-name order.

    Args:
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.

    Returns:
        ``[("wsj_0001", [sentence, ...]), ...]`` for all 199 files, short ones included.
    """
    path = require_data_file(treebank_path(data_dir), "WSJ treebank sample (LDC-derived, placed by hand)")
    try:
        with zipfile.ZipFile(path) as archive:
            found = (RAW_FILE.match(name) for name in archive.namelist())
            matches = sorted((match for match in found if match), key=lambda match: match.group(1))
            texts = [(match.group(1), _decode(archive.read(match.group(0)))) for match in matches]
    except (OSError, zipfile.BadZipFile) as error:
        raise InputError(f"cannot read the WSJ treebank sample {path}: {error}") from error
    if not texts:
        raise InputError(f"{path} holds no treebank/raw/wsj_NNNN files")
    return [(name, split_sentences(_strip_start_marker(text))) for name, text in texts]


def load_wsj_sample_permuted(
    data_dir: Optional[Path] = None,
    seed: int = DEFAULT_SEED,
    permutations: int = PERMUTATIONS_PER_DOCUMENT,
    min_sentences: int = MIN_SENTENCES,
) -> TestSet:
    """Build the permuted-document pairs from the WSJ treebank sample.

    Args:
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.
        seed: seed of the ``random.Random`` that draws the permutations (documents in file order).
        permutations: permutations per document (the paper: 20).
        min_sentences: shorter documents are dropped (the paper: 4).

    Returns:
        A TestSet with one item per (document, permutation); ``meta`` holds the file and the sentence order.
    """
    documents = read_wsj_sample_documents(data_dir)
    rng = random.Random(seed)
    items: list[PairItem] = []
    kept = short_of_permutations = 0
    for name, sentences in documents:
        if len(sentences) < min_sentences:
            continue
        kept += 1
        pairs = permuted_pairs(name, sentences, permutations, rng, meta_key="file")
        short_of_permutations += len(pairs) < permutations
        items.extend(pairs)
    notes = {
        "documents_read": len(documents),
        "documents_kept": kept,
        "documents_dropped_short": len(documents) - kept,
        "min_sentences": min_sentences,
        "permutations_per_document": permutations,
        "documents_with_fewer_permutations": short_of_permutations,
        "seed": seed,
        "sentence_splitter": "coherence_metric.inputs.sentences.split_sentences",
    }
    LOGGER.info("built %s: %d pairs from %d documents (seed %d)", NAME, len(items), kept, seed)
    return TestSet(name=NAME, items=tuple(items), source=str(treebank_path(data_dir)), notes=notes)
