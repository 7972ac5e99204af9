"""Per-sentence targets of the four criteria, and the word vocabularies of the bag-of-words decoders.

For every sentence s_t of an article (seed 002, section 4):

- NSP: the bags of words of s_{t-1} and s_{t+1}. Neighbours are taken inside the article and across
  paragraph and section boundaries (as skip-thought does); the first sentence has no previous one and the
  last no next one, and that half of the loss is masked out for them, not filled with an empty bag.
- NL: the nesting level of the sentence's section (:mod:`.wiki_structure`: 0 in the lead, 1 under a
  top-level heading, ...), clamped to ``levels - 1`` (the paper's "up to 7 nesting levels": 7 classes).
- SPP: the sentence's position in its paragraph and the paragraph's position in the article, each
  bucketed by relative position into ``buckets`` classes: ``floor(buckets * index / count)``. This is the
  authors' released code's ``quant_pos`` model (20 buckets; ``np.digitize(index / count, arange(nb) / nb) - 1``);
  the paper's text only says "position". A one-sentence paragraph is always bucket 0.
- SDT: the bags of words of the section heading (empty in the lead, whose SDT-section term is then masked)
  and of the article title.

Vocabulary choice: bag-of-words targets are lower-cased *words* (``[^\\W_]+`` runs) from a frequency-cut
vocabulary built on the training articles, one for sentences and one for each kind of title, as the authors'
code does (50,000 each there). Not the WordPiece pieces of the input tokenizer, because (1) a bag of pieces
splits rare words into fragments ("##ism", "##ation") that are frequent everywhere and say little about the
neighbour, and most of the 30,522 rows are never targets ([unusedN], CJK characters), wasting softmax
mass; (2) the vocabulary size is then a knob, which is what makes the CPU recipe affordable (the output
layer is most of the model). Words outside the vocabulary are dropped from the bag (the authors' code
counted them as one "<unk>" word, which rewards predicting "unknown"); a bag left empty is masked.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence

from coherence_metric.errors import InputError

from .wiki_structure import Article

_WORD = re.compile(r"[^\W_]+")


def words_of(text: str) -> List[str]:
    """Lower-cased word tokens of a text: runs of letters and digits (punctuation and "_" split words)."""
    return _WORD.findall(text.lower())


def position_bucket(index: int, count: int, buckets: int) -> int:
    """The relative-position class of item ``index`` (0-based) among ``count``: ``floor(buckets * index / count)``.

    Raises:
        InputError: a count below 1, an index outside ``[0, count)`` or fewer than one bucket.
    """
    if buckets < 1 or count < 1 or not 0 <= index < count:
        raise InputError(f"position_bucket needs 0 <= index < count and buckets >= 1, got index {index}, "
                         f"count {count}, buckets {buckets}")
    return min(buckets * index // count, buckets - 1)


@dataclass(frozen=True)
class SentenceExample:
    """One sentence with everything its targets are built from (positions are 0-based)."""

    sentence: str
    previous: Optional[str]
    next: Optional[str]
    level: int
    sentence_index: int
    sentence_count: int
    paragraph_index: int
    paragraph_count: int
    section: str
    title: str
    article_id: str

    def sentence_bucket(self, buckets: int) -> int:
        """SPP target: the sentence's position in its paragraph, bucketed."""
        return position_bucket(self.sentence_index, self.sentence_count, buckets)

    def paragraph_bucket(self, buckets: int) -> int:
        """SPP target: the paragraph's position in the article, bucketed."""
        return position_bucket(self.paragraph_index, self.paragraph_count, buckets)

    def level_class(self, levels: int) -> int:
        """NL target: the nesting level, clamped to ``levels - 1``."""
        return min(self.level, levels - 1)


def article_examples(article: Article) -> List[SentenceExample]:
    """Every sentence of an article with its neighbours, positions, level, section heading and title."""
    flat = [sentence for paragraph in article.paragraphs for sentence in paragraph.sentences]
    examples: List[SentenceExample] = []
    position = 0
    for paragraph_index, paragraph in enumerate(article.paragraphs):
        for sentence_index, sentence in enumerate(paragraph.sentences):
            examples.append(SentenceExample(
                sentence=sentence,
                previous=flat[position - 1] if position > 0 else None,
                next=flat[position + 1] if position + 1 < len(flat) else None,
                level=paragraph.level,
                sentence_index=sentence_index,
                sentence_count=len(paragraph.sentences),
                paragraph_index=paragraph_index,
                paragraph_count=len(article.paragraphs),
                section=paragraph.section,
                title=article.title,
                article_id=article.id,
            ))
            position += 1
    return examples


class WordVocabulary:
    """A frequency-cut word list; ``ids`` of a text are its in-vocabulary words' rows (duplicates kept)."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words: List[str] = list(words)
        self._index: Dict[str, int] = {word: row for row, word in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def ids(self, text: Optional[str]) -> List[int]:
        """Rows of the text's words that are in the vocabulary, in order, repeats kept (a bag's counts)."""
        if not text:
            return []
        return [self._index[word] for word in words_of(text) if word in self._index]


def build_vocabulary(texts: Iterable[str], size: int, min_count: int = 1) -> WordVocabulary:
    """The ``size`` most frequent words of ``texts`` seen at least ``min_count`` times.

    Ties in frequency are broken alphabetically, so the vocabulary depends on the texts only, never on
    reading order or hash seeds.

    Raises:
        InputError: ``size`` below 1, or no word at all in the texts.
    """
    if size < 1:
        raise InputError(f"vocabulary size must be at least 1, got {size}")
    counts: Counter = Counter()
    for text in texts:
        counts.update(words_of(text))
    ranked = sorted((item for item in counts.items() if item[1] >= min_count), key=lambda item: (-item[1], item[0]))
    if not ranked:
        raise InputError("cannot build a bag-of-words vocabulary: the training text has no words")
    return WordVocabulary([word for word, _ in ranked[:size]])


@dataclass(frozen=True)
class Vocabularies:
    """The three target vocabularies: neighbour sentences (NSP), section headings and article titles (SDT)."""

    sentences: WordVocabulary
    sections: WordVocabulary
    titles: WordVocabulary


def build_vocabularies(examples: Sequence[SentenceExample], size: int, title_size: int) -> Vocabularies:
    """Vocabularies from the training examples: every sentence once, every heading and title once per article.

    Headings and titles are counted once per distinct (article, heading) so long sections do not dominate.
    """
    sections = {(example.article_id, example.section) for example in examples if example.section}
    titles = {(example.article_id, example.title) for example in examples}
    sentence_vocabulary = build_vocabulary((example.sentence for example in examples), size)
    section_vocabulary = (build_vocabulary((text for _, text in sorted(sections)), title_size)
                          if sections else WordVocabulary([]))
    title_vocabulary = build_vocabulary((text for _, text in sorted(titles)), title_size)
    return Vocabularies(sentences=sentence_vocabulary, sections=section_vocabulary, titles=title_vocabulary)


__all__ = ["SentenceExample", "Vocabularies", "WordVocabulary", "article_examples", "build_vocabularies",
           "build_vocabulary", "position_bucket", "words_of"]
