"""System-level agreement on dev-select: a metric that ranks systems as people do gets tau 1, one
that ranks them backwards -1, and a set whose groups do not hold every system gives no number."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest
from scipy.stats import kendalltau

from coherence_metric.research.datasets.ratings import (
    DEV_SELECT,
    FFCI,
    HANNA,
    HUMAN_DEV_SETS,
    RatedSet,
    RatedText,
    dev_half,
    load_human_dev_set,
)
from coherence_metric.training.pointwise.dev_systems import kendall, system_agreement, system_table, system_tau

SYSTEMS = {"weak": 1.0, "middling": 2.5, "good": 3.0, "best": 4.5}


def _rated(groups: int = 6, systems: dict = SYSTEMS, name: str = "TOY") -> RatedSet:
    """Every system writes one text per group; a group moves every system's rating by the same amount."""
    texts = [RatedText(f"{group}/{system}", f"g{group}", system, (f"{system} writes for {group}.",), rating + group % 3)
             for group in range(groups) for system, rating in systems.items()]
    return RatedSet(name, tuple(texts), "coherence", 1.0, "test")


def _all(rated: RatedSet) -> List[int]:
    return list(range(len(rated.texts)))


def test_a_scorer_that_is_the_human_rating_has_tau_one_and_its_reverse_minus_one() -> None:
    rated = _rated()
    ratings = [text.rating for text in rated.texts]
    result = system_agreement([rated], {"TOY": _all(rated)}, {"TOY": ratings}, resamples=200)
    assert result == {"system_tau": {"TOY": 1.0}, "system_tau_interval": {"TOY": [1.0, 1.0]}, "system_tau_mean": 1.0}
    backwards = system_agreement([rated], {"TOY": _all(rated)}, {"TOY": [-value for value in ratings]}, resamples=200)
    assert backwards["system_tau"]["TOY"] == -1.0 and backwards["system_tau_interval"]["TOY"] == [-1.0, -1.0]


def test_system_means_are_compared_not_texts_and_the_bootstrap_moves_with_the_groups() -> None:
    rated = _rated(groups=12)
    # every text scored at its system's true level, except one group that pulls "weak" far above the rest: the
    # per-system means follow that group, and resampling groups moves it in (tau 0) and out (tau 1)
    scores = [(100.0 if text.system == "weak" and text.group == "g0" else 0.0) + SYSTEMS[text.system]
              for text in rated.texts]
    table = system_table(rated, _all(rated), scores)
    assert table is not None and table.systems == sorted(SYSTEMS) and (table.counts == 1).all()
    tau, (low, high) = system_tau(table, resamples=500)
    assert tau == pytest.approx(0.0)  # weak goes first: 3 pairs lost, 3 kept
    assert low == 0.0 and high == 1.0  # about a third of the draws leave g0 out and rank every system right


def test_sets_without_systems_or_with_unbalanced_groups_are_skipped() -> None:
    one = _rated(systems={"only": 3.0}, name="ONE")
    unnamed = _rated(systems={"None": 1.0, "a": 2.0, "b": 3.0}, name="UNNAMED")
    unbalanced = _rated(name="UNBALANCED")
    indices = {"ONE": _all(one), "UNNAMED": _all(unnamed),
               "UNBALANCED": [index for index, text in enumerate(unbalanced.texts)
                              if not (text.group == "g0" and text.system == "best")]}
    scores = {name: [0.0] * len(values) for name, values in indices.items()}
    result = system_agreement([one, unnamed, unbalanced], indices, scores, resamples=10)
    assert result == {"system_tau": {}, "system_tau_interval": {}, "system_tau_mean": None}


def test_kendall_is_scipys_tau_b_and_zero_when_undefined() -> None:
    first, second = [1.0, 2.0, 3.0, 4.0, 4.0], [2.0, 1.0, 3.0, 5.0, 4.0]
    assert kendall(first, second) == pytest.approx(kendalltau(first, second).statistic)
    assert kendall([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) == 0.0


def test_human_dev_has_balanced_system_tables_for_hanna_and_ffci_only(shared_data: Path) -> None:
    rated = [load_human_dev_set(name, shared_data) for name in HUMAN_DEV_SETS]
    indices = {item.name: [index for index, text in enumerate(item.texts)
                           if dev_half(item.name, text.group) == DEV_SELECT] for item in rated}
    human = {item.name: [item.texts[index].rating for index in indices[item.name]] for item in rated}
    result = system_agreement(rated, indices, human, resamples=100)
    assert set(result["system_tau"]) == {HANNA, FFCI}  # DeltaScore's pools rated different systems' prompts
    assert result["system_tau"] == {HANNA: 1.0, FFCI: 1.0}
    hanna = system_table(rated[0], indices[HANNA], human[HANNA])
    assert hanna is not None and len(hanna.systems) == 11 and hanna.counts.shape == (48, 11)
