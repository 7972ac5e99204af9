"""The boundary head a pointwise recipe may train beside the whole-text score (training/pointwise/boundary.py)."""

from __future__ import annotations

import json

import pytest
import torch

from coherence_metric.errors import InputError
from coherence_metric.training.pointwise.boundary import (
    BoundaryHead,
    boundary_features,
    boundary_losses,
    scores_and_boundaries,
    sentence_means,
    sentence_token_ids,
)
from coherence_metric.training.pointwise.recipe import (
    PointwiseModelSection,
    PointwiseRecipe,
    build_model,
    recipe_from_mapping,
    run_recipe,
)

SENTENCES = ["Anna Berg opened a bakery in Oslo.", "She sold it in 2004.", "The buyer closed it soon after."]


def test_each_token_is_owned_by_the_sentence_it_came_from_and_a_cut_text_keeps_a_prefix(minilm_tokenizer):
    ids, owners = sentence_token_ids(minilm_tokenizer, SENTENCES, max_length=256)
    assert ids == minilm_tokenizer(" ".join(SENTENCES), truncation=True, max_length=256)["input_ids"]
    assert owners[0] == -1 and owners[-1] == -1  # [CLS] and [SEP]
    content = owners[1:-1]
    assert content == sorted(content) and set(content) == {0, 1, 2}
    first = minilm_tokenizer.convert_ids_to_tokens(ids[1:-1][content.index(1)])
    assert first == "she"
    cut_ids, cut_owners = sentence_token_ids(minilm_tokenizer, SENTENCES, max_length=12)
    assert len(cut_ids) == 12 and max(cut_owners) < 2 and cut_owners[:-1] == owners[:11]


def test_sentence_means_average_each_sentences_own_states_only():
    states = torch.tensor([[9.0, 9.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [9.0, 9.0]])
    means = sentence_means(states, [-1, 0, 0, 1, -1])
    assert torch.equal(means, torch.tensor([[2.0, 3.0], [5.0, 6.0]]))
    assert sentence_means(states[:2], [-1, -1]).shape == (0, 2)


def test_boundary_features_read_the_two_sentences_in_order():
    vectors = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    features = boundary_features(vectors)
    assert torch.equal(features, torch.tensor([[1.0, 2.0, 3.0, 5.0, 3.0, 10.0, -2.0, -3.0]]))
    assert not torch.equal(boundary_features(vectors.flip(0)), features)
    assert boundary_features(vectors[:1]).shape == (0, 8)


def test_boundary_losses_by_hand():
    logits = [torch.tensor([1.0, 3.0]), torch.tensor([0.0]), torch.zeros(0)]  # positive, its two negatives
    targets = [[2.0, 3.0, 7.0], [-1.0], []]  # the teacher may read a boundary the head's pass cut off
    losses = boundary_losses(logits, targets, owner=[0, 0], n_positives=1, margin=1.0)
    assert losses.distillation.item() == pytest.approx((1.0 + 0.0 + 1.0) / 3)
    # mean 2.0 above 0.0 by more than the margin; the negative without a boundary is skipped
    assert losses.ranking.item() == pytest.approx(0.0)
    close = boundary_losses([torch.tensor([0.5]), torch.tensor([0.0])], [[0.5], [0.0]], [0], 1, margin=1.0)
    assert close.ranking.item() == pytest.approx(0.5) and close.distillation.item() == pytest.approx(0.0)


def test_the_pass_with_boundaries_scores_texts_exactly_as_the_objective_does(tiny_bert_dir):
    recipe = PointwiseRecipe(model=PointwiseModelSection(backbone=str(tiny_bert_dir), max_length=64))
    model, tokenizer = build_model(recipe)
    model.eval()
    texts = [SENTENCES[:n] for n in (1, 3, 2)] + [SENTENCES * 6]  # the last is cut at 64 tokens
    head = BoundaryHead(model.hidden_size, width=8)
    with torch.no_grad():
        scores, logits = scores_and_boundaries(model, head, tokenizer, texts, 64, 100, "fp32", torch.device("cpu"))
        ids = tokenizer([" ".join(text) for text in texts], truncation=True, max_length=64, padding=True,
                        return_tensors="pt")
        expected = model(ids["input_ids"], ids["attention_mask"])
    assert torch.allclose(scores, expected, atol=1e-5)
    assert [len(values) for values in logits[:3]] == [0, 2, 1]
    assert 1 <= len(logits[3]) < len(texts[3]) - 1  # only the boundaries inside the 64 tokens


def test_a_bad_boundary_setting_is_named():
    with pytest.raises(InputError, match="boundary_distil_weight"):
        recipe_from_mapping({"family": "pointwise", "objective": {"boundary_distil_weight": -1}}, "r.yaml")
    with pytest.raises(InputError, match="boundary_lr"):
        recipe_from_mapping({"family": "pointwise", "objective": {"boundary_rank_weight": 1, "boundary_lr": 0}},
                            "r.yaml")


@pytest.mark.slow
def test_a_boundary_run_trains_the_head_resumes_it_and_ships_the_model_alone(shared_data, tiny_bert_dir, tmp_path):
    from coherence_metric import CoherenceScorer

    recipe = tmp_path / "boundary.yaml"
    recipe.write_text(json.dumps({
        "family": "pointwise",
        "model": {"backbone": str(tiny_bert_dir), "max_length": 64, "train_layers": None},
        "data": {"corpora": ["lee"], "train_documents": 6, "dev_documents": 2, "decontaminate": False,
                 "min_sentences": 2, "max_sentences": 4, "negatives": {"shuffle": 1, "adjacent_swap": 1}},
        "objective": {"batch_size": 2, "bf16": False, "save_flavour": "full", "own_ranking_weight": 1.0,
                      "boundary_distil_weight": 0.5, "boundary_rank_weight": 1.0, "boundary_width": 8,
                      "tokens_per_pass": 128},
        "loop": {"output_dir": str(tmp_path / "run"), "max_steps": 2, "eval_every": 2, "save_every": 1,
                 "log_every": 1, "lr": 1e-4},
    }), encoding="utf-8")
    run_recipe(recipe, {}, progress=False)
    records = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    steps = [record for record in records if "boundary_distillation" in record]
    assert len(steps) == 2 and all(record["boundary_distillation"] > 0 for record in steps)
    state = torch.load(tmp_path / "run" / "loop_state.pt", weights_only=True)
    head_keys = [key for key in state["module"] if key.startswith("boundary_head.")]
    assert head_keys and any(key.startswith("model.backbone.") for key in state["module"])
    assert state["optimizer"]["param_groups"][2]["lr_scale"] == pytest.approx(1e-3 / 1e-4)
    trained_head = {key: state["module"][key].clone() for key in head_keys}
    run_recipe(recipe, {"loop.max_steps": 3}, progress=False)  # resumes at step 2 with the head as it was
    resumed = torch.load(tmp_path / "run" / "loop_state.pt", weights_only=True)
    records = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [record["step"] for record in records if "boundary_distillation" in record] == [1, 2, 3]
    assert resumed["step"] == 3
    assert any(not torch.equal(resumed["module"][key], value) for key, value in trained_head.items())
    scorer = CoherenceScorer(str(tmp_path / "run" / "final"))
    assert not any("boundary" in name for name, _ in scorer.model.named_parameters())
    assert len(scorer.score(["One sentence here.", "Two. Sentences."]).scores) == 2
