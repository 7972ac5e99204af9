"""Human ratings of generated texts, read in place: SummEval's expert coherence and the human_dev sets.

A metric put next to ROUGE compares *different* texts written for one input (two systems' summaries of one
article, two stories for one prompt), so each rated text carries its ``group`` (the input it was written for)
and its ``system``. Correlations and pairs are only ever formed inside a group.

- ``SUMMEVAL-RATINGS``: 100 CNN/DailyMail articles x 16 systems, the mean of 3 expert coherence ratings (1-5),
  from ``summeval/bartscore_all16`` (the only file with all 16 systems; see that folder's README).
- ``HANNA``, ``DELTASCORE``, ``FFCI``: ``human_dev/*.jsonl`` (see its README for provenance, licences and how
  pairs are formed). Dev data: recipes are chosen on these, never on a paper test set.

Texts given as one string are cut with the project's splitter (``coherence_metric.inputs.sentences``), the one the
scorer uses; FFCI gives sentences already.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional

from coherence_metric.errors import InputError
from coherence_metric.research.data_dir import require_data_file, shared_data_dir
from coherence_metric.toolkit import split_sentences

from .summeval import DATA_FILE as SUMMEVAL_FILE
from .summeval import read_summeval_articles

SUMMEVAL_RATINGS = "SUMMEVAL-RATINGS"
HANNA, DELTASCORE, FFCI = "HANNA", "DELTASCORE", "FFCI"
HUMAN_DEV_SETS = (HANNA, DELTASCORE, FFCI)
#: Halves of the human_dev groups: choose recipes on one, report on the other.
DEV_SELECT, DEV_REPORT = "dev-select", "dev-report"


@dataclass(frozen=True)
class RatedText:
    """One rated text: its group (the input it was written for), its system, its sentences and its rating."""

    id: str
    group: str
    system: str
    sentences: tuple[str, ...]
    rating: float


@dataclass(frozen=True)
class RatedPair:
    """Two rated texts of one group whose ratings differ by at least the set's gap, as indices into the set's
    texts; ``better`` is the one rated higher."""

    better: int
    worse: int


@dataclass(frozen=True)
class RatedSet:
    """A named collection of rated texts and the rule that makes pairs of them.

    Attributes:
        name: ``SUMMEVAL-RATINGS``, ``HANNA``, ``DELTASCORE`` or ``FFCI``.
        texts: in file order.
        criterion: the rating used (``coherence``, or FFCI's ``intersentential_coherence``).
        min_gap: two texts of a group form a pair when their ratings differ by at least this much.
        source: the file read.
        notes: facts a report shows (scale, grouping key).
    """

    name: str
    texts: tuple[RatedText, ...]
    criterion: str
    min_gap: float
    source: str
    notes: Mapping[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.texts)

    def __iter__(self) -> Iterator[RatedText]:
        return iter(self.texts)

    def groups(self) -> dict[str, list[int]]:
        """Return the indices of the texts by group, groups in first-seen order."""
        grouped: dict[str, list[int]] = {}
        for index, text in enumerate(self.texts):
            grouped.setdefault(text.group, []).append(index)
        return grouped

    def pairs(self) -> list[RatedPair]:
        """Return every same-group pair whose ratings differ by at least ``min_gap`` (better one first).

        The gap is compared with a 1e-9 tolerance, so two means of three ratings one point apart (3.6667 and
        2.6667, whose float difference is 0.99999...) form a pair. Two identical texts with different ratings
        are left out: no scorer can order them. Built once per set (every system and half reads them).
        """
        return list(self._pairs)

    @functools.cached_property
    def _pairs(self) -> tuple[RatedPair, ...]:
        found = []
        for indices in self.groups().values():
            for first, second in itertools.combinations(indices, 2):
                a, b = self.texts[first], self.texts[second]
                if abs(a.rating - b.rating) >= self.min_gap - 1e-9 and a.sentences != b.sentences:
                    found.append(RatedPair(first, second) if a.rating > b.rating else RatedPair(second, first))
        return tuple(found)


def dev_half(set_name: str, group: str) -> str:
    """Return the fixed half (``dev-select`` or ``dev-report``) of a group, from a hash of its set and key.

    A hash, not the file order, so the split never moves when a file is re-ordered, and whole groups (prompts,
    articles) stay on one side: the same prompt's stories never sit on both sides.
    """
    digest = hashlib.sha256(f"{set_name}\x1f{group}".encode("utf-8")).digest()
    return DEV_SELECT if digest[0] % 2 == 0 else DEV_REPORT


#: Every group, both halves.
ALL = "all"
#: Two texts are length-matched when their word counts differ by at most this share of the longer one.
LENGTH_MATCH_TOLERANCE = 0.10


def in_half(rated: RatedSet, group: str, half: str) -> bool:
    """Whether a group of the set lies in ``half`` (``dev-select``, ``dev-report`` or ``all``)."""
    return half == ALL or dev_half(rated.name, group) == half


def word_count(sentences: Any) -> int:
    """Whitespace-separated words of a text (the word-count baseline's score)."""
    return sum(len(sentence.split()) for sentence in sentences)


def length_matched(rated: RatedSet, better: int, worse: int, tolerance: float = LENGTH_MATCH_TOLERANCE) -> bool:
    """Whether two texts' word counts differ by at most ``tolerance`` of the longer one."""
    a, b = word_count(rated.texts[better].sentences), word_count(rated.texts[worse].sentences)
    return abs(a - b) <= tolerance * max(a, b)


def group_credits(rated: RatedSet, scores: Any, half: str,
                  matched_only: bool = False) -> dict[str, tuple[float, int, int]]:
    """Per group of the half: (credit, pairs, ties), credit = pairs scored the human way + half the ties.

    ``scores`` is indexed by text index: a sequence over every text, or a mapping holding (at least) the half's
    texts. The benchmark's human-dev suite and the training dev report both count pairs this one way.
    """
    credits: dict[str, list[float]] = {}
    for pair in rated.pairs():
        group = rated.texts[pair.better].group
        if not in_half(rated, group, half) or (matched_only and not length_matched(rated, pair.better, pair.worse)):
            continue
        better, worse = scores[pair.better], scores[pair.worse]
        entry = credits.setdefault(group, [0.0, 0, 0])
        entry[0] += 1.0 if better > worse else 0.5 if better == worse else 0.0
        entry[1] += 1
        entry[2] += better == worse
    return {group: (entry[0], int(entry[1]), int(entry[2])) for group, entry in credits.items()}


def limit_groups(rated: RatedSet, limit: Optional[int], seed: int) -> RatedSet:
    """Keep a seeded sample of ``limit`` groups (all their texts), in file order; None keeps every group.

    Whole groups, never single texts, so every kept group's pairs and correlations stay what they were.
    """
    if limit is None:
        return rated
    if limit < 1:
        raise InputError(f"--limit must be a positive number of groups, got {limit}")
    groups = list(rated.groups())
    kept = set(random.Random(seed).sample(groups, min(limit, len(groups))))
    texts = tuple(text for text in rated.texts if text.group in kept)
    return RatedSet(rated.name, texts, rated.criterion, rated.min_gap, rated.source,
                    {**rated.notes, "groups_kept": len(kept), "limit": limit})


def _data_path(relative: Path, data_dir: Optional[Path]) -> Path:
    return require_data_file(Path(data_dir if data_dir is not None else shared_data_dir()) / relative, "rated set")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise InputError(f"{path} is not valid UTF-8: {error}") from error
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as error:
            raise InputError(f"{path}:{number}: not valid JSON ({error})") from error
        if not isinstance(record, dict):
            raise InputError(f"{path}:{number}: expected a JSON object")
        records.append(record)
    return records


def _sentences(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        sentences = split_sentences(value)
    elif isinstance(value, list) and all(isinstance(sentence, str) for sentence in value):
        sentences = [" ".join(sentence.split()) for sentence in value if sentence.strip()]
    else:
        raise InputError(f"{where}: the text must be a string or a list of sentence strings")
    if not sentences:
        raise InputError(f"{where}: empty text")
    return tuple(sentences)


def _rating(record: Mapping[str, Any], criterion: str, where: str) -> float:
    try:
        return float(record["ratings"][criterion])
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"{where}: no numeric ratings.{criterion}") from error


#: name -> (file under human_dev/, criterion, minimum rating gap of a pair, grouping fields, scale).
_HUMAN_DEV_FILES: dict[str, tuple[str, str, float, tuple[str, ...], str]] = {
    HANNA: ("hanna.jsonl", "coherence", 1.0, ("prompt_id",), "mean of 3 raters, 1-5"),
    DELTASCORE: ("deltascore.jsonl", "coherence", 1.0, ("rater_pool", "prompt"), "mean of 3 raters, 1-5"),
    FFCI: ("ffci_coherence.jsonl", "intersentential_coherence", 20.0, ("article_id",), "crowd mean, 0-100"),
}


def load_human_dev_set(name: str, data_dir: Optional[Path] = None) -> RatedSet:
    """Load one human_dev set (``HANNA``, ``DELTASCORE`` or ``FFCI``, case-insensitive) in file order.

    Args:
        name: the set.
        data_dir: the shared data folder; None finds it the usual way.
    """
    key = str(name).upper()
    if key not in _HUMAN_DEV_FILES:
        raise InputError(f"unknown human_dev set {name!r}: choose one of {', '.join(HUMAN_DEV_SETS)}")
    file_name, criterion, gap, grouping, scale = _HUMAN_DEV_FILES[key]
    path = _data_path(Path("human_dev") / file_name, data_dir)
    texts = []
    for record in _read_jsonl(path):
        where = f"{path} id {record.get('id')}"
        try:
            group = "/".join(str(record[part]) for part in grouping)
        except KeyError as error:
            raise InputError(f"{where}: no {error.args[0]!r} field") from error
        texts.append(RatedText(id=str(record.get("id")), group=group, system=str(record.get("system")),
                               sentences=_sentences(record.get("text", record.get("sentences")), where),
                               rating=_rating(record, criterion, where)))
    if not texts:
        raise InputError(f"{path} holds no rated texts")
    notes = {"group": "+".join(grouping), "scale": scale, "pair_rule": f"same group, {criterion} gap >= {gap:g}"}
    return RatedSet(key, tuple(texts), criterion, gap, str(path), notes)


def load_summeval_ratings(data_dir: Optional[Path] = None) -> RatedSet:
    """Load SummEval's 1,600 rated summaries (100 articles x 16 systems, mean expert coherence) in file order.

    Args:
        data_dir: the shared data folder; None finds it the usual way.
    """
    path = _data_path(SUMMEVAL_FILE, data_dir)
    articles = read_summeval_articles(path)
    texts = []
    for doc_id, article in articles.items():
        systems = article.get("sys_summs") if isinstance(article, dict) else None
        if not isinstance(systems, dict) or not systems:
            raise InputError(f"{path}: article {doc_id} has no 'sys_summs' dict")
        for system, entry in systems.items():
            where = f"{path}: article {doc_id} system {system}"
            text = entry.get("sys_summ") if isinstance(entry, dict) else None
            try:
                rating = float(entry["scores"]["coherence"])
            except (KeyError, TypeError, ValueError) as error:
                raise InputError(f"{where}: no numeric scores.coherence") from error
            texts.append(RatedText(id=f"{doc_id}/{system}", group=str(doc_id), system=str(system),
                                   sentences=_sentences(text, where), rating=rating))
    notes = {"group": "article", "scale": "mean of 3 experts, 1-5", "articles": len(articles)}
    return RatedSet(SUMMEVAL_RATINGS, tuple(texts), "coherence", 1e-6, str(path), notes)
