"""Each corpus reader yields the documents its corpus holds, with stable unique ids and clean sentences.

Counts were measured on the shared data and checked against the rough figures in its README (which
splits sentences with a crude regex, so sentence counts are compared within 20%).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Dict, List

import pytest

from coherence_metric.research.corpora import CORPORA
from coherence_metric.research.corpora.reuters import body_paragraphs, read_reuters_file
from coherence_metric.research.corpora.wiki import is_heading, read_wiki_file
from coherence_metric.research.documents import Document

SMALL_CORPORA = ("bbc", "wsj", "abc", "lee", "mctest", "tales")


@pytest.fixture(scope="module")
def small_corpora(shared_data) -> Dict[str, List[Document]]:
    """Every document of the small corpora (read once: about 1 s)."""
    return {name: list(CORPORA[name].documents(shared_data)) for name in SMALL_CORPORA}


@pytest.fixture(scope="module")
def reuters_000(corpora_root) -> List[Document]:
    """The first Reuters SGML file: items 1-1000."""
    return list(read_reuters_file(corpora_root / "reuters21578" / "reut2-000.sgm.gz"))


@pytest.fixture(scope="module")
def wiki_00(corpora_root) -> List[Document]:
    """The first WikiExtractor file: 38 articles from Anarchism on."""
    return list(read_wiki_file(corpora_root / "enwiki_wikiextractor_2015" / "text" / "AA" / "wiki_00.xz"))


def test_registry_names_the_eight_corpora():
    assert list(CORPORA) == ["reuters", "bbc", "wiki", "wsj", "abc", "lee", "mctest", "tales"]
    assert [name for name, corpus in CORPORA.items() if corpus.held_out_only] == ["wsj"]


def test_reuters_first_file(reuters_000):
    # 1,000 <REUTERS> items, 925 with a <BODY>; bodies that are only tables or report fields give nothing.
    assert len(reuters_000) == 833
    first = reuters_000[0]
    assert first.id == "reuters:1" and first.source == "reuters" and first.title == "BAHIA COCOA REVIEW"
    assert first.sentences[0].startswith("Showers continued throughout the week in the Bahia cocoa zone")
    assert first.sentences[-1].endswith("which ends midday on February 27.")
    assert sum(len(d.sentences) >= 4 for d in reuters_000) == pytest.approx(494, abs=15)
    for document in reuters_000:
        assert not re.search(r"\breuter\W*$", document.sentences[-1], re.I), document.id
        assert not any("&lt;" in s or "\x03" in s for s in document.sentences), document.id


def test_reuters_body_cleanup():
    body = (
        "Shares rose\nsharply today.\n    Shr 16 cts vs two cts\n    Net 391,000 vs 57,000\n"
        "    Mln dlrs   1987   1986\n    It said so.\n Reuter\n"
    )
    assert body_paragraphs(body) == ["Shares rose sharply today.", "It said so."]


def test_wiki_first_file(wiki_00):
    assert len(wiki_00) == 38
    anarchism = wiki_00[0]
    assert anarchism.id == "wiki:12" and anarchism.title == "Anarchism"
    assert anarchism.sentences[0].startswith("Anarchism is a political philosophy")
    sentences = {s for document in wiki_00 for s in document.sentences}
    assert not {"Anarchism", "Etymology and terminology.", "History."} & sentences
    assert sum(len(d.sentences) >= 20 for d in wiki_00) == pytest.approx(33, abs=2)


def test_wiki_heading_heuristic():
    assert is_heading("History.")
    assert is_heading("Music schools and conservatory.")
    assert is_heading("First International and the Paris Commune.")
    assert not is_heading("The dates of composition are approximate.")
    assert not is_heading("where formula_19 denotes the tensor product.")
    assert not is_heading("Anarchism is a political philosophy that advocates stateless societies, he wrote.")


@pytest.mark.parametrize(
    "name, documents, first_id, readme_sentences",
    [
        ("bbc", 2225, "bbc:business/001", 41_000),
        ("wsj", 199, "wsj:wsj_0001", 4_500),
        ("abc", 3189, "abc:rural:0", 29_000),
        ("lee", 350, "lee:lee_background:0", 2_800),
        ("mctest", 660, "mctest:mc160.train.0", 12_400),
        ("tales", 73, "tales:pg52521:the-frog-king-or-iron-henry", 6_200),
    ],
)
def test_small_corpus_counts(small_corpora, name, documents, first_id, readme_sentences):
    found = small_corpora[name]
    assert len(found) == documents
    assert found[0].id == first_id
    assert all(document.source == name and document.id.startswith(f"{name}:") for document in found)
    assert sum(len(d.sentences) for d in found) == pytest.approx(readme_sentences, rel=0.2)


def test_ids_are_unique_across_corpora(small_corpora, reuters_000, wiki_00):
    ids = [d.id for documents in small_corpora.values() for d in documents] + [d.id for d in reuters_000 + wiki_00]
    assert len(ids) == len(set(ids))


def test_ids_are_stable_across_reads(shared_data, small_corpora):
    again = [d.id for d in CORPORA["abc"].documents(shared_data)]
    assert again == [d.id for d in small_corpora["abc"]]


def test_bbc_titles_are_kept_out_of_the_sentences(small_corpora):
    first = small_corpora["bbc"][0]
    assert first.title == "Ad sales boost Time Warner profit"
    assert first.title not in first.sentences
    assert Counter(d.id.split(":")[1].split("/")[0] for d in small_corpora["bbc"]) == {
        "business": 510, "entertainment": 386, "politics": 417, "sport": 511, "tech": 401,
    }


def test_wsj_drops_the_start_marker(small_corpora):
    wsj = small_corpora["wsj"]
    assert wsj[0].sentences[0] == "Pierre Vinken, 61 years old, will join the board as a nonexecutive director Nov. 29."
    assert not any(s.startswith(".START") for d in wsj for s in d.sentences)


def test_abc_items_have_titles(small_corpora):
    first = small_corpora["abc"][0]
    assert first.title == "PM denies knowledge of AWB kickbacks"
    assert first.sentences[0].startswith("The Prime Minister has denied he knew AWB was paying kickbacks")
    assert {d.id.split(":")[1] for d in small_corpora["abc"]} == {"rural", "science"}


def test_mctest_combines_both_sets_and_keeps_split_names(small_corpora):
    stories = small_corpora["mctest"]
    prefixes = Counter(d.id.split(":")[1].rsplit(".", 1)[0] for d in stories)
    assert prefixes == {
        "mc160.train": 70, "mc160.dev": 30, "mc160.test": 60, "mc500.train": 300, "mc500.dev": 50, "mc500.test": 150,
    }
    assert not any("\\newline" in s or "\\tab" in s for d in stories for s in d.sentences)


def test_tales_are_split_on_titles_without_gutenberg_boilerplate(small_corpora):
    tales = small_corpora["tales"]
    books = Counter(d.id.split(":")[1] for d in tales)
    assert books == {"pg52521": 51, "pg4018": 22}
    assert "tales:pg52521:rapunzel" in {d.id for d in tales}
    text = " ".join(s for d in tales for s in d.sentences)
    assert "Gutenberg" not in text and "[Illustration" not in text and "THE END" not in text
    assert all(len(d.sentences) >= 4 for d in tales)


def test_missing_corpus_folder_names_it(tmp_path):
    from coherence_metric.errors import InputError

    (tmp_path / "corpora").mkdir()
    with pytest.raises(InputError, match="lee_abc_news"):
        list(CORPORA["lee"].documents(tmp_path))
