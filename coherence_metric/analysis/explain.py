"""Where a text breaks: per text, its sentences, one score per transition, the sentences that break it and why.

``CoherenceScorer.explain`` is a thin method over :func:`explain`. The numbers per transition come from one of the
mechanisms of :mod:`coherence_metric.analysis.mechanisms` (the checkpoint's local term where it has one, else the
fallback the localisation benchmark chose); the result names it, and so does its signature (``trans:NAME``).
Transition values are comparable within a text and across texts scored with the same signature; they are on the
mechanism's own scale, not the text score's.

Per sentence, :mod:`coherence_metric.analysis.sentence_breaks` gives the evidence of each kind of break (cohesion,
duplication, relevance) and how much the sentence lowers the text's score when it is added to the sentences before
it (``score_drop``: the text's score is the first sentence's minus the drops); a sentence is flagged only where one
kind is beyond its threshold, set on dev data so that few sentences of texts people rate fully coherent are flagged,
and where it lowers the score; the flag names the kind. ``flagged`` caps the flags per text; a coherent text can come
back with none (``note``: ``no break found``).

A string is read in units of its structure (:mod:`coherence_metric.inputs.units`, the segmentation ``score`` uses):
prose sentences, list items, headings, code blocks, and the chat opening and closing that frame it. Every unit gets
its transitions, but the evidence of a break is read over the body alone (sentences, and list items without their
markers: ``inputs.units.evidence_text``): a frame, a heading or a code block is never flagged and no break is read
into or out of one (``sentence_breaks.unit_evidence``), so the flag goes to a real break, and a chat answer's body is
read as the same sentences written as prose would be. ``unit_kinds`` names each unit's kind.

A text of one sentence has no transition: its ``transitions`` and ``flagged`` are empty and ``note`` says so; no
number is made up for it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Union

from ..errors import InputError
from ..inputs.containers import as_text_list
from ..inputs.texts import normalise_documents, units_of
from ..inputs.units import SENTENCE, evidence_text
from ..signature import Signature
from .mechanisms import AUTO, FALLBACK, mechanism_label, resolve_mechanism, run_mechanism
from .sentence_breaks import (
    DEFAULT_CALIBRATION,
    Calibration,
    SentenceFlag,
    body_positions,
    break_ranks,
    calibration_for,
    flag_sentences,
    prefix_scores,
    sentence_evidence,
    similarity_matrices,
    unit_evidence,
)

#: Sentences flagged per text at most, by default: the one beyond a threshold by most (a cap, not a quota).
DEFAULT_FLAGGED = 1
NO_TRANSITIONS = "one sentence: no transitions to score"
NO_BREAK = "no break found"


@dataclass(frozen=True)
class TextExplanation:
    """One text explained.

    Attributes:
        sentences: the text's units: its sentences as given, or the string cut in units of its structure (prose
            sentences, list items, headings, code blocks, frames; ``coherence_metric.inputs.units``).
        transitions: ``transitions[i]`` scores the boundary between ``sentences[i]`` and ``sentences[i + 1]``;
            higher reads as more coherent. Empty for a one-sentence text.
        flagged: indices into ``transitions`` of the transitions into the flagged sentences, the strongest flag
            first (a flagged first sentence has no transition into it). Empty when nothing is flagged.
        score: the text's overall score, as ``CoherenceScorer.score`` gives it.
        evidence: per sentence, its evidence of each kind of break and its drop of the score
            (``sentence_breaks.EVIDENCE``; None where a kind cannot be read, as for the first sentence's cohesion).
        flags: the flagged sentences, the strongest first: each with its index, kind and margin beyond the
            threshold (in units of the kind's dev spread).
        unit_kinds: per unit, its kind (``inputs.units.KINDS``: ``sentence``, ``item``, ``heading``, ``code``,
            ``frame``); headings, code and frames have no evidence and are never flagged. Empty: all sentences.
        ranks: per sentence, its place in the order explain reads the text's breaks (1: first;
            ``sentence_breaks.break_ranks``): the flags first, as ``flags`` orders them with no cap, then the other
            sentences by their score drop; None where a sentence has no drop (the first, headings, code, frames).
            Where nothing is flagged it still says where to read first. Empty: not computed.
    """

    sentences: List[str]
    transitions: List[float]
    flagged: List[int]
    score: float
    evidence: List[Dict[str, Optional[float]]] = field(default_factory=list)
    flags: List[SentenceFlag] = field(default_factory=list)
    unit_kinds: List[str] = field(default_factory=list)
    ranks: List[Optional[int]] = field(default_factory=list)

    @property
    def units(self) -> List[str]:
        """Per unit, its kind (``sentence`` for every unit of a result built without kinds)."""
        return list(self.unit_kinds) if self.unit_kinds else [SENTENCE] * len(self.sentences)

    @property
    def note(self) -> Optional[str]:
        """Why a text has no transition scores (one sentence), or that nothing in it is flagged; else None."""
        if not self.transitions:
            return NO_TRANSITIONS
        return NO_BREAK if not self.flags else None

    @property
    def weakest(self) -> Optional[int]:
        """The index of the transition into the strongest flagged sentence, or None (nothing flagged there)."""
        return self.flagged[0] if self.flagged else None

    @property
    def kinds(self) -> List[Optional[str]]:
        """Per sentence, the kind of break it is flagged for, or None."""
        by_index = {flag.index: flag.kind for flag in self.flags}
        return [by_index.get(index) for index in range(len(self.sentences))]

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form: per transition its value; per unit its number, text and kind (``units``); per sentence
        its number, evidence of each kind, flag, kind of break and place in the order breaks are read (``rank``); the
        flags, strongest first. Sentences are numbered from 1 here, as the text output prints them (the Python
        attributes count from 0, as Python does)."""
        kinds = self.kinds
        data: Dict[str, Any] = {
            "sentences": list(self.sentences),
            "units": [{"unit": index + 1, "text": text, "kind": kind}
                      for index, (text, kind) in enumerate(zip(self.sentences, self.units))],
            "transitions": list(self.transitions),
            "score": self.score,
            "per_sentence": [{"sentence": index + 1,
                              "evidence": dict(self.evidence[index]) if index < len(self.evidence) else {},
                              "flagged": kinds[index] is not None, "kind": kinds[index],
                              "rank": self.ranks[index] if index < len(self.ranks) else None}
                             for index in range(len(self.sentences))],
            "flags": [{"sentence": flag.index + 1, "kind": flag.kind, "margin": flag.margin} for flag in self.flags],
        }
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True)
class ExplainResult:
    """Per-transition scores of a list of texts, in input order.

    Attributes:
        texts: one ``TextExplanation`` per input text.
        mechanism: what produced the transition values (``local-term``, ``pair-alone``, ``cut-drop``, ``window``,
            ``adjacent-cosine``, ``transition-model``, ``transition-cosine``).
        signature: the scorer's signature naming the mechanism (``trans:NAME``; ``trans:transition-model:NAME@FP``
            and ``trans:transition-cosine:NAME@FP`` with the transition model's name and fingerprint).
        calibration: the weights, spreads and thresholds the flags were read with (``sentence_breaks.CALIBRATIONS``).
        calibrated: whether they were set with this checkpoint; False: its flags rest on another checkpoint's units.

    ``to_dict`` names the calibration's checkpoint (``flag_calibration``; None for an uncalibrated checkpoint) and how
    its flags did on dev texts no threshold was set on (``flag_rates``: ``sentence_breaks.FlagRates``, with
    ``clean_flagged``, the share of clean texts that get any flag).
    """

    texts: List[TextExplanation]
    mechanism: str
    signature: Signature
    calibration: Calibration = DEFAULT_CALIBRATION
    calibrated: bool = True

    @property
    def n_without_transitions(self) -> int:
        """Texts of one sentence, which have no transitions."""
        return sum(1 for text in self.texts if not text.transitions)

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form (for JSON, logging or a results table)."""
        return {
            "mechanism": self.mechanism,
            "texts": [text.to_dict() for text in self.texts],
            "n_without_transitions": self.n_without_transitions,
            "n_flagged": sum(len(text.flags) for text in self.texts),
            "flag_thresholds": dict(self.calibration.thresholds),
            "flag_calibration": self.calibration.checkpoint if self.calibrated else None,
            "flag_rates": asdict(self.calibration.rates) if self.calibrated and self.calibration.rates else None,
            "signature": str(self.signature),
        }

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)


#: The longest text ``explain`` reads, in sentences. Its evidence scores every prefix of a text and compares every
#: pair of its sentences, so time and memory grow with the square of the count: 300 sentences take minutes and well
#: under a GB on a laptop CPU, where a 3,000-sentence text grew past 8 GB. ``score`` has no such limit.
MAX_EXPLAIN_SENTENCES = 300


def refuse_long_texts(sentence_lists: List[List[str]]) -> None:
    """Refuse, before any model runs, a text of more than :data:`MAX_EXPLAIN_SENTENCES` sentences (one line naming
    it as ``text i``, which the CLI turns into its file and line)."""
    for position, sentences in enumerate(sentence_lists):
        if len(sentences) > MAX_EXPLAIN_SENTENCES:
            raise InputError(f"text {position} has {len(sentences):,} sentences: explain reads texts of at most "
                             f"{MAX_EXPLAIN_SENTENCES} (its cost grows with the square of the count); split it, or "
                             "score it whole with score")


def explain(scorer: Any, texts: Union[str, Iterable[Any]], mechanism: str = AUTO,
            flagged: int = DEFAULT_FLAGGED) -> ExplainResult:
    """Score each transition of each text, read each sentence's evidence of a break, and flag the sentences beyond a
    threshold (``CoherenceScorer.explain``).

    Args:
        scorer: a ``CoherenceScorer``.
        texts: a string, or a list of texts, each a string or a list of sentences.
        mechanism: ``auto`` (the checkpoint's local term where it has one, else the measured fallback,
            ``transition-cosine``) or one of ``local-term``, ``pair-alone``, ``cut-drop``, ``window``,
            ``adjacent-cosine``, ``transition-model``, ``transition-cosine``. The flags' cohesion evidence is always
            ``transition-cosine``'s, the scale its threshold was set on.
        flagged: the most sentences flagged per text (a cap: a text with nothing beyond a threshold gets none).

    Returns:
        An ExplainResult naming the mechanism, in input order.

    Raises:
        InputError: an empty or badly typed text, a text of more than :data:`MAX_EXPLAIN_SENTENCES` sentences, an
            unknown mechanism, or ``flagged`` below 1.
    """
    if isinstance(flagged, bool) or not isinstance(flagged, int) or flagged < 1:
        raise InputError(f"flagged must be a positive integer, got {flagged!r}")
    documents = as_text_list(texts)
    normalise_documents(documents)  # the same checks and messages as score()
    resolved = resolve_mechanism(scorer, mechanism)
    unit_lists = [units_of(document) for document in documents]
    sentence_lists = [[unit.text for unit in units] for units in unit_lists]
    refuse_long_texts(sentence_lists)
    kind_lists = [[unit.kind for unit in units] for units in unit_lists]
    body_lists = [[evidence_text(units[index]) for index in body_positions(kinds)]
                  for units, kinds in zip(unit_lists, kind_lists)]
    values = run_mechanism(scorer, resolved, sentence_lists)
    calibrated = body_transitions(scorer, resolved, values, sentence_lists, body_lists)
    scores = scorer.score(documents).scores
    similarity = similarity_matrices(scorer, body_lists)
    prefixes = prefix_scores(scorer, body_lists)
    calibration, own_calibration = calibration_for(scorer.fingerprint)
    explained = []
    for sentences, kinds, body, row, cohesion_row, score, matrix, prefix in zip(
            sentence_lists, kind_lists, body_lists, values, calibrated, scores, similarity, prefixes):
        evidence = unit_evidence(kinds, sentence_evidence(body, cohesion_row, matrix, prefix, calibration))
        every = (flag_sentences(evidence, None, calibration.thresholds, calibration.scales)
                 if len(body) > 1 else [])
        flags = every[:flagged]
        into = [flag.index - 1 for flag in flags if flag.index > 0]
        explained.append(TextExplanation(sentences, row, into, score, evidence, flags, kinds,
                                         break_ranks(evidence, every)))
    return ExplainResult(explained, resolved, scorer.signature.with_transitions(mechanism_label(resolved)),
                         calibration, own_calibration)


def body_transitions(scorer: Any, resolved: str, values: List[List[float]], sentence_lists: List[List[str]],
                     body_lists: List[List[str]]) -> List[List[float]]:
    """Per text, the ``transition-cosine`` values of its body (the transitions the cohesion evidence reads): the
    transitions already computed where they are those (the fallback ran on a text that is all body, as every prose
    text is), the fallback run on the body otherwise; none for a body of one unit or none (a text all framing)."""
    reuse = [resolved == FALLBACK and body == sentences for body, sentences in zip(body_lists, sentence_lists)]
    missing = [index for index, kept in enumerate(reuse) if not kept and len(body_lists[index]) > 1]
    computed = dict(zip(missing, run_mechanism(scorer, FALLBACK, [body_lists[index] for index in missing])
                        if missing else []))
    return [values[index] if kept else computed.get(index, []) for index, kept in enumerate(reuse)]


def check_has_transitions(result: ExplainResult, name: str) -> None:
    """Refuse a result in which no text has a transition (every text one sentence), naming the input.

    Raises:
        InputError: every text of ``name`` has one sentence.
    """
    if result.texts and result.n_without_transitions == len(result.texts):
        count = len(result.texts)
        raise InputError(f"{name}: {'the text has' if count == 1 else f'all {count} texts have'} one sentence: there "
                         "are no transitions to score (split texts into sentences, or pick another -i format)")
