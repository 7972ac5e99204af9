"""The synthetic dev texts with a known break of each kind, the drift texts, and how their flags are read."""

from __future__ import annotations

import json

import pytest

from coherence_metric.analysis.sentence_breaks import (
    COHESION,
    DRIFT_RULE,
    DRIFT_RULES,
    DUPLICATION,
    KIND_RULE,
    KIND_RULES,
    RELEVANCE,
    SentenceFlag,
)
from coherence_metric.benchmarks.localisation.synthetic_kinds import (
    DRIFT,
    EXPECTED,
    KIND_SETS,
    BrokenText,
    build_drift,
    build_kind_sets,
    drift_measures,
    first_difference,
    kind_measures,
    mean_right_when_flagged,
)
from coherence_metric.research.standins import read_news_documents

from ..report_copies import REPORTS


@pytest.mark.parametrize("corrupted, expected", [
    (["a", "b", "x", "c"], 2),   # inserted
    (["a", "b", "c", "a"], 3),   # added at the end
    (["a", "c"], 1),             # "b" deleted: "c" now follows "a"
    (["a", "x", "c"], 1),        # replaced
])
def test_the_broken_sentence_is_the_first_that_differs_from_the_original(corrupted, expected):
    assert first_difference(["a", "b", "c"], corrupted) == expected


@pytest.fixture(scope="module")
def dev_documents(shared_data):
    return read_news_documents(shared_data, split="dev")[:80]


def test_each_kind_set_breaks_dev_documents_at_the_sentence_it_names(dev_documents):
    originals = dict(dev_documents)
    sets = build_kind_sets(dev_documents, count=8, seed=2)
    assert set(sets) == set(KIND_SETS) and sets == build_kind_sets(dev_documents, count=8, seed=2)
    for name, items in sets.items():
        assert items, name
        for item in items:
            original = originals[item.id.rsplit("/", 1)[0]]
            assert 1 <= item.position < len(item.sentences)
            assert item.sentences[:item.position] == original[:item.position]
            broken = item.sentences[item.position]
            if name == "repeat_sentence":
                assert broken in original[:item.position]
            elif name == "near_repeat":
                assert broken != original[item.position - 1] and len(item.sentences) == len(original) + 1
            elif name == "dangling_reference":
                assert broken == original[item.position + 1] and len(item.sentences) == len(original) - 1
            elif name == "random_intrusion":
                assert broken not in original and len(item.sentences) == len(original)
            else:  # connective_swap: the same sentence with another connective
                assert broken != original[item.position] and len(item.sentences) == len(original)


def test_a_drift_leaves_its_document_at_a_known_sentence_and_never_comes_back(dev_documents):
    originals = dict(dev_documents)
    for item in build_drift(dev_documents, count=8, seed=2):
        original = originals[item.id.rsplit("/", 1)[0]]
        assert item.sentences[:item.position] == original[:item.position]
        assert len(item.sentences) - item.position >= 2
        assert not set(item.sentences[item.position:]) & set(original)


def _texts(positions):
    return [BrokenText(f"t{index}", "x", ["s"] * 6, position) for index, position in enumerate(positions)]


def test_a_kind_is_labelled_right_only_where_the_flag_at_the_break_names_it():
    flags = {0: [SentenceFlag(2, RELEVANCE, 1.0)], 1: [SentenceFlag(4, COHESION, 1.0), SentenceFlag(2, COHESION, 0.5)],
             2: [SentenceFlag(5, RELEVANCE, 1.0)], 3: []}
    texts = _texts([2, 2, 2, 2])
    rows = [[{"id": index}] for index in range(4)]
    cell = kind_measures(texts, rows, RELEVANCE, lambda evidence: flags[evidence[0]["id"]], seed=0)
    assert cell["n"] == 4 and cell["labelled_right"] == 0.25 and cell["flagged_at_break"] == 0.5
    assert cell["right_when_flagged"] == 0.5 and cell["top_flag_on_break"] == 0.25 and cell["no_flag"] == 0.25
    assert cell["kinds_at_break"] == {COHESION: 1, RELEVANCE: 1}


def test_drift_is_read_at_its_start_and_any_flag_after_it_counts():
    flags = {0: [SentenceFlag(3, RELEVANCE, 1.0)], 1: [SentenceFlag(4, COHESION, 2.0), SentenceFlag(3, RELEVANCE, 1.0)],
             2: []}
    rows = [[{"id": index}] for index in range(3)]
    cell = drift_measures(_texts([3, 3, 3]), rows, lambda evidence: flags[evidence[0]["id"]], seed=0)
    assert cell["top_flag_at_start"] == pytest.approx(1 / 3) and cell["flag_at_start"] == pytest.approx(2 / 3)
    assert cell["flag_after_start"] == pytest.approx(1 / 3) and cell["kinds_at_start"] == {RELEVANCE: 2}


def test_the_kind_rules_score_weighs_each_kind_alike_however_many_sets_it_has():
    cells = {"a": {"expected": RELEVANCE, "right_when_flagged": 1.0},
             "b": {"expected": RELEVANCE, "right_when_flagged": 0.0},
             "c": {"expected": DUPLICATION, "right_when_flagged": 1.0}}
    assert mean_right_when_flagged(cells) == pytest.approx(0.75)


def test_the_suite_report_gives_each_kinds_dev_check_and_the_rules_it_chose():
    """The committed report of the default checkpoint (``benchmark cohesentia-dev``) has the per-kind section, the
    drift set, and every candidate rule measured, the chosen ones being those ``explain`` uses."""
    report = json.loads((REPORTS / "cm-minilm-gpu-joint-2026.11" / "localisation_cohesentia-dev.json").read_text())
    synthetic = report["synthetic_dev"]
    assert set(synthetic["kinds"]) == set(EXPECTED)
    for name, cell in synthetic["kinds"].items():
        assert cell["expected"] == EXPECTED[name] and cell["n"] == synthetic["per_kind"]
        assert 0.0 <= cell["labelled_right"] <= 1.0 and len(cell["labelled_right_interval"]) == 2
    assert synthetic[DRIFT]["n"] == synthetic["per_kind"] and 0.0 <= synthetic[DRIFT]["top_flag_at_start"] <= 1.0
    rules = synthetic["rules"]
    assert set(rules["kind"]) == set(KIND_RULES) and set(rules["drift"]) == set(DRIFT_RULES)
    assert (rules["kind_chosen"], rules["drift_chosen"]) == (KIND_RULE, DRIFT_RULE)
    assert set(report["flag_rules"]["choose"]["drift"]) == set(DRIFT_RULES)
