"""Which sentences break a text, and why: per sentence, the evidence of each kind of break, and calibrated flags.

``explain`` scores each transition (:mod:`coherence_metric.analysis.mechanisms`); this module turns a text's
transitions, its sentences' embeddings and the checkpoint's own score into evidence *per sentence*, one number per
kind of break, each higher where the break is more likely:

- ``score_drop``: what the sentence costs the score the user sees, read as people read, one sentence after another:
  the checkpoint's score of the sentences before it minus its score of those sentences and this one (above 0: adding
  the sentence lowers the score). The text's score is the first sentence's score minus the drops of the others, so
  the drops say where the score was lost. None for the first sentence. (Leaving a sentence out, the other reading,
  blames both copies of a repeated sentence alike; a drop blames the repeat.)
- ``transition``: minus the transition into it (``transition-cosine``; above 0 where the transition reads as a
  break). None for the first sentence.
- ``cohesion``: the sentence does not follow from what came before: ``transition`` plus ``DROP_WEIGHT`` times
  ``score_drop``, each in units of its spread over the sentences of CoheSentia's dev stories (``SPREADS``), so the
  sentence that breaks the text where the score feels it ranks first. None for the first sentence (nothing comes
  before it).
- ``duplication``: it repeats an earlier sentence, anywhere before it, or its content: the largest, over the earlier
  sentences, of the cosine of their pretrained all-MiniLM-L6-v2 embeddings and of the share of its content words the
  earlier sentence has (1.0 for the same words, whatever the encoder says). None for the first sentence.
- ``relevance``: it is off the text's topic: one minus the cosine of its embedding with the mean embedding of the
  other sentences. None in a text of fewer than three sentences.

No model of contradiction ships with the package, so ``consistency`` (a sentence contradicting an earlier one) has no
evidence of its own; on CoheSentia's dev stories the ``cohesion`` evidence ranks the sentences people marked as
contradictions about as well as those marked for cohesion (docs/explain.md has the numbers).

A sentence is flagged when a kind's evidence is above that kind's threshold (``THRESHOLDS``), set on dev so that few
sentences of stories people rate fully coherent are flagged, and adding it lowers the score (``score_drop`` above 0):
a coherent text can come back with no flag. A repeat
is named ``duplication`` whatever else is beyond its threshold; otherwise the kind furthest beyond its threshold, in
units of its dev spread, names the flag. Flags are ordered by their score drop, largest first, so that a cap of one
shows the flagged sentence that cost the score most. ``score_drop`` and therefore ``cohesion`` are in the units of the
checkpoint that computed them, so each checkpoint has its own ``Calibration`` (weights, spreads, thresholds), found
by its fingerprint (``CALIBRATIONS``: the default and the accurate tier); any other checkpoint is read with the
default's, and ``explain`` says its flags are uncalibrated.

Text as LLMs write it is read in units of its structure (:mod:`coherence_metric.inputs.units`): the evidence is read
over the text's body only, its prose sentences and list items (``body_positions``; an item read without its list
marker), as if its framing lines (a chat opening or closing), code blocks and headings were not there, so none of
them is flagged, no break is read into or out of one, and they move no other unit's evidence (a greeting is off the
text's topic by design; framing is not a coherence error). A heading starts a new part on purpose, so the first
body unit after one has no ``cohesion`` (``unit_evidence``): the jump to a new section is not a break.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..inputs.units import BODY, HEADING

COHESION = "cohesion"
DUPLICATION = "duplication"
CONSISTENCY = "consistency"
RELEVANCE = "relevance"
SCORE_DROP = "score_drop"
TRANSITION = "transition"
#: The kinds of break a flag can name.
KINDS = (COHESION, DUPLICATION, RELEVANCE)
#: The evidence given per sentence: the kinds, and what ``cohesion`` is made of.
EVIDENCE = (COHESION, DUPLICATION, RELEVANCE, SCORE_DROP, TRANSITION)
#: What each kind means, for the command line and the report.
KIND_NOTES = {
    COHESION: "does not follow from what came before",
    DUPLICATION: "repeats an earlier sentence or its content",
    RELEVANCE: "is off the text's topic",
}
#: ``cohesion``'s weight of the score drop against the transition, each in units of its dev spread (chosen on
#: CoheSentia's choosing half: benchmarks/localisation/cohesentia.py, docs/explain.md). The default checkpoint's values.
DROP_WEIGHT = 2.0
#: (mean, standard deviation) of ``transition`` and ``score_drop`` over the sentences of CoheSentia's choosing half
#: (default checkpoint, fp32).
SPREADS: Dict[str, Tuple[float, float]] = {TRANSITION: (-0.338, 0.879), SCORE_DROP: (0.024, 0.344)}
#: A sentence is flagged when its evidence of a kind is above that kind's threshold: the quantile of the evidence
#: over the sentences of the fully coherent stories (holistic score 5) of CoheSentia's choosing half that flags
#: ``BUDGETS[kind]`` of them (benchmarks/localisation/cohesentia.py recomputes them).
THRESHOLDS: Dict[str, float] = {COHESION: 2.34, DUPLICATION: 0.843, RELEVANCE: 0.762}
BUDGETS: Dict[str, float] = {COHESION: 0.04, DUPLICATION: 0.005, RELEVANCE: 0.02}
#: Each kind's spread (standard deviation over the same sentences), so margins compare across kinds.
SCALES: Dict[str, float] = {COHESION: 1.71, DUPLICATION: 0.142, RELEVANCE: 0.133}


@dataclass(frozen=True)
class FlagRates:
    """How the flags did on the stories no threshold was set on (CoheSentia dev's check half; the localisation
    suite's ``flags.check`` in the checkpoint's ``localisation_cohesentia-dev.json``; a test holds these to it).

    Attributes:
        stories / coherent_stories: stories read, and those people rated fully coherent.
        found_capped / found_uncapped: share of the sentences people marked that get a flag, at ``--flag 1`` and with
            no cap.
        coherent_flagged: share of the fully coherent stories that get a flag (the same with or without a cap).
    """

    stories: int
    coherent_stories: int
    found_capped: float
    found_uncapped: float
    coherent_flagged: float

    def line(self, cap: int) -> str:
        """The one line ``explain`` prints under its text output."""
        found = self.found_capped if cap == 1 else self.found_uncapped
        where = "at --flag 1" if cap == 1 else "with no cap"
        return (f"flags: measured on {self.stories} CoheSentia dev stories no threshold was set on, they found "
                f"{found:.0%} of the sentences people marked ({where}) and put a flag on {self.coherent_flagged:.0%} "
                "of the stories people rated fully coherent")


@dataclass(frozen=True)
class Calibration:
    """How one checkpoint's evidence is weighed and where its flags start, all set on CoheSentia's choosing half.

    ``score_drop``, and so ``cohesion``, are in the units of the checkpoint that computed them, so each checkpoint
    needs its own: the localisation suite's cohesentia-dev split recomputes every number here
    (``calibration.recomputed_on_choose`` in its report; a test holds the values below to it).

    Attributes:
        checkpoint: the immutable name of the checkpoint they were set with.
        transition_weight / drop_weight: ``cohesion``'s weights of the standardised transition and score drop.
        spreads: (mean, standard deviation) of ``transition`` and ``score_drop`` over the choosing half's sentences.
        thresholds / scales: per kind, where a flag starts and the kind's spread (see ``THRESHOLDS``, ``SCALES``).
        rates: how its flags did on dev stories none of the above was set on.
    """

    checkpoint: str
    transition_weight: float
    drop_weight: float
    spreads: Mapping[str, Tuple[float, float]]
    thresholds: Mapping[str, float]
    scales: Mapping[str, float]
    rates: Optional[FlagRates] = None


#: The default checkpoint's calibration (0.8.0's default; the weights chosen on the choosing half).
DEFAULT_CALIBRATION = Calibration("cm-minilm-gpu-joint-2026.11", 1.0, DROP_WEIGHT, SPREADS, THRESHOLDS, SCALES,
                                  FlagRates(219, 96, 0.161, 0.236, 0.302))
#: The accurate tier's: its score drop alone ranks the choosing half's marked sentences best (adding the transition,
#: at any weight tried, ranks them lower; docs/explain.md), so ``cohesion`` is its standardised score drop.
ACCURATE_CALIBRATION = Calibration(
    "cm-mpnet-lora-joint-2026.11", 0.0, 1.0,
    {TRANSITION: SPREADS[TRANSITION], SCORE_DROP: (-0.020, 0.369)},  # the transition is the same for every checkpoint
    {COHESION: 0.655, DUPLICATION: 0.843, RELEVANCE: 0.762},
    {COHESION: 0.438, DUPLICATION: 0.141, RELEVANCE: 0.133},
    FlagRates(219, 96, 0.202, 0.315, 0.177))
#: Calibrations by checkpoint fingerprint (the hash of its files, so a changed checkpoint is never read as calibrated).
CALIBRATIONS: Dict[str, Calibration] = {"5c7a070b1482": DEFAULT_CALIBRATION, "df710c2c781b": ACCURATE_CALIBRATION}


def calibration_for(fingerprint: str) -> Tuple[Calibration, bool]:
    """The calibration of the checkpoint with this fingerprint and True; for a checkpoint never calibrated, the
    default's and False (its flags then rest on another checkpoint's units, and ``explain`` says so)."""
    found = CALIBRATIONS.get(fingerprint)
    return (found, True) if found is not None else (DEFAULT_CALIBRATION, False)


_SPACE = re.compile(r"\W+")


def _normalised(sentence: str) -> str:
    return _SPACE.sub(" ", sentence.casefold()).strip()


def transition_evidence(transitions: Sequence[float]) -> List[Optional[float]]:
    """Per sentence, minus the transition into it (None for the first)."""
    return [None] + [-float(value) for value in transitions]


def cohesion_evidence(transition: Sequence[Optional[float]], score_drop: Sequence[Optional[float]],
                      calibration: Calibration = DEFAULT_CALIBRATION) -> List[Optional[float]]:
    """Per sentence, its standardised ``transition`` and ``score_drop`` (``calibration.spreads``) weighed by the
    calibration's weights (None for the first sentence, and where either is missing)."""
    (transition_mean, transition_spread), (drop_mean, drop_spread) = (calibration.spreads[TRANSITION],
                                                                      calibration.spreads[SCORE_DROP])
    return [None if step is None or drop is None
            else (calibration.transition_weight * (step - transition_mean) / transition_spread
                  + calibration.drop_weight * (drop - drop_mean) / drop_spread)
            for step, drop in zip(transition, score_drop)]


#: Words too common to say that two sentences share content.
_COMMON = frozenset("a an the and or but of to in on at for with by from as is are was were be been it its this that "
                    "these those he she they them his her their we our you your i my me not no so if then than there "
                    "had has have do did does will would can could said says".split())
#: Fewest content words for a sentence's containment in another to count (a short sentence shares words by chance).
MIN_CONTENT_WORDS = 4


def _content_words(sentence: str) -> frozenset:
    return frozenset(word for word in _normalised(sentence).split() if word not in _COMMON)


def containment(sentence: str, earlier: str) -> float:
    """The share of ``sentence``'s content words that ``earlier`` has (0.0 under ``MIN_CONTENT_WORDS`` of them): 1.0
    for a sentence that repeats part of an earlier one, whatever it leaves out."""
    words = _content_words(sentence)
    if len(words) < MIN_CONTENT_WORDS:
        return 0.0
    return len(words & _content_words(earlier)) / len(words)


def duplication_evidence(sentences: Sequence[str], similarity: Sequence[Sequence[float]]) -> List[Optional[float]]:
    """Per sentence, the most it repeats an earlier sentence: the larger of the embeddings' cosine and the share of its
    content words the earlier sentence has (1.0 when one has the same words; None for the first)."""
    keys = [_normalised(sentence) for sentence in sentences]
    result: List[Optional[float]] = [None]
    for index in range(1, len(sentences)):
        if keys[index] and keys[index] in keys[:index]:
            result.append(1.0)
        else:
            result.append(max(max(float(similarity[index][earlier]),
                                  containment(sentences[index], sentences[earlier])) for earlier in range(index)))
    return result


def relevance_evidence(similarity: Sequence[Sequence[float]]) -> List[Optional[float]]:
    """Per sentence, one minus the cosine of its embedding with the mean of the other sentences' embeddings (the
    embeddings are unit vectors, so the cosine follows from their pairwise cosines); None under three sentences."""
    count = len(similarity)
    if count < 3:
        return [None] * count
    result: List[Optional[float]] = []
    for index in range(count):
        others = [other for other in range(count) if other != index]
        toward = sum(float(similarity[index][other]) for other in others)
        norm_squared = sum(float(similarity[first][second]) for first in others for second in others)
        result.append(1.0 - toward / math.sqrt(max(norm_squared, 1e-12)))
    return result


def score_drop_evidence(prefix_scores: Sequence[float]) -> List[Optional[float]]:
    """Per sentence, the score of the sentences before it minus the score with it (None for the first), from the
    scores of the text's prefixes (``prefix_scores[i]``: the first ``i + 1`` sentences)."""
    return [None] + [float(before) - float(after) for before, after in zip(prefix_scores, prefix_scores[1:])]


def body_positions(kinds: Sequence[str]) -> List[int]:
    """The indices of a text's body units (prose sentences and list items: ``inputs.units.BODY``), the units its
    evidence is read over."""
    return [index for index, kind in enumerate(kinds) if kind in BODY]


def unit_evidence(kinds: Sequence[str],
                  body_rows: Sequence[Dict[str, Optional[float]]]) -> List[Dict[str, Optional[float]]]:
    """Per unit of the whole text, its evidence: the body units' rows (``sentence_evidence`` of the body alone) in
    their places, with no ``cohesion`` for the first body unit after a heading (a new section is not a break), and no
    evidence at all for the other units (headings, code, frames: never flagged)."""
    rows: List[Dict[str, Optional[float]]] = [{kind: None for kind in EVIDENCE} for _ in kinds]
    previous = -1
    for index, row in zip(body_positions(kinds), body_rows):
        rows[index] = dict(row)
        if previous >= 0 and HEADING in kinds[previous + 1:index]:
            rows[index][COHESION] = None
        previous = index
    return rows


@dataclass(frozen=True)
class SentenceFlag:
    """A flagged sentence: its index, the kind of break, and how far beyond the threshold (in dev spreads)."""

    index: int
    kind: str
    margin: float


def sentence_evidence(sentences: Sequence[str], transitions: Sequence[float], similarity: Sequence[Sequence[float]],
                      prefix_scores: Sequence[float],
                      calibration: Calibration = DEFAULT_CALIBRATION) -> List[Dict[str, Optional[float]]]:
    """Per sentence, its evidence of each kind (``EVIDENCE``; None where a kind cannot be read).

    Args:
        sentences: the text's sentences.
        transitions: its ``transition-cosine`` values, one per boundary.
        similarity: the cosines of every pair of its sentences' embeddings.
        prefix_scores: the checkpoint's score of its first 1, 2, ... sentences (the last is the text's score).
        calibration: the checkpoint's weights and spreads of ``cohesion``.
    """
    transition = transition_evidence(transitions)
    drop = score_drop_evidence(prefix_scores) if len(prefix_scores) == len(sentences) else [None] * len(sentences)
    columns = {
        COHESION: cohesion_evidence(transition, drop, calibration),
        DUPLICATION: duplication_evidence(sentences, similarity),
        RELEVANCE: relevance_evidence(similarity),
        SCORE_DROP: drop,
        TRANSITION: transition,
    }
    return [{kind: columns[kind][index] for kind in EVIDENCE} for index in range(len(sentences))]


def margins(evidence: Dict[str, Optional[float]], thresholds: Optional[Mapping[str, float]] = None,
            scales: Optional[Mapping[str, float]] = None) -> Dict[str, float]:
    """Per kind with evidence, how far it is beyond its threshold, in units of its dev spread (above 0: beyond)."""
    thresholds = THRESHOLDS if thresholds is None else thresholds
    scales = SCALES if scales is None else scales
    return {kind: (value - thresholds[kind]) / scales[kind] for kind, value in evidence.items()
            if value is not None and kind in thresholds and kind in KINDS}


def flag_sentences(evidence: Sequence[Dict[str, Optional[float]]], cap: Optional[int] = None,
                   thresholds: Optional[Mapping[str, float]] = None,
                   scales: Optional[Mapping[str, float]] = None) -> List[SentenceFlag]:
    """The sentences beyond a threshold that lower the score, largest score drop first, at most ``cap`` of them
    (None: all): a cap, not a quota.

    Only a sentence whose ``score_drop`` is above 0 is flagged: a flag always points at a sentence that lowers the
    score the user sees (so the first sentence, which has no drop, is never flagged). A repeat beyond the duplication
    threshold is a ``duplication`` flag; any other flag names the kind furthest beyond its threshold.
    """
    ranked = []
    for index, row in enumerate(evidence):
        beyond = margins(row, thresholds, scales)
        drop = row.get(SCORE_DROP)
        if not beyond or max(beyond.values()) <= 0 or drop is None or drop <= 0:
            continue
        if beyond.get(DUPLICATION, 0.0) > 0:
            kind = DUPLICATION
        else:
            kind = max(beyond, key=lambda name: beyond[name])
        ranked.append((-drop, -beyond[kind], index,
                       SentenceFlag(index, kind, float(beyond[kind]))))
    ranked.sort(key=lambda entry: entry[:3])
    flags = [entry[3] for entry in ranked]
    return flags if cap is None else flags[:cap]


def similarity_matrices(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[List[float]]]:
    """Per text, the cosines of every pair of its sentences' pretrained all-MiniLM-L6-v2 embeddings (the
    ``adjacent-cosine`` mechanism's encoder, loaded once per scorer)."""
    from .mechanisms import cosine_embedder

    lists = [list(sentences) for sentences in sentence_lists]
    if not any(lists):
        return [[] for _ in lists]
    embeddings, rows = cosine_embedder(scorer).embed_documents([sentences for sentences in lists if sentences])
    result: List[List[List[float]]] = []
    owned = iter(rows)
    for sentences in lists:
        if not sentences:
            result.append([])
            continue
        vectors = embeddings[next(owned)]
        result.append((vectors @ vectors.T).tolist())
    return result


def prefix_scores(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per text, the checkpoint's score of its first 1, 2, ..., all sentences (the last is the text's score, up to
    float rounding), in one call of ``score`` (each distinct prefix scored once)."""
    pieces: List[tuple] = []
    for sentences in sentence_lists:
        pieces.extend(tuple(sentences[:end]) for end in range(1, len(sentences) + 1))
    slot: Dict[tuple, int] = {}
    for piece in pieces:
        slot.setdefault(piece, len(slot))
    scores = scorer.score([list(piece) for piece in slot]).scores if slot else []
    return [[float(scores[slot[tuple(sentences[:end])]]) for end in range(1, len(sentences) + 1)]
            for sentences in sentence_lists]
