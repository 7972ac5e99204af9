"""The objective: targets in a batch, the weighted loss, held-out numbers, saving and ``trained:`` loading."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
import torch

from coherence_metric.errors import InputError
from coherence_metric.training.discoeval_criteria.encoder import load_sentence_encoder
from coherence_metric.training.discoeval_criteria.losses import bag_of_words_loss, classification_loss
from coherence_metric.training.discoeval_criteria.objective import DiscoEvalObjective
from coherence_metric.training.discoeval_criteria.settings import CriteriaSettings, ModelSettings
from coherence_metric.training.discoeval_criteria.targets import SentenceExample, article_examples
from coherence_metric.training.discoeval_criteria.wiki_structure import Article, Paragraph
from coherence_metric.training.wordvec import WordVectors

TRAIN = Article(id="wiki:1", title="Lyon museums", paragraphs=[
    Paragraph(sentences=["Lyon has many museums.", "The largest shows paintings."], section="", level=0),
    Paragraph(sentences=["The first museum opened in 1801.", "It grew fast.", "Paintings came from Paris."],
              section="Early history", level=1),
    Paragraph(sentences=["A new wing opened in 1998."], section="Modern buildings", level=2),
])
DEV = Article(id="wiki:2", title="Paris museums", paragraphs=[
    Paragraph(sentences=["Paris has museums.", "The Louvre is the largest.", "It opened in 1793."], section="",
              level=0),
    Paragraph(sentences=["Paintings fill its halls.", "Visitors come in millions."], section="Early collections",
              level=1),
])


@pytest.fixture(scope="module")
def word_vectors(tiny_bert_dir: Path) -> WordVectors:
    return WordVectors.load(str(tiny_bert_dir))


def settings(losses: List[str], **changes) -> CriteriaSettings:
    values: Dict[str, Any] = dict(losses=losses, batch_size=4, vocabulary_size=100, title_vocabulary_size=100,
                                  position_buckets=4, levels=3, ranking_candidates=2, eval_batch_size=8)
    values.update(changes)
    return CriteriaSettings(**values)


def objective(word_vectors: WordVectors, losses: List[str], dev: List[SentenceExample] | None = None,
              **changes) -> DiscoEvalObjective:
    torch.manual_seed(0)
    model = ModelSettings(word_vectors="tiny", hidden_size=4, mlp_hidden_size=5, mlp_layers=1)
    return DiscoEvalObjective(settings(losses, **changes), model, word_vectors, article_examples(TRAIN),
                              article_examples(DEV) if dev is None else dev, seed=3)


def test_a_batch_carries_every_target_of_the_all_row(word_vectors: WordVectors) -> None:
    target = objective(word_vectors, ["nsp", "nl", "spp", "sdt"])
    examples = article_examples(TRAIN)
    batch = target.collate(examples)
    sentences, sections = target.vocabularies.sentences, target.vocabularies.sections
    assert batch.bag_masks["nsp_previous"].tolist() == [False, True, True, True, True, True]
    assert batch.bag_masks["nsp_next"].tolist() == [True, True, True, True, True, False]
    next_of_first = batch.bags["nsp_next"][0]  # "The largest shows paintings."
    assert next_of_first.sum() == 4 and all(next_of_first[sentences.ids(w)[0]] == 1
                                            for w in ["the", "largest", "shows", "paintings"])
    assert batch.bag_masks["sdt_section"].tolist() == [False, False, True, True, True, True]  # lead: no heading
    assert batch.bags["sdt_section"][2][sections.ids("early")[0]] == 1
    assert batch.bags["sdt_title"].sum(dim=1).tolist() == [2.0] * 6
    assert batch.labels["nl"].tolist() == [0, 0, 1, 1, 1, 2]
    assert batch.labels["spp_sentence"].tolist() == [0, 2, 0, 1, 2, 0]  # floor(4 * i / n)
    assert batch.labels["spp_paragraph"].tolist() == [0, 0, 1, 1, 1, 2]
    assert batch.ids.shape[0] == 6 and batch.lengths.min() >= 1


def test_the_baseline_has_only_the_nsp_decoders(word_vectors: WordVectors) -> None:
    target = objective(word_vectors, ["nsp"])
    assert sorted(target.model.decoders) == ["nsp_next", "nsp_previous"] and target.row == "Baseline (NSP)"
    batch = target.collate(article_examples(TRAIN))
    assert not batch.labels and sorted(batch.bags) == ["nsp_next", "nsp_previous"]
    numbers = target.evaluate()
    assert "classification_accuracy" not in numbers and "nl_accuracy" not in numbers
    assert numbers["loss"] == pytest.approx(numbers["nsp_loss"])
    assert numbers["accuracy"] == numbers["nsp_ranking_accuracy"]


def test_the_loss_is_the_weighted_sum_of_the_criteria(word_vectors: WordVectors) -> None:
    target = objective(word_vectors, ["nsp", "spp"], loss_weights={"spp": 0.5})
    batch = target.collate(article_examples(TRAIN))
    total, logs = target.loss(batch)
    logits = target.model(batch.ids, batch.lengths)
    nsp = (bag_of_words_loss(logits["nsp_previous"], batch.bags["nsp_previous"], batch.bag_masks["nsp_previous"])
           + bag_of_words_loss(logits["nsp_next"], batch.bags["nsp_next"], batch.bag_masks["nsp_next"]))
    spp = (classification_loss(logits["spp_sentence"], batch.labels["spp_sentence"])
           + classification_loss(logits["spp_paragraph"], batch.labels["spp_paragraph"]))
    assert total.item() == pytest.approx((nsp + 0.5 * spp).item(), rel=1e-6)
    assert logs == pytest.approx({"nsp_loss": nsp.item(), "spp_loss": spp.item()}, rel=1e-6)


def test_batches_are_a_function_of_their_position(word_vectors: WordVectors) -> None:
    target = objective(word_vectors, ["nsp"])
    assert torch.equal(target.batch(7).ids, target.batch(7).ids)
    again = objective(word_vectors, ["nsp"])  # a fresh run (same seed) draws the same sentences
    assert torch.equal(target.batch(7).bags["nsp_next"], again.batch(7).bags["nsp_next"])
    assert any(not torch.equal(target.batch(0).ids, target.batch(position).ids) for position in range(1, 6))


def test_evaluate_reports_each_criterion_beside_its_majority_rate(word_vectors: WordVectors) -> None:
    numbers = objective(word_vectors, ["nsp", "nl", "spp", "sdt"]).evaluate()
    for key in ["nsp_loss", "nl_loss", "spp_loss", "sdt_loss", "nl_accuracy", "spp_sentence_accuracy",
                "spp_paragraph_accuracy", "sdt_section_precision_at_1", "sdt_title_precision_at_1",
                "classification_accuracy", "nsp_ranking_accuracy", "accuracy"]:
        assert key in numbers, key
    assert numbers["nl_majority"] == pytest.approx(3 / 5)  # dev levels 0, 0, 0, 1, 1
    # rows scored: 4 of 5 sentences have a previous / a next one; of the heading "Early collections" only
    # "early" is a training word (2 sentences, the lead has no heading); the title shares "museums" (all 5)
    assert (numbers["nsp_previous_rows"], numbers["nsp_next_rows"]) == (4.0, 4.0)
    assert (numbers["sdt_section_rows"], numbers["sdt_title_rows"]) == (2.0, 5.0)
    assert numbers["classification_accuracy"] == pytest.approx(
        (numbers["nl_accuracy"] + numbers["spp_sentence_accuracy"] + numbers["spp_paragraph_accuracy"]) / 3)
    assert numbers["loss"] == pytest.approx(sum(numbers[f"{name}_loss"] for name in ["nsp", "nl", "spp", "sdt"]))


def test_ranking_finds_informative_predictions_and_is_chance_without_them(word_vectors: WordVectors) -> None:
    target = objective(word_vectors, ["nsp"], ranking_candidates=3, eval_batch_size=8)
    bags, mask = torch.eye(3), torch.ones(3, dtype=torch.bool)
    assert target._ranking_hits(10 * torch.eye(3), bags, mask) == (3, 3)  # sentence i predicts word i
    # a decoder that says the same for every sentence: the centred scores tie, one row in three is right
    assert target._ranking_hits(torch.tensor([[5.0, 0.0, 0.0]] * 3), bags, mask) == (1, 3)


def test_saved_encoder_loads_as_trained_folder_and_encodes_like_the_model(word_vectors: WordVectors,
                                                                          tmp_path: Path) -> None:
    target = objective(word_vectors, ["nsp", "nl"])
    target.save(tmp_path / "best")
    encoder = load_sentence_encoder(tmp_path / "best", {"batch": "2"})
    texts = ["Lyon has many museums.", "It grew fast.", "A much longer sentence about the new wing of 1998."]
    vectors = encoder.encode(texts)
    assert vectors.dtype == np.float32 and vectors.shape == (3, 8)
    ids, lengths = word_vectors.token_ids(texts, 64)
    with torch.no_grad():
        expected = target.model.encoder.eval()(ids, lengths).numpy()
    assert np.allclose(vectors, expected, atol=1e-6)
    assert np.allclose(encoder.encode([texts[1]])[0], vectors[1], atol=1e-6)  # batch-independent
    assert encoder.signature == load_sentence_encoder(tmp_path / "best", {}).signature
    assert "+ NL" in encoder.name
    with torch.no_grad():
        for parameter in target.model.encoder.gru.parameters():
            parameter.add_(1.0)
    target.save(tmp_path / "changed")
    assert load_sentence_encoder(tmp_path / "changed", {}).signature != encoder.signature


@pytest.mark.parametrize("losses, message", [
    (["nl", "spp"], "must include nsp"),
    (["nsp", "topic"], "unknown criterion 'topic'"),
    (["nsp", "nsp"], "twice"),
])
def test_bad_criteria_are_named(word_vectors: WordVectors, losses: List[str], message: str) -> None:
    with pytest.raises(InputError, match=message):
        objective(word_vectors, losses)


def test_a_weight_for_an_unselected_criterion_is_an_error(word_vectors: WordVectors) -> None:
    with pytest.raises(InputError, match="loss_weights names 'sdt'"):
        objective(word_vectors, ["nsp"], loss_weights={"sdt": 1.0})


def test_a_dev_slice_smaller_than_a_ranking_group_is_an_error(word_vectors: WordVectors) -> None:
    with pytest.raises(InputError, match="raise data.dev_sentences"):
        objective(word_vectors, ["nsp"], dev=article_examples(DEV)[:1])


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_asking_for_cuda_without_one_is_an_error(word_vectors: WordVectors) -> None:
    model = ModelSettings(word_vectors="tiny", hidden_size=4, mlp_hidden_size=5, device="cuda")
    with pytest.raises(InputError, match="no CUDA device"):
        DiscoEvalObjective(settings(["nsp"]), model, word_vectors, article_examples(TRAIN), article_examples(DEV))


def test_loading_errors_name_the_folder_and_the_option(word_vectors: WordVectors, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no trained_encoder.json"):
        load_sentence_encoder(tmp_path, {})
    objective(word_vectors, ["nsp"]).save(tmp_path / "run")
    with pytest.raises(InputError, match="unknown option"):
        load_sentence_encoder(tmp_path / "run", {"pool": "mean"})
    (tmp_path / "run" / "encoder.pt").write_bytes(b"not weights")
    with pytest.raises(InputError, match="cannot read the encoder weights"):
        load_sentence_encoder(tmp_path / "run", {}).encode(["text"])
