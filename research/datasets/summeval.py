"""SUMMEVAL rebuilt: pairs of summaries of the same article, the one with the higher mean expert coherence as ``pos``.

The paper's ``SummEval.pkl`` is not available, so the pairs are rebuilt from ``summeval/bartscore_all16``,
the only file with all 16 systems (its ``coherence`` is the mean of the 3 expert ratings; checked upstream
against the individual ratings for the 12 abstractive systems). 100 articles x C(16, 2) = 12,000 candidate
pairs, as in the paper. Dropped, and counted in ``notes``:

- ties: equal mean coherence (means are multiples of 1/3, compared rounded to 6 decimals);
- identical texts: two systems wrote the same summary but got different ratings; no scorer can order them.

Sentences: the data gives each summary as one tokenised string (lower-cased except the first letter), not
as sentences, so it is cut with the project's splitter, ``coherence_metric.inputs.sentences.split_sentences``, the
same one the scorer and the training pipeline use. Some summaries come out as a single sentence.
"""

from __future__ import annotations

import itertools
import json
import logging
from pathlib import Path
from typing import Any, Optional

from coherence_metric.errors import InputError
from coherence_metric.research.data_dir import require_data_file, shared_data_dir
from coherence_metric.toolkit import split_sentences

from .base import DEFAULT_SEED, PairItem, TestSet

LOGGER = logging.getLogger("coherence_metric.benchmarks")

NAME = "SUMMEVAL"
DATA_FILE = Path("summeval") / "bartscore_all16" / "SummEval_data.json"
RATING = "coherence"
TIE_DECIMALS = 6


def _summaries(path: Path, doc_id: str, article: Any) -> dict[str, tuple[str, float]]:
    """Return ``{system: (summary, mean coherence)}`` for one article, in file order."""
    systems = article.get("sys_summs") if isinstance(article, dict) else None
    if not isinstance(systems, dict) or not systems:
        raise InputError(f"{path}: article {doc_id} has no 'sys_summs' dict")
    summaries = {}
    for system, entry in systems.items():
        try:
            text = entry["sys_summ"]
            rating = float(entry["scores"][RATING])
        except (KeyError, TypeError, ValueError) as error:
            message = f"{path}: article {doc_id} system {system} lacks 'sys_summ' or a numeric '{RATING}'"
            raise InputError(message) from error
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{path}: article {doc_id} system {system} has an empty summary")
        summaries[system] = (text, rating)
    return summaries


def read_summeval_articles(path: Path) -> dict[str, Any]:
    """Read ``SummEval_data.json``: a non-empty dict of articles keyed by document id (one-line errors)."""
    try:
        articles = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"cannot read SummEval data {path}: {error.strerror or error}") from error
    except ValueError as error:
        raise InputError(f"SummEval data {path} is not valid UTF-8 JSON: {error}") from error
    if not isinstance(articles, dict) or not articles:
        raise InputError(f"{path}: expected a dict of articles keyed by document id")
    return articles


def load_summeval(data_dir: Optional[Path] = None, seed: int = DEFAULT_SEED) -> TestSet:
    """Rebuild the SummEval coherence pairs: same article, different mean expert coherence.

    Args:
        data_dir: the shared data folder; None finds it with ``shared_data_dir()``.
        seed: unused (nothing is sampled); accepted so every loader has the same signature.

    Returns:
        A TestSet in file order (articles, then system pairs in file order); ``notes`` give the candidate
        pairs, the ties and identical-text pairs excluded, and the number of single-sentence summaries.
    """
    path = require_data_file(Path(data_dir if data_dir is not None else shared_data_dir()) / DATA_FILE, "SummEval data")
    articles = read_summeval_articles(path)
    items: list[PairItem] = []
    candidates = ties = identical_texts = single_sentence = 0
    sentences_of: dict[str, list[str]] = {}
    systems_seen: set[str] = set()
    for doc_id, article in articles.items():
        summaries = _summaries(path, doc_id, article)
        systems_seen.update(summaries)
        for system, (text, _) in summaries.items():
            if text not in sentences_of:
                sentences_of[text] = split_sentences(text)
            if not sentences_of[text]:
                raise InputError(f"{path}: article {doc_id} system {system} has a summary with no sentences")
            single_sentence += len(sentences_of[text]) == 1
        for system_a, system_b in itertools.combinations(summaries, 2):
            candidates += 1
            (text_a, rating_a), (text_b, rating_b) = summaries[system_a], summaries[system_b]
            if round(rating_a, TIE_DECIMALS) == round(rating_b, TIE_DECIMALS):
                ties += 1
                continue
            if text_a == text_b:
                identical_texts += 1
                continue
            if rating_a < rating_b:
                (system_a, text_a, rating_a), (system_b, text_b, rating_b) = (
                    (system_b, text_b, rating_b),
                    (system_a, text_a, rating_a),
                )
            items.append(
                PairItem(
                    id=f"{doc_id}/{system_a}>{system_b}",
                    pos=list(sentences_of[text_a]),
                    neg=list(sentences_of[text_b]),
                    meta={
                        "doc_id": doc_id,
                        "pos_system": system_a,
                        "neg_system": system_b,
                        "pos_coherence": rating_a,
                        "neg_coherence": rating_b,
                    },
                )
            )
    notes = {
        "articles": len(articles),
        "systems": len(systems_seen),
        "candidate_pairs": candidates,
        "ties_excluded": ties,
        "identical_text_pairs_excluded": identical_texts,
        "single_sentence_summaries": single_sentence,
        "rating": f"mean expert {RATING}",
        "sentence_splitter": "coherence_metric.inputs.sentences.split_sentences",
    }
    LOGGER.info("rebuilt %s: %d pairs from %d candidates (%d ties excluded)", NAME, len(items), candidates, ties)
    return TestSet(name=NAME, items=tuple(items), source=str(path), notes=notes)
