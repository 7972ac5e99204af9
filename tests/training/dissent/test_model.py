"""The BiLSTM-max encoder, the pair features, the classifier's loss and the held-out scores, by hand."""

from __future__ import annotations

import math

import pytest
import torch

from coherence_metric.errors import InputError
from coherence_metric.training.dissent.model import DisSentBiLSTM, make_classifier, pair_features
from coherence_metric.training.dissent.objective import marker_loss, marker_scores
from coherence_metric.training.dissent.report import main as report_main
from coherence_metric.training.dissent.report import score_predictions, table5
from coherence_metric.training.wordvec import WordVectors


@pytest.fixture(scope="module")
def word_vectors(tiny_bert_dir) -> WordVectors:
    return WordVectors.load(str(tiny_bert_dir))


def test_pair_features_are_the_papers_five_blocks():
    s1, s2 = torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, -1.0]])
    features = pair_features(s1, s2)
    assert features.shape == (1, 10)
    assert features[0].tolist() == [1, 2, 3, -1, 2, 0.5, -2, 3, 3, -2]  # s1, s2, mean, difference, product
    assert pair_features(torch.zeros(4, 7), torch.zeros(4, 7)).shape == (4, 35)
    with pytest.raises(InputError, match="one shape"):
        pair_features(torch.zeros(2, 3), torch.zeros(2, 4))


def test_the_loss_of_a_hand_set_classifier():
    classifier = make_classifier(10, 0, 2)
    with torch.no_grad():
        classifier[0].weight.zero_()
        classifier[0].bias.zero_()
        classifier[0].weight[0, 0] = 1.0  # logit 0 = s1[0] = 1
        classifier[0].weight[1, 8] = 1.0  # logit 1 = (s1 * s2)[0] = 3
    logits = classifier(pair_features(torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, -1.0]])))
    assert logits[0].tolist() == [1.0, 3.0]
    # -log softmax: log(1 + e^(3 - 1)) for marker 0, log(1 + e^(1 - 3)) for marker 1
    assert marker_loss(logits, torch.tensor([0])).item() == pytest.approx(math.log(1 + math.e ** 2), abs=1e-6)
    assert marker_loss(logits, torch.tensor([1])).item() == pytest.approx(math.log(1 + math.e ** -2), abs=1e-6)


def test_the_classifier_shape_and_errors():
    layers = make_classifier(50, 8, 5, "tanh")
    assert [type(layer).__name__ for layer in layers] == ["Linear", "Tanh", "Linear"]
    assert layers(torch.zeros(3, 50)).shape == (3, 5)
    with pytest.raises(InputError, match="model.activation"):
        make_classifier(50, 8, 5, "sigmoid")
    with pytest.raises(InputError, match="at least 2 markers"):
        make_classifier(50, 8, 1)


def test_max_pooling_is_over_the_lstm_states_of_real_positions(word_vectors):
    torch.manual_seed(0)
    model = DisSentBiLSTM(word_vectors, hidden=6, fc_dim=4, classes=5).eval()
    short, long = "the cat sat.", "the cat sat on the mat while the dog slept in the sun."
    with torch.no_grad():
        alone = model.encode([short])
        batched = model.encode([long, short])
        ids, _ = word_vectors.token_ids([short])
        states, _ = model.encoder.lstm(word_vectors.weights[ids])
    assert alone.shape == (1, 12)
    assert torch.allclose(alone[0], states[0].max(dim=0).values, atol=1e-6)  # eq. 1 by hand
    assert torch.allclose(batched[1], alone[0], atol=1e-6)  # padding never wins the max
    assert model(["a b c", "d e"], ["f g", "h i j k"]).shape == (2, 5)


def test_the_word_vectors_stay_frozen_and_out_of_the_state(word_vectors):
    model = DisSentBiLSTM(word_vectors, hidden=6, fc_dim=4, classes=5)
    assert not any("embedding" in name for name in model.state_dict())
    assert all(parameter.requires_grad for parameter in model.parameters())
    assert not any(parameter.shape == word_vectors.weights.shape for parameter in model.parameters())


def test_accuracy_and_macro_f1_by_hand():
    scores = marker_scores([0, 0, 1, 2], [0, 1, 1, 1], classes=3)
    assert scores["accuracy"] == 0.5
    # F1: marker 0 = 2/3 (P 1, R 1/2), marker 1 = 1/2 (P 1/3, R 1), marker 2 = 0
    assert scores["macro_f1"] == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)
    with pytest.raises(InputError, match="no held-out pairs"):
        marker_scores([], [], classes=3)


def test_table5_has_the_papers_shape():
    scores = score_predictions([0, 1, 1, 0], [0, 1, 0, 0], ["and", "but"])
    books5 = {"model": "BiLSTM", "marker_set": "books5", **scores}
    every = {"model": "BiLSTM", "marker_set": "all", "accuracy": 0.675, "macro_f1": 0.472}
    lines = table5([books5, every]).splitlines()
    assert lines[0] == "| Model | All F1 | All Acc | Books 8 F1 | Books 8 Acc | Books 5 F1 | Books 5 Acc |"
    assert lines[2] == "| BiLSTM | 47.2 | 67.5 | - | - | 73.3 | 75.0 |"
    assert books5["per_marker"]["but"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3),
                                           "support": 2}


def test_the_report_command_names_a_folder_without_results_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        report_main([str(tmp_path)])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == f"error: {tmp_path}: no test_metrics.json (did the recipe run to the end?)\n"
