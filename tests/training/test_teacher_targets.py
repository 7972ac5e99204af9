"""Learning from stored teacher scores: targets by text, a lead never taught to beat its whole, the two losses by
hand, and a pointwise step that uses them."""

from __future__ import annotations

import math

import pytest
import torch

from coherence_metric.errors import InputError
from coherence_metric.research.documents import Document
from coherence_metric.training.pointwise.teacher.pool import text_key
from coherence_metric.training.pointwise.teacher.scores import Scorer, write_part
from coherence_metric.training.pointwise.teacher.targets import stored_targets, teacher_mse, teacher_ranking

WHOLE = ["The river rose.", "The fields flooded.", "Farmers moved the cattle."]
LEAD = WHOLE[:1]
OTHER = ["Prices fell.", "Shops closed."]


def test_targets_are_found_by_text_and_a_lead_is_capped_at_its_whole():
    table = {text_key(" ".join(WHOLE)): 0.5, text_key(" ".join(LEAD)): 2.0, text_key(" ".join(OTHER)): -1.0}
    assert stored_targets([WHOLE, OTHER, LEAD], table, [None, None, 0]) == [0.5, -1.0, 0.5]
    assert stored_targets([OTHER, LEAD], {text_key(" ".join(LEAD)): -2.0, text_key(" ".join(OTHER)): 1.0},
                          [None, 0]) == [1.0, -2.0]  # a lead below its whole keeps its own score
    assert stored_targets([WHOLE, LEAD], {text_key(" ".join(LEAD)): 2.0}, [None, 0]) == [None, None]



def test_a_cap_margin_puts_an_over_scored_cut_below_its_whole_and_leaves_the_others():
    table = {text_key(" ".join(WHOLE)): 0.5, text_key(" ".join(LEAD)): 2.0, text_key(" ".join(OTHER)): 0.1}
    assert stored_targets([WHOLE, LEAD, OTHER], table, [None, 0, 0], cap_margin=0.25) == [0.5, 0.25, 0.1]
    assert stored_targets([WHOLE, LEAD], table, [None, 0], cap_margin=0.0) == [0.5, 0.5]
    with pytest.raises(InputError, match="teacher_cap_margin must be >= 0"):
        from coherence_metric.training.pointwise.objective import PointwiseObjectiveSection
        PointwiseObjectiveSection(teacher_cap_margin=-1.0).check("recipe.yaml")


def test_the_mse_and_the_ranking_by_hand():
    scores = torch.tensor([1.0, 0.0, 3.0], requires_grad=True)
    targets = [2.0, None, 1.0]
    assert teacher_mse(scores, targets).item() == pytest.approx(((1 - 2) ** 2 + (3 - 1) ** 2) / 2)
    # one pair: the teacher puts text 0 above text 2 (2.0 > 1.0 + gap); the student has 1 - 3 = -2
    assert teacher_ranking(scores, targets, gap=0.1).item() == pytest.approx(math.log1p(math.exp(2.0)))
    assert teacher_ranking(scores, targets, gap=1.5).item() == 0.0
    assert teacher_mse(scores, [None, None, None]).item() == 0.0
    teacher_ranking(scores, targets, gap=0.1).backward()
    assert scores.grad[0] < 0 < scores.grad[2]  # descending the loss lifts text 0 and lowers text 2


def test_a_pointwise_step_learns_the_stored_scores_of_the_texts_it_has(tiny_bert_dir, tmp_path):
    from coherence_metric.training.pointwise.objective import PointwiseObjective, PointwiseObjectiveSection
    from coherence_metric.training.pointwise.recipe import PointwiseModelSection, PointwiseRecipe, build_model
    from coherence_metric.training.pointwise.texts import PointwiseData

    documents = [Document(f"toy:{n}", "toy", [f"Rain fell on town {n}.", f"The roads of town {n} flooded.",
                                              "Schools stayed shut.", "The mayor spoke."]) for n in range(6)]
    recipe = PointwiseRecipe(model=PointwiseModelSection(backbone=str(tiny_bert_dir), max_length=64))
    model, tokenizer = build_model(recipe)
    for module in model.modules():  # a step scores in train mode: no dropout, so the check below can recompute it
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    data = PointwiseData(corpora=["toy"], min_sentences=4, max_sentences=4, lead_share=1.0, truncation_leads=True,
                         negatives={"shuffle": 1}, seed=3)
    plain = PointwiseObjectiveSection(bf16=False, batch_size=2, truncation_weight=0.5)
    batch = PointwiseObjective(model, tokenizer, documents, documents, data, plain, 64, 1e-4, {}).batch(0)
    positive, lead = batch[0].positive, batch[0].lead
    assert lead is not None
    write_part(tmp_path, Scorer("teacher", "f00", "fp32"),
               {text_key(" ".join(positive)): 1.0, text_key(" ".join(lead)): 4.0}, {})
    section = PointwiseObjectiveSection(bf16=False, batch_size=2, truncation_weight=0.5, teacher_scores=str(tmp_path),
                                        teacher_mse_weight=1.0, teacher_rank_weight=1.0)
    objective = PointwiseObjective(model, tokenizer, documents, documents, data, section, 64, 1e-4, {})
    model.eval()
    with torch.no_grad():
        loss, parts = objective.loss(batch)
        base, _ = PointwiseObjective(model, tokenizer, documents, documents, data, plain, 64, 1e-4, {}).loss(batch)
    texts = [example.positive for example in batch] + [n for example in batch for _, n in example.negatives] + \
        [example.lead for example in batch if example.lead is not None]
    assert parts["teacher_coverage"] == pytest.approx(2 / len(texts))
    assert parts["teacher_ranking"] == 0.0  # the lead's 4.0 is capped at its whole's 1.0: a tie, no pair
    with torch.no_grad():
        scores = objective._forward(texts, torch.device("cpu"))
    lead_index = len(texts) - len(batch) + 0
    expected_mse = ((scores[0] - 1.0) ** 2 + (scores[lead_index] - 1.0) ** 2).item() / 2
    assert parts["teacher_mse"] == pytest.approx(expected_mse, abs=1e-5)
    assert loss.item() == pytest.approx(base.item() + expected_mse, abs=1e-4)


def test_teacher_scores_without_a_weight_or_an_empty_folder_are_refused_in_one_line(tmp_path):
    from coherence_metric.training.pointwise.objective import PointwiseObjectiveSection
    from coherence_metric.training.pointwise.teacher.scores import load_folder

    with pytest.raises(InputError, match="objective.teacher_scores goes with a positive teacher_mse_weight"):
        PointwiseObjectiveSection(teacher_scores=str(tmp_path)).check("recipe.yaml")
    with pytest.raises(InputError, match="no teacher-score part"):
        load_folder(tmp_path)


def test_extras_are_capped_at_their_positive_or_their_long_text():
    from coherence_metric.training.pointwise.objective import extra_texts
    from coherence_metric.training.pointwise.texts import PointwiseExample

    long = [f"Long sentence {n}." for n in range(9)]
    first = PointwiseExample("a", "plain", WHOLE, [], extras=(("cut_first", LEAD), ("long", long),
                                                              ("long_cut_first", long[:1])))
    second = PointwiseExample("b", "plain", OTHER, [], extras=(("extract", OTHER[1:]),))
    texts, caps = extra_texts([first, second], first_index=5)
    assert texts == [LEAD, long, long[:1], OTHER[1:]]
    assert caps == [0, None, 6, 1]  # the cut by positive 0, the long text by nothing, its cut by text 5 + 1
    table = {text_key(" ".join(long)): 0.2, text_key(" ".join(long[:1])): 3.0, text_key(" ".join(LEAD)): 2.0,
             text_key(" ".join(WHOLE)): 0.5}
    targets = stored_targets([WHOLE, OTHER, [], [], [], *texts], table, [None] * 5 + caps)
    assert targets[5:] == [0.5, 0.2, 0.2, None]


def test_a_step_with_pool_extras_learns_their_stored_scores(tiny_bert_dir, tmp_path):
    from coherence_metric.training.pointwise.objective import PointwiseObjective, PointwiseObjectiveSection
    from coherence_metric.training.pointwise.recipe import PointwiseModelSection, PointwiseRecipe, build_model
    from coherence_metric.training.pointwise.texts import PointwiseData

    documents = [Document(f"toy:{n}", "toy", [f"Rain fell on town {n}.", f"The roads of town {n} flooded.",
                                              "Schools stayed shut.", "The mayor spoke."]) for n in range(6)]
    recipe = PointwiseRecipe(model=PointwiseModelSection(backbone=str(tiny_bert_dir), max_length=64))
    model, tokenizer = build_model(recipe)
    data = PointwiseData(corpora=["toy"], min_sentences=4, max_sentences=4, lead_share=1.0, truncation_leads=True,
                         negatives={"shuffle": 1}, seed=3)
    section = PointwiseObjectiveSection(bf16=False, batch_size=2, truncation_weight=0.5, teacher_scores=str(tmp_path),
                                        teacher_mse_weight=1.0, teacher_pool_extras=True)
    plain = PointwiseObjectiveSection(bf16=False, batch_size=2, truncation_weight=0.5)
    batch_plain = PointwiseObjective(model, tokenizer, documents, documents, data, plain, 64, 1e-4, {}).batch(0)
    write_part(tmp_path, Scorer("teacher", "f00", "fp32"), {"0" * 16: 0.0}, {})  # a folder with a part to open
    batch = PointwiseObjective(model, tokenizer, documents, documents, data, section, 64, 1e-4, {}).batch(0)
    assert [example.positive for example in batch] == [example.positive for example in batch_plain]
    assert all(example.extras for example in batch) and not batch_plain[0].extras
    positive, (kind, cut) = batch[0].positive, batch[0].extras[0]
    assert kind == "cut_first" and cut == positive[:1]
    write_part(tmp_path, Scorer("teacher", "f00", "fp32"),
               {text_key(" ".join(positive)): 1.0, text_key(" ".join(cut)): 4.0}, {})
    objective = PointwiseObjective(model, tokenizer, documents, documents, data, section, 64, 1e-4, {})
    for module in model.modules():  # no dropout, so the check below can recompute the step's scores
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    with torch.no_grad():
        _, parts = objective.loss(batch)
    own = [example.positive for example in batch] + [n for example in batch for _, n in example.negatives] + \
        [example.lead for example in batch if example.lead is not None]
    extras = [sentences for example in batch for _, sentences in example.extras]
    covered = [index for index, text in enumerate([*own, *extras]) if text in (positive, cut)]
    assert len(own) in covered and parts["teacher_coverage"] == pytest.approx(len(covered) / (len(own) + len(extras)))
    with torch.no_grad():
        scores = objective._forward([*own, *extras], torch.device("cpu"))
    expected = torch.mean((scores[covered] - 1.0) ** 2).item()  # the cut's 4.0 (and a lead's) capped at 1.0
    assert parts["teacher_mse"] == pytest.approx(expected, abs=1e-5)
    with pytest.raises(InputError, match="teacher_pool_extras needs objective.teacher_scores"):
        PointwiseObjectiveSection(teacher_pool_extras=True).check("recipe.yaml")
