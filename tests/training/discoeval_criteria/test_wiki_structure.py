"""Heading, level and paragraph recovery from WikiExtractor text: hand-written articles and the real corpus."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest

from coherence_metric.errors import InputError
from coherence_metric.training.discoeval_criteria.wiki_structure import (
    is_debris,
    is_heading,
    parse_article,
    read_articles,
    wiki_files,
)

# Shaped like WikiExtractor's compact output: title line, lead, headings with "." appended, stacked headings
# for a section whose text starts in its first subsection, debris left by a template, a last short line.
ARTICLE = """Ada Example

Ada Example was a painter. She lived in Lyon.
Her work is kept in three museums.
Early life.
Ada was born in 1850. Her father was a baker.
Career.
Paris years.
She moved to Paris in 1875.
#if:
He died in 1910.
Theodosius I.
The emperor was a patron of her work.
U.S. exhibitions.
Two shows followed. Both sold out.
Legacy.""".split("\n")


@pytest.mark.parametrize("line, expected", [
    ("History.", True),
    ("Etymology and terminology.", True),
    ("1960s–1970s.", True),
    ("Theodosius I.", True),  # a Roman numeral, not the pronoun
    ("U.S. exhibitions.", True),  # an abbreviation, not a sentence end
    ('"Deepsea Challenger".', True),
    ("He died in 1910.", False),  # subject pronoun: a clause
    ("The city has two million visitors.", False),  # auxiliary
    ("Vast. The following are references.", False),  # two sentences
    ("and is equivalent to linear interpolation.", False),  # continues a sentence
    ("For notable deaths, see Cyanide poisoning.", False),  # a hatnote
    ("Natural resources:", False),
    ("What is Property?", False),  # "?"-headings are not recovered (measured: rare)
    ("One two three four five six seven eight nine ten eleven.", False),  # too long
])
def test_heading_rules_on_single_lines(line: str, expected: bool) -> None:
    assert is_heading(line) is expected


def test_a_heading_is_never_the_last_line() -> None:
    assert is_heading("Legacy.") and not is_heading("Legacy.", is_last=True)


def test_debris_is_template_residue_and_short_fragments() -> None:
    assert all(is_debris(line) for line in ["#if:", "</dl>", "{{cite", "[[Category:Painters]]", "height:1em;",
                                            '">em;', "Australian Capital Territory"])
    assert not any(is_debris(line) for line in ["Natural resources:", "Two shows followed.", "History."])


def test_a_hand_written_article_gives_sections_levels_and_paragraphs() -> None:
    article = parse_article(ARTICLE, "42", "Ada Example")
    assert article is not None and article.id == "wiki:42" and article.title == "Ada Example"
    layout = [(paragraph.section, paragraph.level, paragraph.sentences) for paragraph in article.paragraphs]
    assert layout == [
        ("", 0, ["Ada Example was a painter.", "She lived in Lyon."]),
        ("", 0, ["Her work is kept in three museums."]),
        ("Early life", 1, ["Ada was born in 1850.", "Her father was a baker."]),
        # "Career." then "Paris years." with no paragraph between: a parent and its child.
        ("Paris years", 2, ["She moved to Paris in 1875."]),
        # "#if:" is skipped without ending the section; the one-line paragraph is not a heading.
        ("Paris years", 2, ["He died in 1910."]),
        # after a paragraph, a lone heading is level 1 again (the lower bound of the true depth).
        ("Theodosius I", 1, ["The emperor was a patron of her work."]),
        ("U.S. exhibitions", 1, ["Two shows followed.", "Both sold out."]),
        ("U.S. exhibitions", 1, ["Legacy."]),  # the last line is content, never a heading
    ]
    assert article.sentence_count == 11


def test_an_article_of_headings_only_is_dropped() -> None:
    assert parse_article(["Stub", "History.", "#if:"], "7", "Stub") is None


def test_read_articles_reads_an_xz_file(tmp_path: Path) -> None:
    text = ('<doc id="42" url="u" title="Ada &amp; Example">\n' + "\n".join(ARTICLE) + "\n</doc>\n"
            '<doc id="43" url="u" title="Stub">\nStub\n\nHistory.\n#if:\n</doc>\n')
    path = tmp_path / "wiki_00.xz"
    with lzma.open(path, "wt", encoding="utf-8") as handle:
        handle.write(text)
    articles = list(read_articles(path))
    assert [(article.id, article.title) for article in articles] == [("wiki:42", "Ada & Example")]


def test_missing_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=str(tmp_path)):
        wiki_files(tmp_path)


def test_real_articles_keep_the_corpus_reader_ids_and_the_known_structure(corpora_root: Path) -> None:
    from coherence_metric.research.corpora.wiki import read_wiki_file

    path = wiki_files(corpora_root / "enwiki_wikiextractor_2015")[0]
    articles = list(read_articles(path))
    reader_ids = [document.id for document in read_wiki_file(path)]
    assert [article.id for article in articles] == reader_ids  # same ids, so the same train/dev/test split
    anarchism = articles[0]
    assert anarchism.id == "wiki:12" and anarchism.title == "Anarchism"
    sections = {paragraph.section: paragraph.level for paragraph in anarchism.paragraphs}
    # "History." is followed at once by "Origins.": Origins is its subsection, and History has no text.
    assert sections["Etymology and terminology"] == 1 and sections["Origins"] == 2 and "History" not in sections
    assert anarchism.paragraphs[0].level == 0 and anarchism.paragraphs[0].section == ""
    assert anarchism.paragraphs[0].sentences[0].startswith("Anarchism is a political philosophy")
