"""Diagnostics a user can run on any set of texts: does the score lean on length, case or tokenisation?

A coherence score should depend on how well sentences hang together, not on how many there are or on how
the text was normalised before it reached the metric. Evaluation data often arrives lower-cased and
tokenised the way CNN/DailyMail was ("Hello , world ."), so ``diagnose`` scores the same texts four ways
(as given, lower-cased, tokenised, both) and reports:

* the mean score per sentence-count bucket (1, 2, 3, 4-5, 6+) and Spearman's rho of the score with word
  count and with sentence count: a length bias shows up here whatever the texts' real quality;
* per variant, how far the scores move (mean and max absolute change, and the mean change over the
  scores' standard deviation, so the change reads against the spread between texts) and the share of text
  pairs whose order flips, which is what a ranking of systems would feel.

Everything is scored through :class:`coherence_metric.CoherenceScorer`, so the numbers are the metric's own.
This module imports numpy but not torch; the scorer is built (and torch imported) only when scoring.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .errors import InputError, TruncationWarning
from .inputs.texts import Document, normalise_documents, sentences_of
from .settings import ScorerSettings

#: Sentence-count buckets: (label, smallest count, largest count or None for no limit).
BUCKETS: Tuple[Tuple[str, int, Optional[int]], ...] = (
    ("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4-5", 4, 5), ("6+", 6, None),
)
VARIANTS = ("lowercased", "tokenised", "lowercased+tokenised")
DEFAULT_MAX_PAIRS = 20_000
DEFAULT_SEED = 12345

# One alternative per kind of token, tried in order at each position; the text is the tokens joined by spaces.
_PTB_TOKEN = re.compile(
    r"""
      (?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr)\.(?!\w)      # titles keep their period, as PTB and CNN/DM do
    | (?:[^\W\d_]\.){2,}                          # initialisms keep their inner periods: U.S., e.g.
    | \d+(?:[.,:]\d+)+                            # numbers stay whole: 3.5, 1,000, 10:30
    | \w+(?=n['’]t\b)                             # "do" of "don't"; "ca" of "can't" (PTB's split)
    | n['’]t\b                                    # n't
    | ['’](?:s|re|ve|ll|d|m)\b                    # clitics: 's 're 've 'll 'd 'm
    | \w+(?:-\w+|['’](?!(?:s|re|ve|ll|d|m)\b)\w+)*   # words, hyphenated words, o'clock
    | \.{2,} | -{2,} | `` | ''                    # ellipsis, dash and PTB's quotes as one token
    | \S                                          # any other character is a token of its own
    """,
    re.VERBOSE | re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]")


def tokenise_like_ptb(text: str) -> str:
    """Split punctuation and clitics off words with spaces, as CNN/DailyMail-style evaluation data arrives.

    ``"Hello, world."`` becomes ``"Hello , world ."`` and ``"it's"`` becomes ``"it 's"`` (``"don't"``:
    ``"do n't"``). Like the Penn Treebank tokeniser it keeps numbers (``3.5``, ``1,000``), initialisms
    (``U.S.``), a few titles (``Mr.``) and hyphenated words whole. Unlike it, quotes and brackets are left as
    they are (no ``-LRB-``, and ``"`` does not become PTB's two-character quotes, though those are kept whole
    when a text already has them): the point is the spacing a scorer sees, not a treebank's spelling.
    Whitespace, line breaks included, collapses to single spaces; an already tokenised text comes back unchanged.
    """
    return " ".join(_PTB_TOKEN.findall(text))


def _lowercase_and_tokenise(text: str) -> str:
    return tokenise_like_ptb(text.lower())


_TRANSFORMS: Dict[str, Callable[[str], str]] = {
    "lowercased": str.lower,
    "tokenised": tokenise_like_ptb,
    "lowercased+tokenised": _lowercase_and_tokenise,
}


def apply_variant(document: Document, variant: str) -> Document:
    """The text as ``variant`` rewrites it; a sentence list is rewritten sentence by sentence and stays a list."""
    transform = _TRANSFORMS[variant]
    if isinstance(document, str):
        return transform(document)
    return [transform(sentence) for sentence in document]


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 1, tied values sharing the mean of their ranks (what Spearman's rho needs for ties)."""
    array = np.asarray(values, dtype=float)
    _, inverse, counts = np.unique(array, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse.reshape(-1)]


def spearman(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    """Spearman's rho (Pearson's r of average ranks); None when either side is constant (rho is undefined).

    Written here rather than imported from scipy so that scoring needs no scipy.
    """
    if len(x) != len(y):
        raise InputError(f"spearman needs two sequences of one length, got {len(x)} and {len(y)}")
    if len(x) < 2:
        return None
    rank_x, rank_y = average_ranks(x), average_ranks(y)
    rank_x, rank_y = rank_x - rank_x.mean(), rank_y - rank_y.mean()
    denominator = math.sqrt(float((rank_x**2).sum()) * float((rank_y**2).sum()))
    if denominator == 0.0:
        return None
    return float((rank_x * rank_y).sum() / denominator)


def word_count(document: Document) -> int:
    """Whitespace-separated pieces that hold a letter or digit: lone punctuation is not a word, so the count
    of a tokenised text ("Hello , world .") equals the count of the original ("Hello, world.")."""
    pieces = document.split() if isinstance(document, str) else [p for s in document for p in s.split()]
    return sum(1 for piece in pieces if _WORD.search(piece))


def sentence_count(document: Document) -> int:
    """Sentences as the scorer sees them: a given list's non-empty sentences, else the project's splitter."""
    return max(1, len(sentences_of(document)))


def bucket_label(count: int) -> str:
    """The sentence-count bucket a text of ``count`` sentences falls in."""
    for label, low, high in BUCKETS:
        if count >= low and (high is None or count <= high):
            return label
    return BUCKETS[0][0]


@dataclass
class BucketStats:
    """The texts of one sentence-count bucket; ``mean_score`` is None for an empty bucket."""

    label: str
    n_texts: int
    mean_score: Optional[float]


@dataclass
class VariantStats:
    """How the scores move when every text is rewritten one way.

    Attributes:
        name: ``lowercased``, ``tokenised`` or ``lowercased+tokenised``.
        n_changed: texts the rewrite changed (the others keep their score exactly and are not rescored).
        mean_change: mean of (variant score - original score): a shift common to all texts.
        mean_abs_change, max_abs_change: how far scores move.
        relative_change: ``mean_abs_change`` over the original scores' standard deviation; near 0 means the
            rewrite moves a text far less than texts differ from each other. None when the std is 0.
        flip_rate: share of the compared text pairs ordered one way originally and the other way after.
        n_pairs: pairs compared; ``pairs_sampled`` says whether they are a seeded sample of all pairs.
    """

    name: str
    n_changed: int
    mean_change: float
    mean_abs_change: float
    max_abs_change: float
    relative_change: Optional[float]
    flip_rate: float
    n_pairs: int
    pairs_sampled: bool


@dataclass
class DiagnosticReport:
    """What :func:`diagnose` measured; ``to_dict()``/``to_json()`` for files, :func:`render_report` for people.

    ``n_truncated`` and ``n_windowed`` count the original texts cut at, or scored in windows over, max_length;
    ``n_truncated_rewritten`` counts the distinct rewritten texts that were cut (a rewrite can leave a text with
    one "sentence" over max_length when the sentence splitter no longer finds its boundaries).
    """

    n_texts: int
    mean_score: float
    score_std: float
    buckets: List[BucketStats]
    spearman_word_count: Optional[float]
    spearman_sentence_count: Optional[float]
    variants: List[VariantStats]
    n_truncated: int
    n_windowed: int
    n_truncated_rewritten: int
    signature: str

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form (for JSON, logging or a results table)."""
        return asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)


def compared_pairs(n: int, max_pairs: int = DEFAULT_MAX_PAIRS, seed: int = DEFAULT_SEED
                   ) -> Tuple[np.ndarray, np.ndarray, bool]:
    """Index pairs (i < j) to compare: all of them, or ``max_pairs`` drawn with a seeded generator when there
    are more (a sample of 20,000 puts a flip rate within about +-0.7 points, 95%, at any size)."""
    if n * (n - 1) // 2 <= max_pairs:
        first, second = np.triu_indices(n, k=1)
        return first, second, False
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, size=max_pairs)
    second = rng.integers(0, n - 1, size=max_pairs)
    second = second + (second >= first)
    return np.minimum(first, second), np.maximum(first, second), True


def flip_rate(before: np.ndarray, after: np.ndarray, pairs: Tuple[np.ndarray, np.ndarray]) -> float:
    """Share of ``pairs`` whose two texts are strictly ordered one way before and the other way after
    (a pair tied on either side does not count as flipped)."""
    first, second = pairs
    product = (before[first] - before[second]) * (after[first] - after[second])
    return float((product < 0).mean()) if len(first) else 0.0


def _variant_stats(name: str, before: np.ndarray, after: np.ndarray, changed: int, std: float,
                   pairs: Tuple[np.ndarray, np.ndarray, bool]) -> VariantStats:
    change = after - before
    mean_abs = float(np.abs(change).mean())
    return VariantStats(
        name=name,
        n_changed=changed,
        mean_change=float(change.mean()),
        mean_abs_change=mean_abs,
        max_abs_change=float(np.abs(change).max()),
        relative_change=mean_abs / std if std > 0 else None,
        flip_rate=flip_rate(before, after, pairs[:2]),
        n_pairs=len(pairs[0]),
        pairs_sampled=pairs[2],
    )


def _bucket_stats(scores: np.ndarray, sentence_counts: Sequence[int]) -> List[BucketStats]:
    labels = [bucket_label(count) for count in sentence_counts]
    stats = []
    for label, _, _ in BUCKETS:
        members = scores[[position for position, own in enumerate(labels) if own == label]]
        stats.append(BucketStats(label, len(members), float(members.mean()) if len(members) else None))
    return stats


def _key(document: Document) -> Union[str, Tuple[str, ...]]:
    return document if isinstance(document, str) else tuple(document)


def _score_rewritten(scorer: Any, texts: List[Document]) -> Tuple[List[float], int]:
    """Scores of the rewritten texts and how many were cut at max_length; the report carries that count, so
    the scorer's warning (which would count rewritten texts the user never wrote) is silenced."""
    if not texts:
        return [], 0

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)
        result = scorer.score(texts)
    return list(result.scores), int(result.n_truncated)


def _score_variants(scorer: Any, documents: List[Document], original: np.ndarray
                    ) -> Tuple[Dict[str, Tuple[np.ndarray, int]], int]:
    """Each variant's scores and how many texts it changed, scoring every distinct changed text once; and how
    many of those were cut at max_length.

    A text a rewrite leaves as it was keeps its original score, so an already lower-cased text shows a change
    of exactly 0 rather than the last-digit noise of being batched with other texts.
    """
    rewritten = {name: [apply_variant(document, name) for document in documents] for name in VARIANTS}
    pending: Dict[Union[str, Tuple[str, ...]], Document] = {}
    for name in VARIANTS:
        for document, variant in zip(documents, rewritten[name]):
            if _key(variant) != _key(document):
                pending.setdefault(_key(variant), variant)
    values, n_truncated = _score_rewritten(scorer, list(pending.values()))
    scored = dict(zip(pending, values))
    results = {}
    for name in VARIANTS:
        scores = original.copy()
        changed = 0
        for position, (document, variant) in enumerate(zip(documents, rewritten[name])):
            if _key(variant) != _key(document):
                scores[position] = scored[_key(variant)]
                changed += 1
        results[name] = (scores, changed)
    return results, n_truncated


def _resolve_scorer(scorer_or_model: Any, settings: Optional[ScorerSettings], overrides: Dict[str, Any]) -> Any:
    """The scorer passed in, or the project's cached one for a model name (the model loads once per process)."""
    if isinstance(scorer_or_model, str):
        from .scorer import get_scorer

        return get_scorer(scorer_or_model, settings=settings, **overrides)
    if settings is not None or overrides:
        raise InputError("scorer settings go to the CoherenceScorer you pass, not to diagnose()")
    return scorer_or_model


def diagnose(texts: Sequence[Document], scorer_or_model: Any = "default", max_pairs: int = DEFAULT_MAX_PAIRS,
             seed: int = DEFAULT_SEED, *, settings: Optional[ScorerSettings] = None,
             **overrides: Any) -> DiagnosticReport:
    """Score ``texts`` as given, lower-cased, tokenised and both, and report length and normalisation effects.

    Args:
        texts: two or more texts, each a string or a list of its sentences (variants rewrite each sentence).
        scorer_or_model: a ``CoherenceScorer`` to reuse, or a model name for the cached ``get_scorer``.
        max_pairs: most text pairs compared for order flips; above it a seeded sample of this many.
        seed: the seed of that sample.
        settings: the cached scorer's settings (a ``ScorerSettings``) when a model name is given.
        **overrides: ``ScorerSettings`` fields by name (``dtype="fp32"``), in place of those of ``settings``.

    Raises:
        InputError: fewer than two texts (nothing to correlate or order), or a text the scorer refuses.
    """
    if isinstance(texts, str) or len(texts) < 2:
        count = 1 if isinstance(texts, str) else len(texts)
        raise InputError(f"diagnose needs at least 2 texts to correlate and order, got {count}")
    normalise_documents(list(texts))  # reject empty or mistyped texts before any model loads
    documents = list(texts)
    scorer = _resolve_scorer(scorer_or_model, settings, overrides)
    result = scorer.score(documents)
    original = np.asarray(result.scores, dtype=float)
    std = float(original.std(ddof=1))
    sentence_counts = [sentence_count(document) for document in documents]
    pairs = compared_pairs(len(documents), max_pairs, seed)
    rescored, n_truncated_rewritten = _score_variants(scorer, documents, original)
    variants = [_variant_stats(name, original, scores, changed, std, pairs)
                for name, (scores, changed) in rescored.items()]
    return DiagnosticReport(
        n_texts=len(documents),
        mean_score=float(original.mean()),
        score_std=std,
        buckets=_bucket_stats(original, sentence_counts),
        spearman_word_count=spearman(original.tolist(), [word_count(document) for document in documents]),
        spearman_sentence_count=spearman(original.tolist(), sentence_counts),
        variants=variants,
        n_truncated=result.n_truncated,
        n_windowed=result.n_windowed,
        n_truncated_rewritten=n_truncated_rewritten,
        signature=str(result.signature),
    )


def _number(value: Optional[float], digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render_report(report: DiagnosticReport) -> str:
    """A short table for a terminal: buckets, correlations with length, then the normalisation variants."""
    lines = [f"texts: {report.n_texts}   mean score: {report.mean_score:.4f}   std: {report.score_std:.4f}", "",
             f"{'sentences':<10} {'texts':>6} {'mean score':>11}"]
    for bucket in report.buckets:
        lines.append(f"{bucket.label:<10} {bucket.n_texts:>6} {_number(bucket.mean_score):>11}")
    lines += ["", f"spearman of score with word count: {_number(report.spearman_word_count, 3)}, "
                  f"with sentence count: {_number(report.spearman_sentence_count, 3)}", "",
              f"{'variant':<21} {'changed':>8} {'mean |chg|':>10} {'max |chg|':>10} {'|chg|/std':>9} "
              f"{'mean chg':>9} {'flips':>7}"]
    for variant in report.variants:
        lines.append(f"{variant.name:<21} {variant.n_changed:>8} {variant.mean_abs_change:>10.4f} "
                     f"{variant.max_abs_change:>10.4f} {_number(variant.relative_change, 3):>9} "
                     f"{variant.mean_change:>+9.4f} {variant.flip_rate:>6.1%}")
    sampled = report.variants[0].pairs_sampled if report.variants else False
    pairs = report.variants[0].n_pairs if report.variants else 0
    lines.append(f"flips: share of {pairs:,} text pairs{' (seeded sample)' if sampled else ''} whose order reverses")
    if report.n_truncated or report.n_truncated_rewritten:
        lines.append(f"cut at max_length: {report.n_truncated} original texts, "
                     f"{report.n_truncated_rewritten} rewritten texts")
    lines.append(f"signature: {report.signature}")
    return "\n".join(lines)
