"""News stand-ins for the paper's test sets we cannot have: NEWS-PERMUTED (for WSJ) and NEWS-INTRUSION (for INSTED-CNN).

The paper's permuted-WSJ test (LDC) and INSteD's CNN set are not available, so both are rebuilt, under our
own names, from the held-out test split of the news corpora (Reuters, BBC, ABC, Lee): documents no model
trained with ``train prepare`` has seen. Recipe (paper, section 2.1): documents of at least 4 sentences, the
first 10 sentences of longer ones (the paper's block size), 20 unique permutations each; the intrusion set
swaps one sentence for the most similar sentence of another held-out document, the INSteD way.

Building reads and sentence-splits the corpora (seconds) and samples permutations, so each set is built once
and cached as JSON, keyed by the seed, the recipe and a hash of the document ids.
"""

from __future__ import annotations

import functools
import logging
import random
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from coherence_metric.errors import InputError
from coherence_metric.research.splits import held_out_documents

from .cache import JsonCache, digest
from .datasets.base import DEFAULT_SEED, PairItem, TestSet
from .datasets.intrusion import build_intrusion_pairs
from .datasets.permutation import permuted_pairs

LOGGER = logging.getLogger("coherence_metric.benchmarks")

NEWS_PERMUTED = "NEWS-PERMUTED"
NEWS_INTRUSION = "NEWS-INTRUSION"
#: The news corpora of ``coherence_metric.research.corpora`` whose held-out test split the stand-ins are built from.
NEWS_CORPORA = ("reuters", "bbc", "abc", "lee")
MIN_SENTENCES = 4
MAX_SENTENCES = 10
PERMUTATIONS_PER_DOCUMENT = 20
CACHE_KIND = "test_sets"

NewsDocument = tuple[str, list[str]]


@functools.lru_cache(maxsize=4)
def _read_news_documents(data_dir: Optional[str], corpora: tuple[str, ...], split: str) -> tuple[NewsDocument, ...]:
    documents: list[NewsDocument] = []
    for corpus in corpora:
        for document in held_out_documents(corpus, split, Path(data_dir) if data_dir else None):
            if len(document.sentences) >= MIN_SENTENCES:
                documents.append((document.id, list(document.sentences[:MAX_SENTENCES])))
    return tuple(documents)


def read_news_documents(
    data_dir: Optional[Path] = None, corpora: Optional[Sequence[str]] = None, split: str = "test"
) -> list[NewsDocument]:
    """Return the held-out news documents the stand-ins use: (id, first 10 sentences), 4 sentences or more.

    Read once per process and kept in memory (the suite builds two sets from them, the speed suite reuses them).

    Args:
        data_dir: the shared data folder; None finds it the usual way.
        corpora: corpus names; None means ``NEWS_CORPORA`` (read at call time, so tests can narrow it).
        split: ``test`` (every benchmark) or ``dev`` (the same recipe on documents for choosing a setting).

    Returns:
        Documents in corpus order, then each reader's order.
    """
    names = tuple(corpora) if corpora is not None else tuple(NEWS_CORPORA)
    documents = _read_news_documents(str(data_dir) if data_dir is not None else None, names, split)
    return [(doc_id, list(sentences)) for doc_id, sentences in documents]


def _recipe_notes(documents: Sequence[NewsDocument], seed: int) -> dict[str, Any]:
    corpora = sorted({doc_id.split(":", 1)[0] for doc_id, _ in documents})
    return {
        "corpora": corpora,
        "split": "test (coherence_metric.research.splits.held_out_documents)",
        "documents": len(documents),
        "min_sentences": MIN_SENTENCES,
        "max_sentences": MAX_SENTENCES,
        "seed": seed,
    }


def build_news_permuted(
    documents: Sequence[NewsDocument], seed: int = DEFAULT_SEED, permutations: int = PERMUTATIONS_PER_DOCUMENT
) -> TestSet:
    """Build permuted-document pairs: each document against up to ``permutations`` unique reorderings of it.

    Args:
        documents: (id, sentences) pairs, as ``read_news_documents`` returns them.
        seed: seed of the one ``random.Random`` drawing every permutation, documents in the given order.
        permutations: permutations per document (the paper: 20).

    Returns:
        A TestSet named NEWS-PERMUTED, one item per (document, permutation), original as ``pos``.
    """
    rng = random.Random(seed)
    items: list[PairItem] = []
    short = 0
    for doc_id, sentences in documents:
        pairs = permuted_pairs(doc_id, sentences, permutations, rng)
        short += len(pairs) < permutations
        items.extend(pairs)
    notes = {
        **_recipe_notes(documents, seed),
        "permutations_per_document": permutations,
        "documents_with_fewer_permutations": short,
        "stand_in_for": "WSJ permuted-document test (LDC, not available)",
    }
    return TestSet(name=NEWS_PERMUTED, items=tuple(items), source="held-out news documents", notes=notes)


def build_news_intrusion(documents: Sequence[NewsDocument], seed: int = DEFAULT_SEED) -> TestSet:
    """Build INSteD-style intrusion pairs: each document against a copy with one sentence from another document.

    Args:
        documents: (id, sentences) pairs; every document also supplies intruders for the others.
        seed: seed of the ``random.Random`` that picks the replaced position.

    Returns:
        A TestSet named NEWS-INTRUSION, at most one item per document, original as ``pos``.
    """
    items = build_intrusion_pairs(
        [sentences for _, sentences in documents], random.Random(seed), document_ids=[doc_id for doc_id, _ in documents]
    )
    notes = {
        **_recipe_notes(documents, seed),
        "documents_skipped": len(documents) - len(items),
        "intruder": "most similar sentence (TF-IDF cosine) of another held-out document",
        "stand_in_for": "INSTED-CNN (not available)",
    }
    return TestSet(name=NEWS_INTRUSION, items=tuple(items), source="held-out news documents", notes=notes)


BUILDERS: dict[str, Callable[[Sequence[NewsDocument], int], TestSet]] = {
    NEWS_PERMUTED: build_news_permuted,
    NEWS_INTRUSION: build_news_intrusion,
}
STANDIN_TEST_SETS = tuple(BUILDERS)


def serialise_test_set(test_set: TestSet) -> dict[str, Any]:
    """Return a TestSet as compact JSON-ready data: each distinct sentence stored once, documents as indices.

    A permuted set repeats the same sentences 40 times (20 permutations, both sides), so this keeps the cached
    NEWS-PERMUTED at a few MB instead of tens. ``deserialise_test_set`` reverses it exactly.
    """
    index: dict[str, int] = {}

    def encode(sentences: list[str]) -> list[int]:
        return [index.setdefault(sentence, len(index)) for sentence in sentences]

    items = [{"id": item.id, "pos": encode(item.pos), "neg": encode(item.neg), "meta": dict(item.meta)}
             for item in test_set]
    return {
        "name": test_set.name,
        "source": test_set.source,
        "notes": dict(test_set.notes),
        "primary_metric": test_set.primary_metric,
        "annotations": [list(row) for row in test_set.annotations],
        "sentences": list(index),
        "items": items,
    }


def deserialise_test_set(data: dict[str, Any]) -> TestSet:
    """Rebuild a TestSet from ``serialise_test_set`` data."""
    sentences = data["sentences"]
    items = tuple(
        PairItem(id=row["id"], pos=[sentences[i] for i in row["pos"]], neg=[sentences[i] for i in row["neg"]],
                 meta=row["meta"])
        for row in data["items"]
    )
    return TestSet(
        name=data["name"],
        items=items,
        source=data["source"],
        notes=data["notes"],
        annotations=tuple(tuple(row) for row in data["annotations"]),
        primary_metric=data["primary_metric"],
    )


def standin_cache_key(name: str, documents: Sequence[NewsDocument], seed: int) -> str:
    """Return the cache key of a stand-in: the name, the recipe, the seed, a hash of the ids and of the sentences.

    The sentence hash makes a change of the sentence splitter rebuild the set rather than serve stale text.
    """
    ids_hash = digest([doc_id for doc_id, _ in documents], length=32)
    text_hash = digest([sentences for _, sentences in documents], length=32)
    recipe = {"min": MIN_SENTENCES, "max": MAX_SENTENCES, "permutations": PERMUTATIONS_PER_DOCUMENT, "layout": 2}
    return digest({"name": name, "seed": seed, "ids": ids_hash, "text": text_hash, "recipe": recipe})


def load_standin(
    name: str,
    data_dir: Optional[Path] = None,
    seed: int = DEFAULT_SEED,
    cache_dir: Union[str, Path, None] = None,
    use_cache: bool = True,
    documents: Optional[Sequence[NewsDocument]] = None,
) -> TestSet:
    """Return a news stand-in test set, from the cache when it was built before with the same key.

    Args:
        name: ``NEWS-PERMUTED`` or ``NEWS-INTRUSION`` (case-insensitive).
        data_dir: the shared data folder; None finds it the usual way.
        seed: seed of the build.
        cache_dir: cache folder; None means ``$COHERENCE_METRIC_CACHE`` or ``~/.cache/coherence_metric/benchmarks``.
        use_cache: False builds afresh and writes nothing.
        documents: build from these (id, sentences) pairs instead of the held-out news documents.

    Returns:
        The TestSet, items in document order.

    Raises:
        InputError: an unknown name, or no news documents to build from.
    """
    canonical = {key.casefold(): key for key in BUILDERS}.get(str(name).casefold())
    if canonical is None:
        raise InputError(f"unknown stand-in test set {name!r}: choose one of {', '.join(BUILDERS)}")
    source = list(documents) if documents is not None else read_news_documents(data_dir)
    if len(source) < 2:
        raise InputError(f"{canonical} needs at least 2 held-out news documents of {MIN_SENTENCES}+ sentences")
    cache = JsonCache(cache_dir, enabled=use_cache)
    key = standin_cache_key(canonical, source, seed)
    cached = cache.read(CACHE_KIND, canonical, key)
    if cached is not None:
        LOGGER.info("%s read from the cache (%d pairs)", canonical, len(cached["items"]))
        return deserialise_test_set(cached)
    test_set = BUILDERS[canonical](source, seed)
    cache.write(CACHE_KIND, canonical, key, serialise_test_set(test_set))
    LOGGER.info("built %s: %d pairs from %d documents (seed %d)", canonical, len(test_set), len(source), seed)
    return test_set
