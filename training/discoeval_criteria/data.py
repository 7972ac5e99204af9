"""Training and dev sentences from the WikiExtractor corpus, split by article id like every other corpus.

An article's split is :func:`coherence_metric.research.splits.split_of` of its id ``"wiki:<page id>"`` (the id the
corpus reader :mod:`coherence_metric.research.corpora.wiki` gives it), so an article this objective trains on is never a
test document of any benchmark built from the same corpus. The test split is never read here.
:mod:`coherence_metric.research.splits` also drops exact duplicate documents; the wiki corpus has none (checked: 0 of
its 6,500 documents), so that step is not repeated here.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List

from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA
from coherence_metric.research.splits import split_of

from .settings import DataSettings
from .targets import SentenceExample, article_examples
from .wiki_structure import Article, level_statistics, read_articles, wiki_files

logger = logging.getLogger("coherence_metric.training")

DEV_SHUFFLE_SEED = 20190901  # fixed, so every run and every row is evaluated on the same dev slice


@dataclass
class SplitExamples:
    """Training sentences (all of the train split's articles read) and the dev slice, with counts for the log."""

    train: List[SentenceExample]
    dev: List[SentenceExample]
    summary: Dict[str, Any]


def wiki_folder(data: DataSettings) -> Path:
    """The corpus folder: ``data.folder`` or the registered wiki corpus under the shared data folder."""
    if data.folder is not None:
        folder = Path(data.folder).expanduser()
        if not folder.is_dir():
            raise InputError(f"data.folder not found: {folder}")
        return folder
    return CORPORA["wiki"].path()


def load_examples(data: DataSettings) -> SplitExamples:
    """Read ``data.files`` files once and return the train split's sentences and the dev slice.

    Raises:
        InputError: no training article or no dev sentence among the files read (read more files).
    """
    train_articles: List[Article] = []
    dev_articles: List[Article] = []
    files = wiki_files(wiki_folder(data), data.files)
    for path in files:
        for article in read_articles(path):
            if article.sentence_count < data.min_article_sentences:
                continue
            split = split_of(article.id)
            if split == "train" and (data.max_train_articles is None or len(train_articles) < data.max_train_articles):
                train_articles.append(article)
            elif split == "dev":
                dev_articles.append(article)
    if not train_articles:
        raise InputError(f"no training article in the first {len(files)} WikiExtractor file(s): raise data.files")
    if not dev_articles:
        raise InputError(f"no dev-split article in the first {len(files)} WikiExtractor file(s): raise data.files")
    train = [example for article in train_articles for example in article_examples(article)]
    dev = [example for article in dev_articles for example in article_examples(article)]
    random.Random(DEV_SHUFFLE_SEED).shuffle(dev)
    dev = dev[: data.dev_sentences]
    summary: Dict[str, Any] = {
        "files": len(files), "train_articles": len(train_articles), "train_sentences": len(train),
        "dev_articles": len(dev_articles), "dev_sentences": len(dev),
        "train_sentences_per_level": level_statistics(train_articles),
    }
    logger.info("DiscoEval criteria data: %s", summary)
    return SplitExamples(train=train, dev=dev, summary=summary)


__all__ = ["DEV_SHUFFLE_SEED", "SplitExamples", "load_examples", "wiki_folder"]
