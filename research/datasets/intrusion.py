"""INSteD-style intrusion pairs: a document against a copy whose one sentence is swapped for a similar foreign one.

For the news stand-in of INSTED-CNN (whose data is not available). As in INSteD (Shen et al., 2021) the
intruder is the sentence of *another* document of the same corpus most similar to the replaced one, so
topic words alone do not give it away; the first sentence is never replaced (the released INSteD-Wiki
pairs never do). Similarity is a TF-IDF weighted bag-of-words cosine: cheap, needs no model, and the IDF
weights keep function words from deciding the match.
"""

from __future__ import annotations

import logging
import math
import random
import re
from collections import Counter
from typing import NamedTuple, Optional, Sequence

from coherence_metric.errors import InputError

from .base import PairItem

LOGGER = logging.getLogger("coherence_metric.benchmarks")

WORD = re.compile(r"[a-z0-9]+")
MIN_SENTENCES = 3
#: A candidate at least this similar is a near copy of the replaced sentence (boilerplate, a repeated
#: wire line), not an intrusion, so it is skipped.
MAX_SIMILARITY = 0.9


def _normalise(sentence: str) -> str:
    return " ".join(sentence.split())


def tfidf_rows(sentences: Sequence[str]):  # -> scipy.sparse.csr_matrix
    """Return L2-normalised TF-IDF rows, one per sentence (zero rows for sentences without words)."""
    import numpy as np
    from scipy import sparse

    vocabulary: dict[str, int] = {}
    rows, columns, counts = [], [], []
    for row, sentence in enumerate(sentences):
        for word, count in Counter(WORD.findall(sentence.lower())).items():
            rows.append(row)
            columns.append(vocabulary.setdefault(word, len(vocabulary)))
            counts.append(count)
    shape = (len(sentences), max(len(vocabulary), 1))
    matrix = sparse.csr_matrix((np.asarray(counts, dtype=np.float64), (rows, columns)), shape=shape)
    document_frequency = np.bincount(np.asarray(columns, dtype=np.int64), minlength=shape[1])
    idf = np.log((1.0 + len(sentences)) / (1.0 + document_frequency)) + 1.0
    matrix = matrix.multiply(idf[np.newaxis, :]).tocsr()
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0.0] = 1.0
    return sparse.diags(1.0 / norms) @ matrix


def _most_similar_foreign(
    matrix, target: int, host: tuple[int, int], text_ids, max_similarity: float
) -> Optional[tuple[int, float]]:
    """Return (row, cosine) of the sentence most like ``target`` outside the host rows, copies skipped; None if none."""
    import numpy as np

    similarity = matrix @ matrix[target].toarray().ravel()
    similarity[host[0] : host[1]] = -math.inf
    similarity[(similarity >= max_similarity) | (similarity <= 0.0)] = -math.inf
    host_texts = set(text_ids[host[0] : host[1]].tolist())
    while True:  # usually one pass: a candidate equal to a host sentence is rare
        best = int(np.argmax(similarity))
        if similarity[best] == -math.inf:
            return None
        if int(text_ids[best]) not in host_texts:
            return best, float(similarity[best])
        similarity[best] = -math.inf


def _check_documents(documents: Sequence[Sequence[str]], document_ids: Optional[Sequence[str]]) -> list[str]:
    if isinstance(documents, str) or len(documents) < 2:
        raise InputError("build_intrusion_pairs needs at least 2 documents (intruders come from other documents)")
    for index, document in enumerate(documents):
        if isinstance(document, str) or not all(isinstance(sentence, str) for sentence in document):
            raise InputError(f"document {index} must be a list of sentence strings, not one string")
    ids = [str(index) for index in range(len(documents))] if document_ids is None else [str(i) for i in document_ids]
    if len(ids) != len(documents) or len(set(ids)) != len(ids):
        raise InputError("document_ids must give one unique id per document")
    return ids


class Intruder(NamedTuple):
    """The sentence chosen to replace a host sentence: where it comes from and how similar it is."""

    doc_index: int
    sentence_index: int
    sentence: str
    similarity: float


class IntruderFinder:
    """Finds, for any sentence of a corpus, the most similar sentence of *another* document (INSteD's rule).

    Built once per corpus (one TF-IDF matrix over all sentences), then queried per (document, position):
    the benchmark's NEWS-INTRUSION builder and the trainer's intrusion negatives share it, so a model is
    trained on exactly the kind of negative the stand-in test measures (from other documents' splits).

    Args:
        documents: the corpus, each document a list of sentences; all of them supply intruders.
        max_similarity: candidates this similar or more count as copies, not intruders.
    """

    def __init__(self, documents: Sequence[Sequence[str]], max_similarity: float = MAX_SIMILARITY) -> None:
        import numpy as np

        self.documents = documents
        self.max_similarity = max_similarity
        self.sentences = [sentence for document in documents for sentence in document]
        self.owner = np.repeat(np.arange(len(documents)), [len(document) for document in documents])
        self.starts = np.concatenate([[0], np.cumsum([len(document) for document in documents])]).astype(np.int64)
        self.matrix = tfidf_rows(self.sentences) if self.sentences else None
        text_id: dict[str, int] = {}
        self.text_ids = np.fromiter(
            (text_id.setdefault(_normalise(sentence), len(text_id)) for sentence in self.sentences), dtype=np.int64
        )

    def find(self, doc_index: int, position: int) -> Optional[Intruder]:
        """Return the intruder for sentence ``position`` of document ``doc_index``, or None when no sentence of
        another document shares a word with it without being a copy (of it or of a host sentence)."""
        if self.matrix is None:
            return None
        start, end = int(self.starts[doc_index]), int(self.starts[doc_index + 1])
        found = _most_similar_foreign(self.matrix, start + position, (start, end), self.text_ids, self.max_similarity)
        if found is None:
            return None
        best, similarity = found
        source_doc = int(self.owner[best])
        return Intruder(source_doc, best - int(self.starts[source_doc]), self.sentences[best], similarity)


def build_intrusion_pairs(
    documents: Sequence[Sequence[str]],
    rng: random.Random,
    *,
    document_ids: Optional[Sequence[str]] = None,
    min_sentences: int = MIN_SENTENCES,
    max_similarity: float = MAX_SIMILARITY,
) -> list[PairItem]:
    """Build one intrusion pair per document of at least ``min_sentences`` sentences, in document order.

    For each such document a position other than the first is drawn from ``rng``; the sentence there is
    replaced by the most similar sentence (TF-IDF cosine) of any other document, skipping candidates equal to
    a sentence of the host document or at least ``max_similarity`` similar. A document with no candidate
    sharing a word with the replaced sentence is skipped, and the number skipped is logged as a warning.

    Args:
        documents: the corpus, each document a list of sentences; all of them supply intruders.
        rng: the random generator for the positions, e.g. ``random.Random(seed)``.
        document_ids: ids for item ids and ``meta`` (default: the document indices).
        min_sentences: shorter documents get no pair (INSteD documents have 3 or more).
        max_similarity: candidates this similar or more count as copies, not intruders.

    Returns:
        PairItems with the original as ``pos``; ``meta`` gives the position, the replaced sentence, the
        intruder's document id and sentence index, and the similarity.
    """
    ids = _check_documents(documents, document_ids)
    if min_sentences < 2:
        raise InputError(f"min_sentences must be at least 2 (the first sentence is kept), got {min_sentences}")
    finder = IntruderFinder(documents, max_similarity)
    items: list[PairItem] = []
    skipped = 0
    for doc_index, document in enumerate(documents):
        if len(document) < min_sentences:
            continue
        position = rng.randrange(1, len(document))
        intruder = finder.find(doc_index, position)
        if intruder is None:
            skipped += 1
            continue
        negative = list(document)
        negative[position] = intruder.sentence
        items.append(
            PairItem(
                id=f"{ids[doc_index]}/intrusion-{position}",
                pos=list(document),
                neg=negative,
                meta={
                    "doc_id": ids[doc_index],
                    "position": position,
                    "replaced": document[position],
                    "intruder_doc_id": ids[intruder.doc_index],
                    "intruder_sentence_index": intruder.sentence_index,
                    "similarity": intruder.similarity,
                },
            )
        )
    if skipped:
        LOGGER.warning("intrusion pairs: %d documents skipped: no candidate shares a word and is not a copy", skipped)
    return items
