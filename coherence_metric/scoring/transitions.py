"""Per-transition scores: each boundary between adjacent sentences scored by the checkpoint's own document model.

A text's score says how coherent it is; it does not say where it breaks. Scoring each adjacent pair
(s_i, s_{i+1}) *alone*, as the two-sentence text ``s_i + " " + s_{i+1}``, gives one number per boundary that depends
on those two sentences only, so a low one points at the place where the text stops following on. This is the
"local term" of a checkpoint trained to score sentence pairs, and ``explain``'s ``pair-alone`` mechanism on any other
checkpoint (its fallback until the localisation benchmark's dev documents showed the adjacent cosine of pretrained
sentence embeddings finding breaks more often: ``coherence_metric.analysis.mechanisms``).

The pairs of every text go through the scorer's own tokenizer and batching in one pass: each distinct pair tokenised
once, sorted by length and batched under the scorer's token budget (``CoherenceScorer._score_ids``), so a pair's
score does not depend on which other texts share the call. A pair longer than the scorer's ``max_length`` (two very
long sentences) is cut at ``max_length`` tokens, as ``truncation="warn"`` does for whole texts.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Sequence

from ..errors import InputError

logger = logging.getLogger("coherence_metric")


def transition_pairs(sentences: Sequence[str]) -> List[str]:
    """The two-sentence texts of one text's transitions: ``s_i + " " + s_{i+1}`` for each adjacent pair, in order.

    Args:
        sentences: the text's sentences in order.

    Returns:
        ``len(sentences) - 1`` strings; none for a text of one sentence.
    """
    return [" ".join([first, second]) for first, second in zip(sentences, sentences[1:])]


def _check_sentence_lists(sentence_lists: Sequence[Sequence[str]]) -> None:
    if isinstance(sentence_lists, str):
        raise InputError("score_transitions takes a list of texts, each a list of sentences, not one string")
    for position, sentences in enumerate(sentence_lists):
        if isinstance(sentences, str):
            raise InputError(f"text {position} is a string: give each text as a list of its sentences")
        for index, sentence in enumerate(sentences):
            if not isinstance(sentence, str) or not sentence.strip():
                raise InputError(f"text {position}, sentence {index} is not a non-empty string")


def score_transitions(scorer: Any, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
    """Score every adjacent sentence pair of every text alone, with the scorer's document model, in one pass.

    Args:
        scorer: a :class:`~coherence_metric.scorer.CoherenceScorer` (its tokenizer, ``max_length`` and batching).
        sentence_lists: each text as its sentences, in order.

    Returns:
        Per text, one score per transition (``len(sentences) - 1`` of them; an empty list for a one-sentence
        text): the document model's score of ``" ".join([s_i, s_{i+1}])``. Higher means the pair reads as more
        coherent. Only the document model counts: a checkpoint's sentence-level terms (cohesion, sentence scorer)
        are not added.

    Raises:
        InputError: a text given as one string, or an empty sentence.
    """
    _check_sentence_lists(sentence_lists)
    pairs_per_text = [transition_pairs(list(sentences)) for sentences in sentence_lists]
    slot: Dict[str, int] = {}
    for pairs in pairs_per_text:
        for pair in pairs:
            slot.setdefault(pair, len(slot))
    distinct = list(slot)
    if not distinct:
        return [[] for _ in pairs_per_text]
    ids, cut = scorer._tokenize_cutting(distinct)
    if cut:
        logger.info("%d of %d sentence pairs were longer than max_length=%d tokens and were cut",
                    cut, len(distinct), scorer.max_length)
    scores = scorer._score_ids(ids)
    return [[scores[slot[pair]] for pair in pairs] for pairs in pairs_per_text]


__all__ = ["score_transitions", "transition_pairs"]
