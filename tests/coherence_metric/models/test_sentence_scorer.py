"""The sentence-level term: a small transformer over the pretrained backbone's sentence embeddings, added to the
head's score; windows for long texts, batch invariance, the format-3 checkpoint that carries it."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from safetensors.torch import load_file, save_file

from coherence_metric import CheckpointError, CoherenceModel, CoherenceScorer, InputError, load_checkpoint
from coherence_metric.models.checkpoint import add_sentence_scorer, remove_sentence_scorer
from coherence_metric.models.checkpoint_config import CONFIG_NAME, HEAD_FILE, read_checkpoint_config
from coherence_metric.models.sentence_scorer import SentenceLevelScorer, SentenceScorerShape, window_starts
from coherence_metric.scoring.sentence_pass import SentenceEmbedder, adjacent_cosines

DOCUMENTS = [
    ["The river rose slowly through the night.", "By morning the lower fields were under water.",
     "Farmers moved their animals to the hills."],
    "The road was closed before noon. Buses took the long way round. Schools stayed open.",
    ["A single sentence has no neighbour."],
]
SPLIT = [DOCUMENTS[0], ["The road was closed before noon.", "Buses took the long way round.", "Schools stayed open."],
         DOCUMENTS[2]]
TINY = SentenceScorerShape(embedding_dim=32, width=16, layers=1, heads=2, max_sentences=4)


def _scorer(shape: SentenceScorerShape = TINY, seed: int = 0) -> SentenceLevelScorer:
    torch.manual_seed(seed)
    return SentenceLevelScorer(shape).eval()


def _embeddings(rows: int, dim: int = 32, seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.nn.functional.normalize(torch.randn(rows, dim, generator=generator), dim=-1)


def test_windows_cover_every_sentence_and_end_at_the_last():
    assert window_starts(3, 4) == [0]
    assert window_starts(4, 4) == [0]
    assert window_starts(10, 4) == [0, 2, 4, 6]
    assert window_starts(9, 4) == [0, 2, 4, 5]


def test_a_documents_term_does_not_depend_on_the_other_documents_of_the_call():
    embeddings = _embeddings(40)
    documents = [list(range(0, 3)), list(range(3, 13)), [13], list(range(14, 20)), list(range(20, 22))]
    scorer = _scorer()
    with torch.no_grad():
        together = scorer.score_documents(embeddings, documents, batch_size=2)
        alone = [float(scorer.score_documents(embeddings, [document])[0]) for document in documents]
    assert together.tolist() == pytest.approx(alone, abs=1e-5)


def test_a_long_document_scores_the_mean_of_its_windows():
    embeddings = _embeddings(10)
    scorer = _scorer()
    with torch.no_grad():
        whole = float(scorer.score_documents(embeddings, [list(range(10))])[0])
        windows = scorer.score_documents(embeddings, [list(range(start, start + 4)) for start in (0, 2, 4, 6)])
    assert whole == pytest.approx(float(windows.mean()), abs=1e-5)


def test_with_a_silent_read_out_the_term_is_scale_times_the_mean_adjacent_cosine():
    embeddings = _embeddings(4)
    scorer = _scorer()
    with torch.no_grad():
        scorer.out.weight.zero_()
        scorer.out.bias.zero_()
        value = float(scorer.score_documents(embeddings, [[0, 1, 2, 3]])[0])
        single = float(scorer.score_documents(embeddings, [[2]])[0])
    cosines = adjacent_cosines(embeddings, [[0, 1, 2, 3]])[0]
    assert value == pytest.approx(float(scorer.scale.detach()) * cosines, abs=1e-5)
    assert single == 0.0, "a one-sentence text has no adjacent pair"


def test_the_term_is_differentiable_for_training():
    embeddings = _embeddings(12)
    scorer = SentenceLevelScorer(TINY)
    scores = scorer.score_documents(embeddings, [list(range(6)), list(range(6, 12))])
    (scores[0] - scores[1]).backward()
    assert scorer.out.weight.grad is not None and scorer.out.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("settings, message", [
    ({"width": 15, "heads": 2}, "width 15 is not divisible by heads 2"),
    ({"layers": 0}, "layers must be a positive integer, got 0"),
    ({"max_sentences": 1}, "max_sentences must be at least 2"),
])
def test_a_bad_shape_is_refused(settings, message):
    with pytest.raises(InputError, match=message):
        SentenceScorerShape(**{**TINY.to_dict(), **settings})


def test_embeddings_of_another_width_are_refused():
    with pytest.raises(InputError, match="sentence embeddings are 8 wide, the sentence scorer reads 32"):
        _scorer().score_documents(_embeddings(3, dim=8), [[0, 1, 2]])


@pytest.fixture(scope="module")
def checkpoints(bert_checkpoint, tmp_path_factory):
    """The tiny BERT checkpoint, and a copy of it with a sentence-level term."""
    target = tmp_path_factory.mktemp("sentence-scorer") / "with-term"
    return bert_checkpoint, add_sentence_scorer(bert_checkpoint, _scorer(seed=5), target, training={"epochs": 1})


def test_the_score_adds_the_term_over_the_pretrained_sentence_embeddings(checkpoints, tiny_bert_dir):
    plain_folder, folder = checkpoints
    plain = CoherenceScorer(str(plain_folder)).score(DOCUMENTS).scores
    combined = CoherenceScorer(str(folder)).score(DOCUMENTS).scores
    embeddings, rows = SentenceEmbedder.from_folder(tiny_bert_dir).embed_documents(SPLIT)
    with torch.no_grad():
        terms = _scorer(seed=5).score_documents(embeddings, rows).tolist()
    assert combined == pytest.approx([p + t for p, t in zip(plain, terms)], abs=1e-5)
    assert all(abs(t) > 1e-4 for t in terms), "the term must change every score, one-sentence texts included"


def test_the_term_travels_in_a_format_3_checkpoint_beside_the_same_backbone_bytes(checkpoints):
    plain_folder, folder = checkpoints
    plain_config, config = read_checkpoint_config(plain_folder), read_checkpoint_config(folder)
    assert config.format_version == 3 and config.sentence_scorer == TINY.to_dict()
    assert plain_config.format_version == 1 and plain_config.sentence_scorer is None
    assert "sentence_scorer" not in json.loads((plain_folder / CONFIG_NAME).read_text()), \
        "checkpoints without the term keep the older config keys"
    assert {name: digest for name, digest in config.files.items() if name != HEAD_FILE} == \
        {name: digest for name, digest in plain_config.files.items() if name != HEAD_FILE}
    assert config.training["base_checkpoint"] == plain_config.fingerprint()
    assert config.training["sentence_scorer"] == {"epochs": 1}
    assert CoherenceScorer(str(folder)).fingerprint != CoherenceScorer(str(plain_folder)).fingerprint
    assert load_checkpoint(folder).model.sentence_scorer is not None
    assert (folder / HEAD_FILE).stat().st_mode & 0o777 == (folder / CONFIG_NAME).stat().st_mode & 0o777, \
        "the rewritten head file gets the permissions of any written file (safetensors alone writes 0600)"


def test_removing_the_term_restores_the_base_checkpoint_byte_for_byte(checkpoints, tmp_path):
    plain_folder, folder = checkpoints
    restored = remove_sentence_scorer(folder, tmp_path / "restored")
    assert read_checkpoint_config(restored).files == read_checkpoint_config(plain_folder).files
    assert CoherenceScorer(str(restored)).fingerprint == CoherenceScorer(str(plain_folder)).fingerprint
    assert CoherenceScorer(str(restored)).score(DOCUMENTS).scores == CoherenceScorer(str(plain_folder)).score(
        DOCUMENTS).scores
    with pytest.raises(InputError, match="has no sentence-level term to remove"):
        remove_sentence_scorer(plain_folder, tmp_path / "again")


def test_a_damaged_term_is_refused_with_the_file_named(checkpoints, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(checkpoints[1], damaged)
    tensors = load_file(str(damaged / HEAD_FILE))
    del tensors["sentence_scorer.out.weight"]
    save_file(tensors, str(damaged / HEAD_FILE))
    with pytest.raises(CheckpointError, match=r"head.safetensors is corrupt: the sentence scorer does not load"):
        load_checkpoint(damaged, verify=False)
    with pytest.raises(CheckpointError, match="sha256"):
        load_checkpoint(damaged)

    undescribed = tmp_path / "undescribed"
    shutil.copytree(checkpoints[1], undescribed)
    config = json.loads((undescribed / CONFIG_NAME).read_text())
    del config["sentence_scorer"]
    (undescribed / CONFIG_NAME).write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="sentence scorer tensors its config does not describe"):
        load_checkpoint(undescribed)


def test_adding_a_term_twice_or_of_the_wrong_width_is_refused(checkpoints, tmp_path):
    plain_folder, folder = checkpoints
    with pytest.raises(InputError, match="already has a sentence-level term"):
        add_sentence_scorer(folder, _scorer(), tmp_path / "twice")
    wide = SentenceScorerShape(**{**TINY.to_dict(), "embedding_dim": 64})
    with pytest.raises(InputError, match="reads 64-wide embeddings, but .* gives 32"):
        add_sentence_scorer(plain_folder, SentenceLevelScorer(wide), tmp_path / "wide")
    with pytest.raises(InputError, match="is not empty"):
        add_sentence_scorer(plain_folder, _scorer(), folder)


def test_a_model_refuses_a_term_of_another_width(tiny_bert_dir):
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=64, seed=0)
    wide = SentenceLevelScorer(SentenceScorerShape(**{**TINY.to_dict(), "embedding_dim": 64}))
    with pytest.raises(InputError, match="reads 64-wide sentence embeddings, but the backbone's are 32 wide"):
        CoherenceModel(model.backbone, model.pooling, model.backbone_spec, model.max_length, sentence_scorer=wide)


def test_training_refuses_to_start_from_a_checkpoint_whose_term_it_would_drop(checkpoints, tiny_bert_dir):
    from coherence_metric.training.model_setup import start_from_checkpoint

    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=64, seed=0)
    with pytest.raises(InputError, match="has a sentence-level term, which this recipe would drop"):
        start_from_checkpoint(model, str(checkpoints[1]))
