"""DisSent's discourse markers: the three marker sets of the paper (Table 4) and how each marker is used.

The sets are nested (the paper: "the set of sentence pairs for each smaller dataset is a strict subset
of those in any larger dataset"), so pairs are extracted once for ALL markers and filtered down.

Each marker has a *kind*, which decides the dependency pattern (:mod:`coherence_metric.training.dissent.extraction`) and
the surface pattern of the fallback (:mod:`coherence_metric.training.dissent.patterns`):

- ``coordinator`` (and, but): joins two clauses; ``S1, and S2`` or ``And S2`` after S1's sentence.
- ``subordinator`` (because, if, before, after, although, though, while, as, so): introduces the
  subordinate clause S2, before or after its main clause S1 (``Because S2, S1`` / ``S1 because S2``).
- ``wh`` (when): like a subordinator, but a wh-adverb in the parse.
- ``adverbial`` (so, then, still, also): an adverb at the start of S2; S1 precedes it, in the same
  sentence after a comma or semicolon, or as the previous sentence. DisExtract only accepts the order
  "S1 ... S2" for then and still; we apply that to every adverbial.

``so`` is both a subordinator ("so (that) we could hear") and an adverbial (", so we left"), as in
DisExtract's patterns.
"""

from __future__ import annotations

from typing import Dict, Tuple

from coherence_metric.errors import InputError

BOOKS_5: Tuple[str, ...] = ("and", "but", "because", "if", "when")
BOOKS_8: Tuple[str, ...] = BOOKS_5 + ("before", "though", "so")
BOOKS_ALL: Tuple[str, ...] = BOOKS_8 + ("as", "while", "after", "still", "also", "then", "although")

MARKER_SETS: Dict[str, Tuple[str, ...]] = {"books5": BOOKS_5, "books8": BOOKS_8, "all": BOOKS_ALL}
"""Marker set names as recipes spell them, each in the paper's order (Table 4)."""

TABLE_NAMES: Dict[str, str] = {"all": "All", "books8": "Books 8", "books5": "Books 5"}
"""Column headers of the paper's Table 5."""

COORDINATORS = frozenset({"and", "but"})
SUBORDINATORS = frozenset({"because", "if", "before", "after", "although", "though", "while", "as", "so"})
WH_MARKERS = frozenset({"when"})
ADVERBIALS = frozenset({"so", "then", "still", "also"})


def marker_set(name: str) -> Tuple[str, ...]:
    """The markers of a set, in the paper's order.

    Raises:
        InputError: an unknown set name, listing the known ones.
    """
    if name not in MARKER_SETS:
        raise InputError(f"unknown marker set {name!r}: choose from {', '.join(MARKER_SETS)}")
    return MARKER_SETS[name]


def marker_kinds(marker: str) -> Tuple[str, ...]:
    """The kinds of a marker (``so`` has two), raising InputError for a word that is not a DisSent marker."""
    kinds = tuple(kind for kind, members in (("coordinator", COORDINATORS), ("subordinator", SUBORDINATORS),
                                             ("wh", WH_MARKERS), ("adverbial", ADVERBIALS)) if marker in members)
    if not kinds:
        raise InputError(f"{marker!r} is not one of the DisSent markers ({', '.join(BOOKS_ALL)})")
    return kinds


__all__ = ["ADVERBIALS", "BOOKS_5", "BOOKS_8", "BOOKS_ALL", "COORDINATORS", "MARKER_SETS", "SUBORDINATORS",
           "TABLE_NAMES", "WH_MARKERS", "marker_kinds", "marker_set"]
