"""Where a text breaks: per text, its sentences, one score per transition, the lowest ones flagged, and its score.

``CoherenceScorer.explain`` is a thin method over :func:`explain`. The numbers per transition come from one of the
mechanisms of :mod:`coherence_metric.transition_mechanisms` (the checkpoint's local term where it has one, else the
fallback the localisation benchmark chose); the result names it, and so does its signature (``trans:NAME``).
Transition values are comparable within a text and across texts scored with the same signature; they are on the
mechanism's own scale, not the text score's.

A text of one sentence has no transition: its ``transitions`` and ``flagged`` are empty and ``note`` says so; no
number is made up for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Union

from .containers import as_text_list
from .errors import InputError
from .signature import Signature
from .texts import normalise_documents, sentences_of
from .transition_mechanisms import AUTO, mechanism_label, resolve_mechanism, run_mechanism

#: Transitions flagged per text by default: the lowest one.
DEFAULT_FLAGGED = 1
NO_TRANSITIONS = "one sentence: no transitions to score"


@dataclass(frozen=True)
class TextExplanation:
    """One text explained.

    Attributes:
        sentences: the text's sentences (as given, or as the package's splitter cut the string).
        transitions: ``transitions[i]`` scores the boundary between ``sentences[i]`` and ``sentences[i + 1]``;
            higher reads as more coherent. Empty for a one-sentence text.
        flagged: indices into ``transitions`` of the lowest ones, lowest first.
        score: the text's overall score, as ``CoherenceScorer.score`` gives it.
    """

    sentences: List[str]
    transitions: List[float]
    flagged: List[int]
    score: float

    @property
    def note(self) -> Optional[str]:
        """Why a text has no transition scores (one sentence), or None."""
        return NO_TRANSITIONS if not self.transitions else None

    @property
    def weakest(self) -> Optional[int]:
        """The index of the lowest transition, or None for a one-sentence text."""
        return self.flagged[0] if self.flagged else None

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form."""
        data: Dict[str, Any] = {
            "sentences": list(self.sentences),
            "transitions": list(self.transitions),
            "flagged": list(self.flagged),
            "score": self.score,
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
    """

    texts: List[TextExplanation]
    mechanism: str
    signature: Signature

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
            "signature": str(self.signature),
        }

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of ``to_dict()``; keyword arguments go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)


def flag_lowest(values: List[float], count: int) -> List[int]:
    """Indices of the ``count`` lowest values, lowest first (earlier index on ties), never all of them: flagging
    every transition of a text would point nowhere, so a text of one transition gets none flagged."""
    keep = min(count, len(values) - 1)
    if keep <= 0:
        return []
    return sorted(range(len(values)), key=lambda index: (values[index], index))[:keep]


def explain(scorer: Any, texts: Union[str, Iterable[Any]], mechanism: str = AUTO,
            flagged: int = DEFAULT_FLAGGED) -> ExplainResult:
    """Score each transition of each text and flag the lowest (``CoherenceScorer.explain``).

    Args:
        scorer: a ``CoherenceScorer``.
        texts: a string, or a list of texts, each a string or a list of sentences.
        mechanism: ``auto`` (the checkpoint's local term where it has one, else the measured fallback,
            ``transition-cosine``) or one of ``local-term``, ``pair-alone``, ``cut-drop``, ``window``,
            ``adjacent-cosine``, ``transition-model``, ``transition-cosine``.
        flagged: how many of the lowest transitions to flag per text (at most all but one).

    Returns:
        An ExplainResult naming the mechanism, in input order.

    Raises:
        InputError: an empty or badly typed text, an unknown mechanism, or ``flagged`` below 1.
    """
    if isinstance(flagged, bool) or not isinstance(flagged, int) or flagged < 1:
        raise InputError(f"flagged must be a positive integer, got {flagged!r}")
    documents = as_text_list(texts)
    normalise_documents(documents)  # the same checks and messages as score()
    resolved = resolve_mechanism(scorer, mechanism)
    sentence_lists = [sentences_of(document) for document in documents]
    values = run_mechanism(scorer, resolved, sentence_lists)
    scores = scorer.score(documents).scores
    explained = [TextExplanation(sentences, row, flag_lowest(row, flagged), score)
                 for sentences, row, score in zip(sentence_lists, values, scores)]
    return ExplainResult(explained, resolved, scorer.signature.with_transitions(mechanism_label(resolved)))


def check_has_transitions(result: ExplainResult, name: str) -> None:
    """Refuse a result in which no text has a transition (every text one sentence), naming the input.

    Raises:
        InputError: every text of ``name`` has one sentence.
    """
    if result.texts and result.n_without_transitions == len(result.texts):
        count = len(result.texts)
        raise InputError(f"{name}: {'the text has' if count == 1 else f'all {count} texts have'} one sentence: there "
                         "are no transitions to score (split texts into sentences, or pick another -i format)")
