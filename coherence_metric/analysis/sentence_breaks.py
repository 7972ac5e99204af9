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

A sentence is flagged when a kind's evidence is above that kind's threshold (``THRESHOLDS``), set on dev so that at
most about one clean text in ten (stories people rate fully coherent, unchanged news and stories) gets any flag, and
adding it lowers the score (``score_drop`` above 0): a coherent text usually comes back with no flag. A repeat
is named ``duplication`` whatever else is beyond its threshold; a sentence (nearly) as far off the topic as a
``relevance`` flag needs is named ``relevance``, any other ``cohesion`` (``KIND_RULE``, chosen on the synthetic dev
split). Where consecutive sentences are flagged ``relevance`` or ``cohesion``, as after a drift to another topic, only
the one the transition reads as the sharpest break is flagged: where the drift starts (``DRIFT_RULE``). Flags are
ordered by their score drop, largest first, so that a cap of one shows the flagged sentence that cost the score most;
``break_ranks`` carries that order on over the unflagged sentences, by their drop, so every sentence has a place in
it (the ranking the CoheSentia ruler holds to the flag targets).
``score_drop`` and therefore ``cohesion`` are in the units of the checkpoint that computed them, so each checkpoint
has its own ``Calibration`` (weights, spreads, thresholds), found by its fingerprint (``CALIBRATIONS``: the default
and the accurate tier); any other checkpoint is read with the default's, and ``explain`` says its flags are
uncalibrated.

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
#: over the sentences of the choosing half's clean texts (CoheSentia's stories people rated fully coherent, holistic
#: score 5, and the dev split's unchanged news and story documents: benchmarks/localisation/clean_texts.py) that lets
#: ``BUDGETS[kind]`` of them through. The budgets are the ones whose flags find the most sentences people marked
#: while at most 8% of those clean texts get any flag (``clean_texts.RULE``; the goal is 10% on the check half); the
#: localisation suite's cohesentia-dev split recomputes them. The default checkpoint's values.
THRESHOLDS: Dict[str, float] = {COHESION: 7.647, DUPLICATION: 0.877, RELEVANCE: 0.880}
BUDGETS: Dict[str, float] = {COHESION: 0.01, DUPLICATION: 0.001, RELEVANCE: 0.0025}
#: Each kind's spread (standard deviation over the same sentences), so margins compare across kinds.
SCALES: Dict[str, float] = {COHESION: 2.276, DUPLICATION: 0.149, RELEVANCE: 0.142}


@dataclass(frozen=True)
class FlagRates:
    """How the flags did on the dev texts no threshold was set on (the check half: CoheSentia dev's odd story ids and
    the clean dev texts at odd positions; the localisation suite's ``flags.check`` and ``clean.check`` in the
    checkpoint's ``localisation_cohesentia-dev.json``; a test holds these to it).

    Attributes:
        stories / coherent_stories: CoheSentia stories read, and those people rated fully coherent.
        found_capped / found_uncapped: share of the sentences people marked that get a flag, at ``--flag 1`` and with
            no cap.
        coherent_flagged: share of the fully coherent stories that get a flag (the same with or without a cap).
        clean_texts / clean_flagged: clean texts read (the fully coherent stories, and the dev split's unchanged news
            and story documents: benchmarks/localisation/clean_texts.py), and the share of them that get any flag
            (None: measured before clean texts were read).
    """

    stories: int
    coherent_stories: int
    found_capped: float
    found_uncapped: float
    coherent_flagged: float
    clean_texts: Optional[int] = None
    clean_flagged: Optional[float] = None

    def line(self, cap: int, checkpoint: str) -> str:
        """The one line ``explain`` prints under its text output, naming the checkpoint whose calibration the flags
        were read with."""
        found = self.found_capped if cap == 1 else self.found_uncapped
        where = "at --flag 1" if cap == 1 else "with no cap"
        clean = (f"a flag on {self.clean_flagged:.0%} of {self.clean_texts} clean texts (news, stories, and "
                 f"CoheSentia stories people rated fully coherent: {self.coherent_flagged:.0%} of those)"
                 if self.clean_texts is not None and self.clean_flagged is not None else
                 f"a flag on {self.coherent_flagged:.0%} of the CoheSentia stories people rated fully coherent")
        return (f"flags ({checkpoint}'s calibration), measured on dev texts no threshold was set on: {clean}; they "
                f"found {found:.0%} of the sentences people marked in {self.stories} CoheSentia stories ({where})")


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
        rates: how its flags did on dev texts none of the above was set on.
        budgets: per kind, the share of the choosing half's clean sentences its threshold lets through, chosen so
            that few clean texts get any flag (``BUDGETS``).
    """

    checkpoint: str
    transition_weight: float
    drop_weight: float
    spreads: Mapping[str, Tuple[float, float]]
    thresholds: Mapping[str, float]
    scales: Mapping[str, float]
    rates: Optional[FlagRates] = None
    budgets: Optional[Mapping[str, float]] = None


#: The default checkpoint's calibration (0.8.0's default; the weights chosen on the choosing half).
DEFAULT_CALIBRATION = Calibration("cm-minilm-gpu-joint-2026.11", 1.0, DROP_WEIGHT, SPREADS, THRESHOLDS, SCALES,
                                  FlagRates(219, 96, 0.041, 0.041, 0.052, 165, 0.067), BUDGETS)
#: The accurate tier's: its score drop alone ranks the choosing half's marked sentences best (adding the transition,
#: at any weight tried, ranks them lower; docs/explain.md), so ``cohesion`` is its standardised score drop. Its
#: budgets, thresholds and scales are set by the same rule as the default's, on its own evidence of the same clean
#: texts (``clean_texts.RULE``).
ACCURATE_CALIBRATION = Calibration(
    "cm-mpnet-lora-joint-2026.11", 0.0, 1.0,
    {TRANSITION: SPREADS[TRANSITION], SCORE_DROP: (-0.020, 0.369)},  # the transition is the same for every checkpoint
    {COHESION: 2.351, DUPLICATION: 0.877, RELEVANCE: 0.908},
    {COHESION: 0.697, DUPLICATION: 0.149, RELEVANCE: 0.142},
    FlagRates(219, 96, 0.094, 0.097, 0.042, 165, 0.048),
    {COHESION: 0.01, DUPLICATION: 0.001, RELEVANCE: 0.001})
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
    """A flagged sentence: its index, the kind of break, and how far beyond a threshold it is (its furthest kind, in
    dev spreads; the kind it names may be another: ``flag_kind``)."""

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


#: How a flag names its kind: the candidates compared on the synthetic dev split (dev news texts with a known break of
#: each kind, benchmarks/localisation/synthetic_kinds.py), chosen by the mean over the three kinds of the share of
#: flagged breaks named right (the ``localisation_cohesentia-dev`` report's ``synthetic_dev.rules``, docs/explain.md):
#:
#: - ``margin`` (0.8.0): a repeat beyond the duplication threshold is ``duplication``; otherwise the kind furthest
#:   beyond its threshold, in units of its dev spread. An off-topic sentence also breaks the transition into it and
#:   lowers the score, and ``cohesion``'s margin is then the wider, so intruders were named ``cohesion``.
#: - ``precedence``: ``duplication`` beyond its threshold, else ``relevance`` beyond its threshold, else ``cohesion``:
#:   being off the topic is the more specific reading, so where a sentence is both, it names the flag.
#: - ``relevance-margin``: ``precedence``, with ``relevance`` named where its evidence is within
#:   ``RELEVANCE_NAMING_MARGIN`` dev spreads of its threshold: a flagged sentence nearly as far off the topic as a
#:   ``relevance`` flag needs reads as off the topic (the threshold says when to flag, set so that clean texts are
#:   rarely flagged, not what a flag is).
MARGIN_RULE = "margin"
PRECEDENCE_RULE = "precedence"
RELEVANCE_MARGIN_RULE = "relevance-margin"
KIND_RULES = (MARGIN_RULE, PRECEDENCE_RULE, RELEVANCE_MARGIN_RULE)
#: How far below its threshold, in its dev spreads, ``relevance`` still names a flagged sentence
#: (``relevance-margin``; one spread: half a spread or two named fewer of the dev breaks right).
RELEVANCE_NAMING_MARGIN = -1.0
#: The kind rule ``explain`` uses.
KIND_RULE = RELEVANCE_MARGIN_RULE
#: Where a text drifts (leaves its topic at one sentence and stays away), the sentences after the drift can be beyond
#: a threshold too; a reader needs the flag where the drift starts. The candidates compared on the synthetic dev
#: split's drift texts (share whose top flag is where the drift starts, share with a flag after it):
#:
#: - ``every-sentence`` (0.8.0): every sentence beyond a threshold is flagged.
#: - ``flagged-run``: of consecutive sentences flagged ``relevance`` or ``cohesion``, only the first is flagged. A
#:   sentence flagged just before the drift (news sentences jump) then takes the flag from where it starts.
#: - ``seam-run``: of consecutive sentences flagged ``relevance`` or ``cohesion``, only the one whose transition into
#:   it reads the sharpest break (the seam where the text leaves its topic; the first on a tie) is flagged.
EVERY_SENTENCE_RULE = "every-sentence"
FLAGGED_RUN_RULE = "flagged-run"
SEAM_RUN_RULE = "seam-run"
DRIFT_RULES = (EVERY_SENTENCE_RULE, FLAGGED_RUN_RULE, SEAM_RUN_RULE)
#: The drift rule ``explain`` uses.
DRIFT_RULE = SEAM_RUN_RULE
#: The kinds a drift is read in: a repeat is its own break wherever it falls.
DRIFT_KINDS = frozenset({COHESION, RELEVANCE})


def flag_kind(beyond: Mapping[str, float], rule: str = KIND_RULE) -> str:
    """The kind a flag names, from its kinds' margins beyond their thresholds (``margins``; one at least above 0),
    by ``rule`` (``KIND_RULES``)."""
    if rule not in KIND_RULES:
        raise ValueError(f"unknown kind rule {rule!r}; known: {', '.join(KIND_RULES)}")
    if beyond.get(DUPLICATION, 0.0) > 0:
        return DUPLICATION
    if rule == MARGIN_RULE:
        return max(beyond, key=lambda name: beyond[name])
    naming = RELEVANCE_NAMING_MARGIN if rule == RELEVANCE_MARGIN_RULE else 0.0
    if beyond.get(RELEVANCE, -math.inf) > naming:
        return RELEVANCE
    return COHESION if beyond.get(COHESION, 0.0) > 0 else max(beyond, key=lambda name: beyond[name])


def _runs(indices: Sequence[int]) -> List[List[int]]:
    """Sorted indices grouped into runs of consecutive ones."""
    runs: List[List[int]] = []
    for index in sorted(indices):
        if runs and runs[-1][-1] == index - 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def drift_starts(flags: Sequence[SentenceFlag], evidence: Sequence[Mapping[str, Optional[float]]],
                 rule: str = DRIFT_RULE) -> List[SentenceFlag]:
    """The flags left where a drift is flagged where it starts only (``DRIFT_RULES``), in the order given.

    Args:
        flags: every flag of one text (no cap).
        evidence: the text's rows (``transition`` says where a run's sharpest break is).
        rule: ``every-sentence`` keeps all; of each run of consecutive ``relevance`` or ``cohesion`` flags,
            ``flagged-run`` keeps the first and ``seam-run`` the one with the highest ``transition``. Other flags
            (``duplication``) are always kept.
    """
    if rule not in DRIFT_RULES:
        raise ValueError(f"unknown drift rule {rule!r}; known: {', '.join(DRIFT_RULES)}")
    if rule == EVERY_SENTENCE_RULE:
        return list(flags)
    kept = set()
    for run in _runs([flag.index for flag in flags if flag.kind in DRIFT_KINDS]):
        if rule == FLAGGED_RUN_RULE:
            kept.add(run[0])
            continue
        steps = {index: evidence[index].get(TRANSITION) for index in run}
        kept.add(max(run, key=lambda index: (-math.inf if steps[index] is None else steps[index], -index)))
    return [flag for flag in flags if flag.kind not in DRIFT_KINDS or flag.index in kept]


def flag_sentences(evidence: Sequence[Dict[str, Optional[float]]], cap: Optional[int] = None,
                   thresholds: Optional[Mapping[str, float]] = None,
                   scales: Optional[Mapping[str, float]] = None, kind_rule: str = KIND_RULE,
                   drift_rule: str = DRIFT_RULE) -> List[SentenceFlag]:
    """The sentences beyond a threshold that lower the score, largest score drop first, at most ``cap`` of them
    (None: all): a cap, not a quota.

    Only a sentence whose ``score_drop`` is above 0 is flagged: a flag always points at a sentence that lowers the
    score the user sees (so the first sentence, which has no drop, is never flagged). Its kind is named by
    ``kind_rule`` (``flag_kind``: a repeat is ``duplication``, an off-topic sentence ``relevance``), and a drift is
    flagged where it starts only (``drift_rule``, ``drift_starts``), before the cap is applied.
    """
    found = []
    for index, row in enumerate(evidence):
        beyond = margins(row, thresholds, scales)
        drop = row.get(SCORE_DROP)
        if not beyond or max(beyond.values()) <= 0 or drop is None or drop <= 0:
            continue
        kind = flag_kind(beyond, kind_rule)
        furthest = max(beyond.values())
        found.append((-drop, -furthest, index, SentenceFlag(index, kind, float(furthest))))
    kept = {flag.index for flag in drift_starts([entry[3] for entry in found], evidence, drift_rule)}
    ranked = sorted((entry for entry in found if entry[2] in kept), key=lambda entry: entry[:3])
    flags = [entry[3] for entry in ranked]
    return flags if cap is None else flags[:cap]


def break_ranks(evidence: Sequence[Mapping[str, Optional[float]]],
                flags: Sequence[SentenceFlag]) -> List[Optional[int]]:
    """Per sentence, its place (1: first) in the order ``explain`` reads a text's breaks: the flagged sentences in
    the order ``flag_sentences`` gives them (``flags``: every flag, no cap), then every other sentence with a score
    drop, the largest drop first (the earlier sentence on a tie); None for a sentence with no drop (the first body
    unit, and headings, code and frames).

    The flags are the head of this order, so ``--flag N`` shows its first N flagged places, and the rest says where
    to read next where nothing else is beyond a threshold. On CoheSentia's choosing half it ranks the sentences
    people marked as the score drop alone does, where ranking by the margin beyond a threshold ranked them lower
    (docs/explain.md).
    """
    flagged = [flag.index for flag in flags]
    taken = set(flagged)
    rest = sorted((index for index, row in enumerate(evidence)
                   if row.get(SCORE_DROP) is not None and index not in taken),
                  key=lambda index: (-float(evidence[index][SCORE_DROP] or 0.0), index))
    ranks: List[Optional[int]] = [None] * len(evidence)
    for place, index in enumerate([*flagged, *rest], start=1):
        ranks[index] = place
    return ranks


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
