"""Each system's place, as people and as a metric see it: the per-system view of a rated set.

A correlation over 16 systems says how far a metric's system ranking is from the experts', not where it goes wrong.
Users rank systems, so a report also lists each system's mean rating and mean score with their ranks, and whether
the system is extractive (sentences taken in order from the source, which people do not call incoherent but a
metric trained on spliced negatives may). And length: a metric whose system means follow (or oppose) the systems'
mean length when the experts' do not has learned length, which Kendall's τ of the system means with mean word count
shows beside the experts' own.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from coherence_metric.research.datasets.ratings import RatedSet, word_count

from .correlation import KENDALL, correlation_rows

#: SummEval's extractive systems among the 16 rated ones (Fabbri et al. 2021: M0-M7 are extractive; LEAD-3, NeuSum,
#: BanditSum and RNES were rated).
SUMMEVAL_EXTRACTIVE = frozenset({"M0", "M1", "M2", "M5"})
EXPERTS = "experts"


def _system_order(system: str) -> tuple[int, str]:
    digits = "".join(character for character in system if character.isdigit())
    return (int(digits) if digits else 0, system)


def _ranks(means: Mapping[str, float]) -> dict[str, int]:
    """1 for the highest mean, ties broken by the system's name (so a table is stable across runs)."""
    ordered = sorted(means, key=lambda system: (-means[system], _system_order(system)))
    return {system: place for place, system in enumerate(ordered, start=1)}


def _kendall(first: Sequence[float], second: Sequence[float]) -> float:
    return float(correlation_rows(KENDALL, np.array([first], dtype=np.float64),
                                  np.array([second], dtype=np.float64))[0])


def system_table(rated: RatedSet, scores: Mapping[str, Sequence[float]], names: Mapping[str, str],
                 extractive: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Each system's mean rating, mean length in words and mean score under each scorer, with ranks, and each one's
    Kendall τ with length over the systems.

    Args:
        rated: the rated texts (every system is averaged over the texts it has).
        scores: scorer name -> scores aligned with ``rated.texts``.
        names: system id -> a readable name (systems without one keep their id).
        extractive: the ids of extractive systems.

    Returns:
        ``{"systems": [...], "length_kendall": {...}}``: one entry per system, ordered by the raters' rank.
    """
    systems = sorted({text.system for text in rated.texts}, key=_system_order)
    members: dict[str, list[int]] = {system: [] for system in systems}
    for index, text in enumerate(rated.texts):
        members[text.system].append(index)
    words = {system: float(np.mean([word_count(rated.texts[index].sentences) for index in members[system]]))
             for system in systems}
    means = {EXPERTS: {system: float(np.mean([rated.texts[index].rating for index in members[system]]))
                       for system in systems}}
    for scorer, values in scores.items():
        means[scorer] = {system: float(np.mean([values[index] for index in members[system]])) for system in systems}
    ranks = {who: _ranks(values) for who, values in means.items()}
    rows = [{"system": system, "name": names.get(system, system), "extractive": system in extractive,
             "texts": len(members[system]), "words": round(words[system], 1),
             **{who: {"mean": means[who][system], "rank": ranks[who][system]} for who in means}}
            for system in sorted(systems, key=lambda system: ranks[EXPERTS][system])]
    length = [words[system] for system in systems]
    return {"systems": rows,
            "length_kendall": {who: _kendall([values[system] for system in systems], length)
                               for who, values in means.items()}}


__all__ = ["EXPERTS", "SUMMEVAL_EXTRACTIVE", "system_table"]
