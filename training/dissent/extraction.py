"""Dependency-pattern extraction of (S1, marker, S2) from one parsed sentence (paper section 4.2, Figure 4).

The paper's procedure, as DisExtract implements it: find the marker; check that it hangs off its
clause (S2's head) by the marker's dependency relation, else reject the occurrence (this is what
filters "that's so cool!" out of *so*); look for S1's head linked to S2's head in the same sentence
(SS); if the sentence holds only the marker and S2, S1 is the immediately previous sentence (IPS).

The patterns, in spaCy's ClearNLP labels (see :mod:`coherence_metric.training.dissent.parser`):

=============  ===========================  =========================================================
kind           marker token                 S2 head -> S1 head
=============  ===========================  =========================================================
coordinator    ``cc`` (CC), head = S1       S2 = a ``conj`` child of S1 after the marker
subordinator   ``mark`` (IN), head = S2     S2 is ``advcl`` of S1 (either order: "Because S2, S1")
wh (when)      ``advmod`` (WRB), head = S2  S2 is ``advcl`` of S1
adverbial      ``advmod`` (RB), head = S2   S1 is a ``ccomp``/``parataxis``/``conj`` child of S2 that
                                            ends right before the marker (order S1, S2 only)
=============  ===========================  =========================================================

Every kind also gives an IPS pair when the marker is the sentence's first word and its head is the root.
Where we are stricter than DisExtract (for precision, since our corpora are small and a wrong pair is
noise): S2 must be a finite clause with an overt subject (the paper's definition of an EDU: "subordinate
clauses with overt subjects and finite verb phrases"), S1's head must be a verb in a main, conjoined or
complement clause (not a relative clause), an IPS marker must be the first word, and a document of
several parser sentences never gives an IPS pair.

Hand-checked precision on a uniform sample of 50 extracted pairs: 45 / 50 (90%); the errors and the
per-marker counts are in training/dissent/EXTRACTION.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Set

from .markers import marker_kinds
from .pairs import PREVIOUS_SENTENCE, SAME_SENTENCE, as_sentence

SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj", "csubjpass"})
FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
AUXILIARIES = frozenset({"aux", "auxpass"})
VERBAL = frozenset({"VERB", "AUX"})
S1_HEAD_RELATIONS = frozenset({"ROOT", "conj", "ccomp", "parataxis"})
ADVERBIAL_S1_RELATIONS = frozenset({"ccomp", "parataxis", "conj"})
LEADING_LINKS = frozenset({"mark", "cc", "preconj"})
GAP_PUNCTUATION = frozenset({",", ";", ":", "-", "--", "\u2013", "\u2014"})


@dataclass(frozen=True)
class Extraction:
    """S1 and S2 as found in one sentence, before the length filters; ``where`` is ``"SS"`` or ``"IPS"``."""

    s1: str
    s2: str
    marker: str
    where: str


def is_verbal(token: Any) -> bool:
    """A verb or auxiliary (spaCy's copula "is" heads its clause, so it counts)."""
    return token.pos_ in VERBAL


def is_finite_clause(head: Any) -> bool:
    """A verbal head with an overt subject and a finite verb (its own tag or a finite auxiliary's)."""
    if not is_verbal(head) or not any(child.dep_ in SUBJECTS for child in head.children):
        return False
    return head.tag_ in FINITE_TAGS or any(child.dep_ in AUXILIARIES and child.tag_ in FINITE_TAGS
                                           for child in head.children)


def clause_text(head: Any, exclude: Set[int]) -> Optional[str]:
    """The words under ``head`` (minus ``exclude``) as a sentence.

    Leading links of the head (another marker's ``mark``/``cc``, e.g. the "that" of "so that") are dropped,
    as DisExtract drops extra top-level ``mark`` dependents; punctuation at the edges and commas next to a
    removed stretch are dropped too, so "I, because it was cold, wore a coat" gives "I wore a coat."
    """
    dropped = set(exclude)
    dropped.update(child.i for child in head.children if child.dep_ in LEADING_LINKS and child.i < head.i)
    tokens = [token for token in head.subtree if token.i not in dropped]
    kept: List[Any] = []
    for position, token in enumerate(tokens):
        if token.text in GAP_PUNCTUATION:
            before = tokens[position - 1] if position else None
            after = tokens[position + 1] if position + 1 < len(tokens) else None
            if before is None or after is None or before.i != token.i - 1 or after.i != token.i + 1:
                continue
        kept.append(token)
    pieces: List[str] = []
    for position, token in enumerate(kept):
        if position and kept[position - 1].i != token.i - 1 and not pieces[-1].endswith(" "):
            pieces.append(" ")
        pieces.append(token.text_with_ws)
    return as_sentence("".join(pieces))


def _subtree_indices(token: Any) -> Set[int]:
    return {item.i for item in token.subtree}


def _first_word(doc: Any) -> Optional[Any]:
    return next((token for token in doc if not token.is_punct and not token.is_space), None)


def _previous_sentence_pair(doc: Any, marker_token: Any, s2_head: Any, previous: Optional[str]) -> Optional[Extraction]:
    """IPS: the marker opens a one-clause sentence; S2 is the rest, S1 the previous sentence."""
    first_word = _first_word(doc)
    if previous is None or first_word is None or marker_token.i != first_word.i or s2_head.dep_ != "ROOT":
        return None
    if len(list(doc.sents)) != 1 or not is_finite_clause(s2_head):
        return None
    s1, s2 = as_sentence(previous), clause_text(s2_head, {marker_token.i})
    if s1 is None or s2 is None:
        return None
    return Extraction(s1, s2, marker_token.lower_, PREVIOUS_SENTENCE)


def _coordinator(doc: Any, token: Any, previous: Optional[str]) -> Optional[Extraction]:
    if token.dep_ != "cc" or token.tag_ != "CC" or not is_verbal(token.head):
        return None
    first = token.head
    second = next((child for child in first.children if child.dep_ == "conj" and child.i > token.i), None)
    links = [child.i for child in first.children if child.dep_ == "cc" and child.i != token.i]
    if second is not None and any(token.i < link < second.i for link in links):
        second = None  # "And S1 and S2.": the nearer "and" joins S1 and S2; this one links to the previous sentence
    if second is None:
        return _previous_sentence_pair(doc, token, first, previous)
    if not is_verbal(second) or not is_finite_clause(second) or first.dep_ not in S1_HEAD_RELATIONS:
        return None
    s1 = clause_text(first, {item.i for item in first.subtree if item.i >= token.i})  # S1 ends at the marker
    s2 = clause_text(second, {token.i})
    return Extraction(s1, s2, token.lower_, SAME_SENTENCE) if s1 and s2 else None


def _subordinate(doc: Any, token: Any, previous: Optional[str], relation: str,
                 tags: Iterable[str]) -> Optional[Extraction]:
    if token.dep_ != relation or token.tag_ not in tags:
        return None
    second = token.head
    if second.dep_ == "ROOT":
        return _previous_sentence_pair(doc, token, second, previous)
    first = second.head
    if second.dep_ != "advcl" or not is_finite_clause(second):
        return None
    if not is_verbal(first) or first.dep_ not in S1_HEAD_RELATIONS:
        return None
    s1 = clause_text(first, _subtree_indices(second))
    s2 = clause_text(second, {token.i})
    return Extraction(s1, s2, token.lower_, SAME_SENTENCE) if s1 and s2 else None


def _adverbial(doc: Any, token: Any, previous: Optional[str]) -> Optional[Extraction]:
    if token.dep_ != "advmod" or token.tag_ != "RB":
        return None
    second = token.head
    candidates = [child for child in second.children
                  if child.dep_ in ADVERBIAL_S1_RELATIONS and child.i < token.i and is_verbal(child)]
    if not candidates:
        return _previous_sentence_pair(doc, token, second, previous)
    first = candidates[-1]
    between = doc[first.right_edge.i + 1: token.i]
    if not all(item.text in GAP_PUNCTUATION for item in between) or not is_finite_clause(second):
        return None
    s1 = clause_text(first, set())
    s2 = clause_text(second, _subtree_indices(first) | {token.i})
    return Extraction(s1, s2, token.lower_, SAME_SENTENCE) if s1 and s2 else None


def extract_from_parse(doc: Any, previous: Optional[str], markers: Iterable[str]) -> List[Extraction]:
    """Every (S1, marker, S2) that the dependency patterns find in a parsed sentence.

    Args:
        doc: a spaCy ``Doc`` of one corpus sentence.
        previous: the sentence before it in the document (None for a document's first sentence).
        markers: the markers to look for (lower case).

    Returns:
        One extraction per marker occurrence that fits its pattern, in text order.
    """
    wanted = set(markers)
    found: List[Extraction] = []
    for token in doc:
        marker = token.lower_
        if marker not in wanted:
            continue
        for kind in marker_kinds(marker):
            if kind == "coordinator":
                extraction = _coordinator(doc, token, previous)
            elif kind == "subordinator":
                extraction = _subordinate(doc, token, previous, "mark", ("IN",))
            elif kind == "wh":
                extraction = _subordinate(doc, token, previous, "advmod", ("WRB",))
            else:
                extraction = _adverbial(doc, token, previous)
            if extraction is not None:
                found.append(extraction)
                break
    return found


__all__ = ["Extraction", "clause_text", "extract_from_parse", "is_finite_clause", "is_verbal"]
