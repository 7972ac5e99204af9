"""The scorer's stage profile (the speed suite's "where the time goes"), the sentence pass following the scorer's
dtype, and each text split into sentences once per call however many stages read its sentences."""

from __future__ import annotations

import pytest

from coherence_metric import CoherenceModel, CoherenceScorer, save_checkpoint
from coherence_metric import scorer as scorer_module
from coherence_metric.scoring.profiling import STAGES, TRANSITION_PASS
from coherence_metric.scoring.sentence_pass import SentenceEmbedder

SENTENCES = ["The river rose slowly through the night.", "By morning the lower fields were under water.",
             "Farmers moved their animals to the hills.", "The school opened its hall to the families.",
             "Volunteers brought blankets and hot soup.", "By evening the water had begun to fall."]
LONG = " ".join(SENTENCES * 3)
TEXTS = [LONG, "The road was closed before noon. Buses took the long way round.", SENTENCES]


@pytest.fixture(scope="module")
def cohesion_checkpoint(tiny_bert_dir, tmp_path_factory):
    from transformers import AutoTokenizer

    plain = CoherenceModel.from_backbone(tiny_bert_dir, max_length=40, seed=3)
    model = CoherenceModel(plain.backbone, plain.pooling, plain.backbone_spec, plain.max_length, head=plain.head,
                           cohesion_weight=1.5)
    return save_checkpoint(model, tmp_path_factory.mktemp("profiled") / "cohesion",
                           tokenizer=AutoTokenizer.from_pretrained(str(tiny_bert_dir)))


def test_profile_times_every_stage_and_scoring_outside_it_is_not_timed(cohesion_checkpoint):
    scorer = CoherenceScorer(str(cohesion_checkpoint))
    with scorer.profile() as times:
        profiled = scorer.score(TEXTS).scores
    assert list(times.seconds) == list(STAGES)
    # the long text was windowed; no transition term, so no transition pass
    assert all(times.seconds[name] > 0 for name in STAGES if name != TRANSITION_PASS), times.seconds
    assert times.seconds[TRANSITION_PASS] == 0.0
    assert scorer.score(TEXTS).scores == pytest.approx(profiled, abs=1e-6)
    assert times.total == pytest.approx(sum(times.seconds.values()))
    assert scorer._stages is None


def test_each_text_is_split_into_sentences_once_per_call(cohesion_checkpoint, monkeypatch):
    """Windowing (the two long texts) and the sentence pass (every text) read the same split."""
    calls = []
    original = scorer_module.sentences_of

    def counting(document):
        calls.append(document)
        return original(document)

    monkeypatch.setattr(scorer_module, "sentences_of", counting)
    result = CoherenceScorer(str(cohesion_checkpoint)).score(TEXTS)
    assert result.n_windowed == 2  # the long string and the sentence list
    assert len(calls) == len(TEXTS)


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_the_sentence_pass_runs_in_the_scorers_dtype(cohesion_checkpoint, monkeypatch, dtype):
    seen = []
    original = SentenceEmbedder.embed

    def recording(self, sentences, progress=False, dtype="fp32", stages=None):
        seen.append(dtype)
        return original(self, sentences, progress, dtype, stages)

    monkeypatch.setattr(SentenceEmbedder, "embed", recording)
    CoherenceScorer(str(cohesion_checkpoint), dtype=dtype).score(TEXTS)
    assert seen == [dtype]


def test_bf16_sentence_embeddings_stay_close_to_fp32(tiny_bert_dir):
    embedder = SentenceEmbedder.from_folder(tiny_bert_dir)
    fp32, bf16 = embedder.embed(SENTENCES), embedder.embed(SENTENCES, dtype="bf16")
    assert bf16.dtype == fp32.dtype
    assert float((fp32 * bf16).sum(dim=-1).min()) > 0.999
