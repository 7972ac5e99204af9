"""The corpus registry: one reader per folder of ``<shared data>/corpora``, all yielding Documents.

``CORPORA[name].documents()`` reads a corpus in place (never copied); ids are ``"<name>:<local id>"``,
stable across runs and unique across corpora.
"""

from __future__ import annotations

from typing import Dict, List

from .abc import read_abc
from .base import Corpus, corpora_dir
from .bbc import read_bbc
from .lee import read_lee
from .mctest import read_mctest
from .reuters import read_reuters
from .tales import read_tales
from .wiki import read_wiki
from .wsj import read_wsj

CORPORA: Dict[str, Corpus] = {
    corpus.name: corpus
    for corpus in (
        Corpus("reuters", "reuters21578", read_reuters, "Reuters-21578 newswire, 1987"),
        Corpus("bbc", "bbc_fulltext", read_bbc, "BBC News articles, 2004-05"),
        Corpus("wiki", "enwiki_wikiextractor_2015", read_wiki, "English Wikipedia articles (WikiExtractor, ~2015)"),
        Corpus(
            "wsj",
            "nltk_data",
            read_wsj,
            "Penn Treebank WSJ sample (LDC, read in place); held out as the permuted-WSJ test stand-in",
            held_out_only=True,
        ),
        Corpus("abc", "nltk_data", read_abc, "ABC Australia rural and science news, 2006 (NLTK)"),
        Corpus("lee", "lee_abc_news", read_lee, "Lee et al. 2005 ABC news-mail documents"),
        Corpus("mctest", "mctest", read_mctest, "MCTest children's stories (mc160 + mc500)"),
        Corpus("tales", "gutenberg_tales", read_tales, "Grimm's and Japanese fairy tales (Project Gutenberg)"),
    )
}


def corpus_names() -> List[str]:
    """Return the registered corpus names in registry order."""
    return list(CORPORA)


__all__ = ["CORPORA", "Corpus", "corpora_dir", "corpus_names"]
