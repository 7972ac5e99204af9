"""The ways ``explain`` can score a text's transitions, by name, so the output and the signature can say which ran.

- ``local-term``: the sentence-pair term of a checkpoint trained to score pairs (its model has ``local_weight``);
  the pair scored alone by :func:`coherence_metric.transitions.score_transitions`.
- ``pair-alone``: the same function on a checkpoint never trained for it: the document model's score of the two
  sentences as a text of their own.
- ``cut-drop``: how much the whole text's score drops against the text cut apart at the boundary (the whole's score
  minus the sentence-weighted mean score of the two parts): at a break, the parts read better than the whole.
- ``window``: the score of the ``2 * WINDOW_SIDE`` sentences around the boundary (``WINDOW_SIDE`` each side).

Which of the model-agnostic three is the fallback was decided by the localisation benchmark
(``coherence-metric benchmark --suite localisation``; README, "Where a text breaks"), not by taste.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

from .errors import InputError
from .transitions import score_transitions

LOCAL_TERM = "local-term"
PAIR_ALONE = "pair-alone"
CUT_DROP = "cut-drop"
WINDOW = "window"
AUTO = "auto"
#: Sentences on each side of the boundary in the ``window`` mechanism.
WINDOW_SIDE = 2
#: The fallback for checkpoints without a local term, chosen on the localisation benchmark (README table).
FALLBACK = PAIR_ALONE
MECHANISMS = (LOCAL_TERM, PAIR_ALONE, CUT_DROP, WINDOW)


def has_local_term(scorer: Any) -> bool:
    """Whether the scorer's checkpoint carries a trained sentence-pair term (``model.local_weight`` set)."""
    return getattr(scorer.model, "local_weight", None) is not None


def resolve_mechanism(scorer: Any, mechanism: str) -> str:
    """The mechanism that will run: ``auto`` is ``local-term`` where the checkpoint has one, else ``FALLBACK``.

    Raises:
        InputError: an unknown name, or ``local-term`` asked of a checkpoint without one.
    """
    if mechanism == AUTO:
        return LOCAL_TERM if has_local_term(scorer) else FALLBACK
    if mechanism not in MECHANISMS:
        raise InputError(f"unknown transition mechanism {mechanism!r}: choose one of {', '.join((AUTO,) + MECHANISMS)}")
    if mechanism == LOCAL_TERM and not has_local_term(scorer):
        raise InputError(f"the checkpoint {scorer.model_label} has no local (sentence-pair) term: use "
                         f"mechanism {AUTO!r} or one of {PAIR_ALONE}, {CUT_DROP}, {WINDOW}")
    return mechanism


def _score_pieces(scorer: Any, pieces: List[List[str]]) -> List[float]:
    """Scores of sentence lists, each distinct one scored once, in one call of the scorer."""
    slot: Dict[tuple, int] = {}
    for piece in pieces:
        slot.setdefault(tuple(piece), len(slot))
    if not slot:
        return []
    scores = scorer.score([list(piece) for piece in slot]).scores
    return [scores[slot[tuple(piece)]] for piece in pieces]


def cut_drop(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per boundary, the whole text's score minus the sentence-weighted mean score of the two parts cut there.

    Low (negative) where cutting the text apart reads better than keeping it together.
    """
    wholes: List[List[str]] = []
    parts: List[List[str]] = []
    for sentences in sentence_lists:
        sentences = list(sentences)
        if len(sentences) < 2:
            continue
        wholes.append(sentences)
        for cut in range(1, len(sentences)):
            parts.extend([sentences[:cut], sentences[cut:]])
    scores = _score_pieces(scorer, wholes + parts)
    whole_scores, part_scores = scores[:len(wholes)], scores[len(wholes):]
    result: List[List[float]] = []
    text, offset = 0, 0
    for sentences in sentence_lists:
        count = len(sentences)
        if count < 2:
            result.append([])
            continue
        row = []
        for cut in range(1, count):
            left, right = part_scores[offset], part_scores[offset + 1]
            offset += 2
            row.append(whole_scores[text] - (cut * left + (count - cut) * right) / count)
        result.append(row)
        text += 1
    return result


def window(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per boundary, the score of the ``WINDOW_SIDE`` sentences before it and the ``WINDOW_SIDE`` after it."""
    pieces: List[List[str]] = []
    shape: List[int] = []
    for sentences in sentence_lists:
        sentences = list(sentences)
        shape.append(max(len(sentences) - 1, 0))
        for cut in range(1, len(sentences)):
            pieces.append(sentences[max(0, cut - WINDOW_SIDE):cut + WINDOW_SIDE])
    scores = _score_pieces(scorer, pieces)
    result, offset = [], 0
    for count in shape:
        result.append(scores[offset:offset + count])
        offset += count
    return result


RUNNERS: Dict[str, Callable[[Any, Sequence[Sequence[str]]], List[List[float]]]] = {
    LOCAL_TERM: score_transitions,
    PAIR_ALONE: score_transitions,
    CUT_DROP: cut_drop,
    WINDOW: window,
}


def run_mechanism(scorer: Any, mechanism: str, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per text, one value per transition from the named (resolved) mechanism; higher reads as more coherent."""
    return RUNNERS[mechanism](scorer, sentence_lists)
