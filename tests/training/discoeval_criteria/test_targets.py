"""Per-sentence targets (neighbours, positions, buckets, levels, headings) and the bag-of-words vocabularies."""

from __future__ import annotations

import pytest

from coherence_metric.errors import InputError
from coherence_metric.training.discoeval_criteria.objective import bag_counts
from coherence_metric.training.discoeval_criteria.targets import (
    article_examples,
    build_vocabularies,
    build_vocabulary,
    position_bucket,
    words_of,
)
from coherence_metric.training.discoeval_criteria.wiki_structure import Article, Paragraph

ARTICLE = Article(id="wiki:1", title="Ada Example", paragraphs=[
    Paragraph(sentences=["A0.", "A1."], section="", level=0),
    Paragraph(sentences=["B0.", "B1.", "B2."], section="Early life", level=1),
    Paragraph(sentences=["C0."], section="Paris years", level=2),
])


def test_neighbours_cross_paragraphs_and_stop_at_the_article_ends() -> None:
    examples = article_examples(ARTICLE)
    assert [example.sentence for example in examples] == ["A0.", "A1.", "B0.", "B1.", "B2.", "C0."]
    assert [example.previous for example in examples] == [None, "A0.", "A1.", "B0.", "B1.", "B2."]
    assert [example.next for example in examples] == ["A1.", "B0.", "B1.", "B2.", "C0.", None]


def test_positions_levels_and_headings_by_hand() -> None:
    examples = article_examples(ARTICLE)
    assert [(e.sentence_index, e.sentence_count) for e in examples] == [(0, 2), (1, 2), (0, 3), (1, 3), (2, 3), (0, 1)]
    assert [(e.paragraph_index, e.paragraph_count) for e in examples] == [(0, 3), (0, 3), (1, 3), (1, 3), (1, 3),
                                                                           (2, 3)]
    assert [e.level for e in examples] == [0, 0, 1, 1, 1, 2]
    assert [e.section for e in examples] == ["", "", "Early life", "Early life", "Early life", "Paris years"]
    assert {e.title for e in examples} == {"Ada Example"}
    # 20 buckets: floor(20 * index / count)
    assert [e.sentence_bucket(20) for e in examples] == [0, 10, 0, 6, 13, 0]
    assert [e.paragraph_bucket(20) for e in examples] == [0, 0, 6, 6, 6, 13]
    assert [e.level_class(2) for e in examples] == [0, 0, 1, 1, 1, 1]  # clamped to levels - 1


@pytest.mark.parametrize("index, count, buckets, expected", [
    (0, 1, 20, 0), (1, 2, 20, 10), (2, 3, 20, 13), (4, 5, 20, 16), (19, 20, 20, 19), (5, 7, 4, 2), (39, 40, 20, 19),
])
def test_position_bucket_matches_the_authors_quantisation(index: int, count: int, buckets: int, expected: int) -> None:
    # the authors' code: np.digitize(index / count, np.arange(nb) / nb) - 1
    assert position_bucket(index, count, buckets) == expected


def test_position_bucket_rejects_impossible_positions() -> None:
    with pytest.raises(InputError, match="index 3, count 3"):
        position_bucket(3, 3, 20)


def test_words_are_lower_cased_letter_and_digit_runs() -> None:
    assert words_of("The U.S. in 1910: snake_case, Café!") == ["the", "u", "s", "in", "1910", "snake", "case", "café"]


def test_vocabulary_is_cut_by_frequency_with_alphabetical_ties() -> None:
    vocabulary = build_vocabulary(["b a c", "c b", "d c"], size=3)
    assert vocabulary.words == ["c", "b", "a"]  # c:3, b:2, then a and d tie at 1: a first
    assert vocabulary.ids("C c d, b!") == [0, 0, 1]  # "d" is out of the vocabulary: dropped
    assert vocabulary.ids(None) == [] and len(vocabulary) == 3


def test_an_empty_text_gives_an_error_naming_the_problem() -> None:
    with pytest.raises(InputError, match="no words"):
        build_vocabulary(["...", ""], size=10)


def test_headings_and_titles_count_once_per_article() -> None:
    vocabularies = build_vocabularies(article_examples(ARTICLE), size=100, title_size=100)
    # "early life" spans three sentences but counts once; "paris years" once: alphabetical tie order
    assert vocabularies.sections.words == ["early", "life", "paris", "years"]
    assert vocabularies.titles.words == ["ada", "example"]
    assert set(vocabularies.sentences.words) == {"a0", "a1", "b0", "b1", "b2", "c0"}


def test_bag_counts_add_repeats() -> None:
    counts = bag_counts([[0, 2, 2], [], [1]], size=3)
    assert counts.tolist() == [[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
