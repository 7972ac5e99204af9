"""The cohesion term: a checkpoint's score is its head's plus weight x mean adjacent-sentence cosine of the
pretrained backbone; the weight travels in the head file (so in the fingerprint) and needs checkpoint format 2."""

from __future__ import annotations

import json

import pytest
from safetensors.torch import load_file, save_file

from coherence_metric import (
    CheckpointError,
    CoherenceModel,
    CoherenceScorer,
    InputError,
    load_checkpoint,
    save_checkpoint,
)
from coherence_metric.models.checkpoint_config import CONFIG_NAME, HEAD_FILE
from coherence_metric.scoring.sentence_pass import SentenceEmbedder

DOCUMENTS = [
    ["The river rose slowly through the night.", "By morning the lower fields were under water.",
     "Farmers moved their animals to the hills."],
    "The road was closed before noon. Buses took the long way round. Schools stayed open.",
    ["A single sentence has no neighbour."],
]
WEIGHT = 2.5


@pytest.fixture(scope="module")
def checkpoints(tiny_bert_dir, tmp_path_factory):
    """The same weights saved twice: without and with a cohesion term."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    plain = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=3)
    with_term = CoherenceModel(plain.backbone, plain.pooling, plain.backbone_spec, plain.max_length, head=plain.head,
                               cohesion_weight=WEIGHT)
    root = tmp_path_factory.mktemp("cohesion")
    return (save_checkpoint(plain, root / "plain", tokenizer=tokenizer),
            save_checkpoint(with_term, root / "cohesion", tokenizer=tokenizer))


def test_the_score_adds_the_weighted_adjacent_cosine_of_the_pretrained_backbone(checkpoints, tiny_bert_dir):
    plain_folder, cohesion_folder = checkpoints
    plain = CoherenceScorer(str(plain_folder)).score(DOCUMENTS).scores
    combined = CoherenceScorer(str(cohesion_folder)).score(DOCUMENTS).scores
    sentences = [DOCUMENTS[0], ["The road was closed before noon.", "Buses took the long way round.",
                                "Schools stayed open."], DOCUMENTS[2]]
    cosines = SentenceEmbedder.from_folder(tiny_bert_dir).cohesion(sentences)
    assert cosines[2] == 0.0 and cosines[0] != 0.0
    assert combined == pytest.approx([p + WEIGHT * c for p, c in zip(plain, cosines)], abs=1e-5)
    assert combined[2] == pytest.approx(plain[2], abs=1e-6), "a one-sentence text gets no cohesion term"


def test_the_weight_round_trips_in_the_head_file_and_changes_the_fingerprint(checkpoints):
    plain_folder, cohesion_folder = checkpoints
    loaded = load_checkpoint(cohesion_folder)
    assert float(loaded.model.cohesion_weight) == WEIGHT and load_checkpoint(plain_folder).model.cohesion_weight is None
    assert json.loads((cohesion_folder / CONFIG_NAME).read_text())["format_version"] == 2
    assert json.loads((plain_folder / CONFIG_NAME).read_text())["format_version"] == 1, \
        "a checkpoint without the term stays readable by releases that read format 1"
    assert CoherenceScorer(str(plain_folder)).fingerprint != CoherenceScorer(str(cohesion_folder)).fingerprint


def test_a_bad_weight_is_refused(checkpoints, tiny_bert_dir, tmp_path):
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(checkpoints[1], damaged)
    tensors = load_file(str(damaged / HEAD_FILE))
    tensors["cohesion_weight"] = -tensors["cohesion_weight"]
    save_file(tensors, str(damaged / HEAD_FILE))
    with pytest.raises(CheckpointError, match="cohesion_weight must be one positive number"):
        load_checkpoint(damaged, verify=False)
    with pytest.raises(CheckpointError, match="sha256"):
        load_checkpoint(damaged)
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=3)
    with pytest.raises(InputError, match="cohesion_weight must be a positive number, got 0"):
        CoherenceModel(model.backbone, model.pooling, model.backbone_spec, model.max_length, cohesion_weight=0)


def _forward_shapes(embedder: SentenceEmbedder) -> list:
    """Record the (batch, width) of every forward pass the sentence encoder runs."""
    shapes: list = []
    embedder.model.register_forward_pre_hook(
        lambda module, args, kwargs: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True)
    return shapes


def test_the_sentence_pass_stays_under_the_scorers_token_budget_and_its_values_do_not_move(checkpoints):
    """The sentence pass batches under ``max_tokens_per_batch`` like the document pass (it used a fixed 64
    sentences whatever their length), and a text's terms do not depend on how its sentences were batched."""
    _, cohesion_folder = checkpoints
    sentences = [sentence for document in DOCUMENTS[:2] for sentence in
                 (document if isinstance(document, list) else document.split(". "))] * 3
    documents = [sentences[index:index + 4] + [f"Sentence number {index} closes it."] for index in range(12)]
    roomy = CoherenceScorer(str(cohesion_folder))
    tight = CoherenceScorer(str(cohesion_folder), max_tokens_per_batch=48)
    assert tight.sentence_embedder.max_tokens_per_batch == 48 and tight.sentence_embedder is not roomy.sentence_embedder
    shapes = _forward_shapes(tight.sentence_embedder)
    tight_scores = tight.score(documents).scores
    assert len(shapes) > 1 and all(batch * width <= 48 for batch, width in shapes), shapes
    assert tight_scores == pytest.approx(roomy.score(documents).scores, abs=1e-5)


def test_the_sentence_encoder_pads_with_the_tokenizer_and_caps_sentences_per_pass(tiny_bert_dir):
    embedder = SentenceEmbedder.from_folder(tiny_bert_dir, batch_size=2)
    shapes = _forward_shapes(embedder)
    sentences = ["Short one.", "A somewhat longer sentence than the first.", "Mid length here.", "Tiny."]
    together = embedder.embed(sentences)
    # at most batch_size sentences per pass, longest first; each pass pads to a length set by its sentences' own
    # lengths (one padded length per pass), so a sentence's embedding does not depend on its neighbours
    assert all(batch <= 2 for batch, _ in shapes) and sum(batch for batch, _ in shapes) == 4
    assert [length for _, length in shapes] == sorted((length for _, length in shapes), reverse=True)
    one_by_one = SentenceEmbedder(embedder.model, embedder.tokenizer, batch_size=1).embed(sentences)
    assert together.shape == (4, embedder.model.config.hidden_size)
    assert (together - one_by_one).abs().max() < 1e-5  # padding is masked out of the mean
    with pytest.raises(InputError, match="max_tokens_per_batch"):
        SentenceEmbedder(embedder.model, embedder.tokenizer, max_tokens_per_batch=0)
