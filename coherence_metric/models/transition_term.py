"""A checkpoint's transition term: each text's score mixed with the mean boundary logit of a transition model.

Why: the document model reads a text whole and ranks it above a shuffled copy of itself only about 84% of the time
on dev texts; the transition model (:mod:`coherence_metric.scoring.transition_pass`) reads order boundary by boundary. A
checkpoint with the term (format 5, ``transition_term`` in its config) scores a text of two or more sentences as
``(1 - weight) * score + weight * mean(boundary logits)`` (the local term's mix,
:func:`coherence_metric.scoring.local_term.mix`). A one-sentence text has no boundary and keeps its score: inventing a
value for it would reward or punish length.

The logits run on the scorer's device in the scorer's dtype (bf16 autocast where the scorer uses it), after the
document pass (:func:`coherence_metric.scoring.transition_pass.boundary_logits`); each text's value does not depend on
the other texts of the call. This module holds the term's description alone, which the model and its config carry, so
that it imports nothing of the code that runs a transition model.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TransitionTerm:
    """Which packaged transition model a checkpoint mixes in, and with what weight (in (0, 1))."""

    model: str
    weight: float


__all__ = ["TransitionTerm"]
