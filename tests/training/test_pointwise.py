"""``family: pointwise``: short generator-shaped texts, generator-like negatives, one logistic scale."""

from __future__ import annotations

import json
import math

import pytest
import torch

from coherence_metric.errors import InputError
from coherence_metric.research.documents import Document
from coherence_metric.training.pointwise.objective import pointwise_losses, ranking_auc
from coherence_metric.training.pointwise.recipe import recipe_from_mapping, run_recipe
from coherence_metric.training.pointwise.texts import PointwiseData, make_example, sample_documents, styled

DOCUMENT = Document("toy:1", "toy", ["Anna Berg opened a bakery in Oslo in 1998.", "She sold it in 2004 to a chain.",
                                     "The chain closed it two years later.", "Locals still miss the bread.",
                                     "A new cafe opened there in 2010.", "It serves coffee from Kenya."])
POOL = [Document(f"toy:{n}", "toy", [f"Rain fell on town {n} all day.", f"The roads of town {n} flooded.",
                                     "Schools stayed shut."]) for n in range(2, 8)]


def test_an_example_is_a_short_cut_of_its_document_with_the_asked_negatives_in_one_style():
    data = PointwiseData(min_sentences=3, max_sentences=3, lead_share=1.0, styles={"lower": 1.0},
                         negatives={"shuffle": 2, "repeat_sentence": 1, "topic_switch": 1})
    example = make_example(DOCUMENT, [DOCUMENT, *POOL], data, epoch=0)
    assert example.positive == [sentence.lower() for sentence in DOCUMENT.sentences[:3]]
    kinds = [kind for kind, _ in example.negatives]
    assert kinds == ["shuffle", "shuffle", "repeat_sentence", "topic_switch"]
    for _, negative in example.negatives:
        assert negative != example.positive and all(sentence == sentence.lower() for sentence in negative)
    assert example == make_example(DOCUMENT, [DOCUMENT, *POOL], data, epoch=0)
    assert example != make_example(DOCUMENT, [DOCUMENT, *POOL], data, epoch=1)


def test_negatives_per_text_keeps_a_seeded_sample_in_kind_order():
    data = PointwiseData(min_sentences=4, max_sentences=4, negatives={"shuffle": 2, "repeat_sentence": 1,
                                                                      "cut_off": 1}, negatives_per_text=2)
    every = make_example(DOCUMENT, POOL, PointwiseData(**{**data.__dict__, "negatives_per_text": None}), epoch=0)
    sampled = make_example(DOCUMENT, POOL, data, epoch=0)
    assert len(every.negatives) == 4 and len(sampled.negatives) == 2
    assert all(negative in every.negatives for negative in sampled.negatives)


def test_one_sentence_texts_are_positives_and_get_only_the_kinds_that_apply():
    data = PointwiseData(min_sentences=1, max_sentences=1, styles={"plain": 1.0},
                         negatives={"shuffle": 1, "repeat_sentence": 1})
    example = make_example(DOCUMENT, POOL, data, epoch=0)
    assert len(example.positive) == 1 and [kind for kind, _ in example.negatives] == ["repeat_sentence"]


def test_styles_write_a_text_the_way_evaluation_data_arrives():
    assert styled(["It's late, Ann."], "lower_tokenised") == ["it 's late , ann ."]
    assert styled(["It's late, Ann."], "plain") == ["It's late, Ann."]


def test_logistic_and_ranking_losses_by_hand():
    logistic, ranking = pointwise_losses(torch.tensor([0.0]), torch.tensor([0.0]), margin=1.0)
    assert logistic.item() == pytest.approx(math.log(2)) and ranking.item() == pytest.approx(1.0)
    logistic, ranking = pointwise_losses(torch.tensor([2.0]), torch.tensor([-1.0, 1.0]), margin=1.0)
    softplus = lambda x: math.log1p(math.exp(x))  # noqa: E731
    assert logistic.item() == pytest.approx(0.5 * (softplus(-2.0) + 0.5 * (softplus(-1.0) + softplus(1.0))))
    assert ranking.item() == pytest.approx(0.0)  # 2 - (-1) = 3 and 2 - 1 = 1 both reach the margin


def test_cross_text_auc_counts_every_positive_against_every_negative_ties_half():
    assert ranking_auc([3.0, 1.0], [2.0, 0.0]) == pytest.approx(0.75)
    assert ranking_auc([1.0], [1.0]) == pytest.approx(0.5)


def test_a_recipe_naming_an_unknown_kind_or_style_is_refused_by_name():
    with pytest.raises(InputError, match="unknown kinds \\['typo'\\]"):
        recipe_from_mapping({"family": "pointwise", "data": {"negatives": {"typo": 1}}}, "recipe.yaml")
    with pytest.raises(InputError, match="data.styles"):
        recipe_from_mapping({"family": "pointwise", "data": {"styles": {"shouting": 1.0}}}, "recipe.yaml")
    with pytest.raises(InputError, match="save_flavour: full"):  # found when the head-only ablation failed to save
        recipe_from_mapping({"family": "pointwise", "model": {"train_layers": 0}}, "recipe.yaml")


def test_train_and_dev_documents_come_from_their_own_splits(shared_data):
    from coherence_metric.research.splits import split_of

    data = PointwiseData(corpora=["lee"], train_documents=5, dev_documents=3, decontaminate=False)
    train, dev = sample_documents(data, "train"), sample_documents(data, "dev")
    assert len(train) == 5 and 1 <= len(dev) <= 3
    assert {split_of(document.id) for document in train} == {"train"}
    assert {split_of(document.id) for document in dev} == {"dev"}


def test_a_short_run_writes_a_checkpoint_the_scorer_loads_and_the_head_steps_faster(shared_data, tiny_bert_dir,
                                                                                   tmp_path):
    from coherence_metric import CoherenceScorer

    recipe = tmp_path / "pointwise.yaml"
    recipe.write_text(json.dumps({
        "family": "pointwise",
        "model": {"backbone": str(tiny_bert_dir), "max_length": 64, "train_layers": 1},
        "data": {"corpora": ["lee"], "train_documents": 6, "dev_documents": 2, "decontaminate": False,
                 "negatives": {"shuffle": 1, "cut_off": 1}},
        "objective": {"batch_size": 2, "head_lr": 1e-2, "bf16": False, "save_flavour": "full"},
        "loop": {"output_dir": str(tmp_path / "run"), "max_steps": 2, "eval_every": 1, "lr": 1e-4},
    }), encoding="utf-8")
    result = run_recipe(recipe, {}, progress=False)
    assert result["steps"] == 2 and result["select"] == "select"
    records = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    evaluations = [record for record in records if "eval_select" in record]
    assert len(evaluations) == 3 and all(0.0 <= record["eval_auc"] <= 1.0 for record in evaluations)
    scores = CoherenceScorer(str(tmp_path / "run" / "best")).score(["One sentence here.", "Two. Sentences."]).scores
    assert len(scores) == 2 and all(math.isfinite(value) for value in scores)
    state = torch.load(tmp_path / "run" / "loop_state.pt", weights_only=True)
    head_group, rest_group = state["optimizer"]["param_groups"][1], state["optimizer"]["param_groups"][0]
    assert head_group["lr_scale"] == pytest.approx(100.0) and rest_group["lr_scale"] == 1.0
    assert head_group["lr"] == pytest.approx(100.0 * rest_group["lr"])


# ---------------------------------------------------------------------------------------------- the joint recipe


def test_length_matched_negatives_never_have_more_sentences_than_their_positive():
    data = PointwiseData(min_sentences=3, max_sentences=3, lead_share=1.0, styles={"plain": 1.0},
                         negatives={"repeat_sentence": 2, "near_repeat": 1, "contradiction": 1, "shuffle": 1},
                         length_matched=True)
    for epoch in range(5):
        example = make_example(DOCUMENT, [DOCUMENT, *POOL], data, epoch)
        assert example.negatives and all(len(negative) <= 3 for _, negative in example.negatives)
        assert all(negative != example.positive for _, negative in example.negatives)
    unmatched = make_example(DOCUMENT, [DOCUMENT, *POOL], PointwiseData(**{**data.__dict__, "length_matched": False}),
                             epoch=0)
    assert any(len(negative) == 4 for _, negative in unmatched.negatives)


def test_long_windows_and_leads_are_drawn_only_when_asked():
    plain = PointwiseData(min_sentences=2, max_sentences=2, negatives={"shuffle": 1})
    long = PointwiseData(**{**plain.__dict__, "long_share": 1.0, "long_min_sentences": 5, "long_max_sentences": 5,
                            "truncation_leads": True})
    assert make_example(DOCUMENT, POOL, plain, epoch=0).lead is None
    example = make_example(DOCUMENT, POOL, long, epoch=0)
    assert len(example.positive) == 5 and example.lead is not None
    assert 1 <= len(example.lead) < 5 and example.positive[: len(example.lead)] == example.lead
    with pytest.raises(InputError, match="long_min_sentences"):
        recipe_from_mapping({"family": "pointwise", "data": {"long_min_sentences": 9, "long_max_sentences": 3}}, "r")


@pytest.mark.parametrize("cut, count, expected", [("first", 12, 1), ("third", 12, 4), ("half", 12, 6),
                                                   ("half", 2, 1), ("third", 2, 1), ("half", 3, 1)])
def test_a_named_lead_cut_keeps_that_share_of_the_sentences_and_never_the_whole(cut, count, expected):
    import random

    from coherence_metric.training.pointwise.texts import lead_length

    assert lead_length(count, [cut], random.Random(0)) == expected


def test_lead_cuts_draw_among_the_named_cuts_and_an_unknown_cut_is_refused_by_name():
    data = PointwiseData(min_sentences=6, max_sentences=6, lead_share=1.0, negatives={"shuffle": 1},
                         truncation_leads=True, lead_cuts=["first", "half"])
    leads = {len(make_example(DOCUMENT, POOL, data, epoch=epoch).lead) for epoch in range(20)}
    assert leads == {1, 3}
    with pytest.raises(InputError, match=r"data.lead_cuts: unknown cuts \['quarter'\]"):
        recipe_from_mapping({"family": "pointwise", "data": {"lead_cuts": ["first", "quarter"]}}, "r")


def test_lead_min_sentences_gives_leads_to_long_texts_only():
    data = PointwiseData(min_sentences=3, max_sentences=3, lead_share=1.0, long_share=0.5, long_min_sentences=6,
                         long_max_sentences=6, negatives={"shuffle": 1}, truncation_leads=True, lead_min_sentences=6)
    examples = [make_example(DOCUMENT, POOL, data, epoch=epoch) for epoch in range(20)]
    assert {len(example.positive) for example in examples} == {3, 6}
    assert all((example.lead is not None) == (len(example.positive) == 6) for example in examples)
    with pytest.raises(InputError, match="data.lead_min_sentences must be >= 2"):
        recipe_from_mapping({"family": "pointwise", "data": {"lead_min_sentences": 1}}, "r")


def test_window_long_trains_on_the_score_the_metric_gives_a_long_text(tiny_bert_dir):
    """With ``objective.window_long`` a text over ``max_length`` scores, in training, the mean of the same sentence
    windows the scorer averages, so a loss on it acts on the number users get; without it the text is cut."""
    from coherence_metric import CoherenceScorer
    from coherence_metric.scoring.windows import window_units
    from coherence_metric.training.pointwise.objective import PointwiseObjective, PointwiseObjectiveSection
    from coherence_metric.training.pointwise.recipe import PointwiseModelSection, PointwiseRecipe, build_model

    recipe = PointwiseRecipe(model=PointwiseModelSection(backbone=str(tiny_bert_dir), max_length=32))
    model, tokenizer = build_model(recipe)
    long_text = DOCUMENT.sentences + POOL[0].sentences
    texts = [long_text, DOCUMENT.sentences[:1]]
    units, owners = window_units(tokenizer, texts, 32)
    assert owners.count(1) == 1 and owners.count(0) >= 3 and units[-1] == DOCUMENT.sentences[:1]
    scorer = CoherenceScorer.from_model(model, tokenizer, "tiny", max_length=32)
    expected = torch.tensor(scorer.score(texts).scores)
    assert scorer.score(texts).n_windowed == 1
    scores = {}
    for window_long in (True, False):
        section = PointwiseObjectiveSection(bf16=False, tokens_per_pass=256, window_long=window_long)
        objective = PointwiseObjective(model, tokenizer, [DOCUMENT], [DOCUMENT], PointwiseData(), section, 32,
                                       1e-4, {})
        model.eval()
        scores[window_long] = objective._forward(texts, torch.device("cpu"))
    assert scores[True].requires_grad
    assert torch.allclose(scores[True].detach(), expected, atol=1e-5)
    assert not torch.isclose(scores[False][0].detach(), expected[0], atol=1e-4)
    assert torch.isclose(scores[False][1].detach(), expected[1], atol=1e-5)


def test_window_long_with_a_boundary_head_is_refused_in_one_line():
    with pytest.raises(InputError, match="window_long does not apply to a boundary head"):
        recipe_from_mapping({"family": "pointwise",
                             "objective": {"window_long": True, "boundary_rank_weight": 1.0}}, "r")


def test_own_ranking_loss_by_hand():
    from coherence_metric.training.pointwise.objective import own_ranking_loss

    loss = own_ranking_loss(torch.tensor([1.0, 1.0, 0.0]), torch.tensor([0.5, 3.0, -2.0]), margin=1.0)
    assert loss.item() == pytest.approx((0.5 + 3.0 + 0.0) / 3)


def test_a_steps_text_losses_by_hand():
    """Scores listed positives, negatives, leads: each negative against its own positive, each lead against its
    whole text."""
    from coherence_metric.training.pointwise.objective import text_losses

    scores = torch.tensor([2.0, 0.0, 1.5, -1.0, 1.0])  # 2 positives, 2 negatives (of positives 0 and 1), 1 lead of 0
    losses = text_losses(scores, 2, owner=[0, 1], lead_owners=[0], margin=1.0)
    assert losses["own_ranking"].item() == pytest.approx((0.5 + 0.0) / 2)
    assert losses["truncation"].item() == pytest.approx(1.0)
    logistic, ranking = pointwise_losses(scores[:2], scores[2:4], 1.0)
    assert losses["logistic"].item() == logistic.item() and losses["ranking"].item() == ranking.item()
    assert text_losses(scores[:4], 2, [0, 1], [], 1.0)["truncation"].item() == 0.0


def test_a_one_sided_truncation_loss_counts_only_leads_above_their_whole_text():
    from coherence_metric.training.pointwise.objective import text_losses

    # 2 positives (2.0, 0.0), 2 negatives, leads: 1.0 of text 0 (below it), 0.5 of text 1 (0.5 above it)
    scores = torch.tensor([2.0, 0.0, 1.5, -1.0, 1.0, 0.5])
    assert text_losses(scores, 2, [0, 1], [0, 1], 1.0)["truncation"].item() == pytest.approx((1.0 + 0.25) / 2)
    assert text_losses(scores, 2, [0, 1], [0, 1], 1.0, one_sided=True)["truncation"].item() == pytest.approx(0.25 / 2)


@pytest.mark.slow
def test_a_joint_run_logs_the_order_and_truncation_checks_and_passes_split_by_length(shared_data, tiny_bert_dir,
                                                                                      tmp_path):
    recipe = tmp_path / "joint.yaml"
    recipe.write_text(json.dumps({
        "family": "pointwise",
        "model": {"backbone": str(tiny_bert_dir), "max_length": 64, "train_layers": None},
        "data": {"corpora": ["lee"], "train_documents": 6, "dev_documents": 3, "decontaminate": False,
                 "long_share": 0.5, "length_matched": True, "truncation_leads": True,
                 "negatives": {"shuffle": 1, "adjacent_swap": 1, "pronoun_switch": 1, "repeat_sentence": 1}},
        "objective": {"batch_size": 2, "bf16": False, "save_flavour": "full", "own_ranking_weight": 1.0,
                      "truncation_weight": 1.0, "truncation_one_sided": True, "one_sided_min_sentences": 4,
                      "lead_negative_weight": 0.5, "tokens_per_pass": 64},
        "loop": {"output_dir": str(tmp_path / "run"), "max_steps": 2, "eval_every": 2, "lr": 1e-4,
                 "select": "select_joint"},
    }), encoding="utf-8")
    result = run_recipe(recipe, {}, progress=False)
    assert result["steps"] == 2 and result["select"] == "select_joint"
    records = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    steps = [record for record in records if "own_ranking" in record]
    assert steps and all(record["truncation"] >= 0 and record["lead_negative"] >= 0 for record in steps)
    evaluation = [record for record in records if "eval_select_joint" in record][-1]
    for key in ("eval_own_shuffle", "eval_first_beats_whole"):
        assert 0.0 <= evaluation[key] <= 1.0
    assert -1.0 <= evaluation["eval_count_spearman"] <= 1.0


def test_passes_split_by_length_score_like_one_pass(tiny_bert_dir):
    """``tokens_per_pass`` only regroups a step's texts: the scores (and so the losses) are the same."""
    from coherence_metric.training.pointwise.objective import PointwiseObjective, PointwiseObjectiveSection
    from coherence_metric.training.pointwise.recipe import PointwiseModelSection, PointwiseRecipe, build_model

    recipe = PointwiseRecipe(model=PointwiseModelSection(backbone=str(tiny_bert_dir), max_length=64))
    model, tokenizer = build_model(recipe)
    model.eval()
    texts = [DOCUMENT.sentences[:n] for n in (1, 6, 2, 4)]
    scores = []
    for budget in (None, 40):
        section = PointwiseObjectiveSection(bf16=False, tokens_per_pass=budget)
        objective = PointwiseObjective(model, tokenizer, [DOCUMENT], [DOCUMENT], PointwiseData(), section, 64,
                                       1e-4, {})
        with torch.no_grad():
            scores.append(objective._forward(texts, torch.device("cpu")))
    assert torch.allclose(scores[0], scores[1], atol=1e-5)


def test_a_student_run_keeps_the_first_layers_and_its_checkpoint_loads_cut(shared_data, tiny_bert_dir, tmp_path):
    """``model.num_layers`` trains a cut model (a speed lever); the delta checkpoint records the depth, the
    scorer loads it cut over the same backbone, and a recipe starting from it keeps that depth."""
    from coherence_metric import CoherenceScorer
    from coherence_metric.models.layers import encoder_layers
    from coherence_metric.training.pointwise.recipe import PointwiseModelSection, PointwiseRecipe, build_model

    recipe = tmp_path / "student.yaml"
    recipe.write_text(json.dumps({
        "family": "pointwise",
        "model": {"backbone": str(tiny_bert_dir), "max_length": 64, "train_layers": None, "num_layers": 1},
        "data": {"corpora": ["lee"], "train_documents": 4, "dev_documents": 2, "decontaminate": False,
                 "negatives": {"shuffle": 1}},
        "objective": {"batch_size": 2, "bf16": False, "save_flavour": "delta"},
        "loop": {"output_dir": str(tmp_path / "run"), "max_steps": 1, "eval_every": 1, "lr": 1e-4},
    }), encoding="utf-8")
    run_recipe(recipe, {}, progress=False)
    final = tmp_path / "run" / "final"
    assert json.loads((final / "coherence_config.json").read_text())["num_layers"] == 1
    scorer = CoherenceScorer(str(final))
    assert len(encoder_layers(scorer.model.backbone)) == 1
    assert all(math.isfinite(value) for value in scorer.score(["One sentence.", "Two. Sentences."]).scores)
    restarted, _ = build_model(PointwiseRecipe(model=PointwiseModelSection(
        backbone=str(tiny_bert_dir), max_length=64, train_layers=None, init_checkpoint=str(final))))
    assert restarted.num_layers == 1 and len(encoder_layers(restarted.backbone)) == 1


@pytest.mark.parametrize("count, message", [(0, "model.num_layers must be a positive integer"),
                                            (3, "num_layers must be between 1 and the backbone's 2 layers, got 3")])
def test_a_student_depth_outside_the_backbone_is_refused(tiny_bert_dir, count, message):
    from coherence_metric.training.pointwise.recipe import build_model

    with pytest.raises(InputError, match=message):
        build_model(recipe_from_mapping({"family": "pointwise", "model": {"backbone": str(tiny_bert_dir),
                                                                          "num_layers": count}}, "student.yaml"))


def _distillation_logged(recipe: dict, tmp_path) -> list:
    """Run ``recipe`` (its loop writes to ``tmp_path/run``) and return the ``score_distillation`` it logged."""
    path = tmp_path / "student.yaml"
    path.write_text(json.dumps(recipe), encoding="utf-8")
    run_recipe(path, {}, progress=False)
    records = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    return [record["score_distillation"] for record in records if "score_distillation" in record]


def test_a_student_learns_its_teachers_score_and_a_teacher_adding_a_term_is_refused(shared_data, tiny_bert_dir,
                                                                                     bert_checkpoint, tmp_path):
    """``objective.score_teacher``: the step adds the squared score difference to a frozen checkpoint (logged as
    ``score_distillation``); a teacher whose score adds a term the document pass cannot learn is refused."""
    import shutil

    teacher = tmp_path / "teacher"
    shutil.copytree(bert_checkpoint, teacher)
    recipe = {
        "family": "pointwise",
        "model": {"backbone": str(tiny_bert_dir), "max_length": 64, "train_layers": None, "num_layers": 1,
                  "init_checkpoint": str(teacher)},
        "data": {"corpora": ["lee"], "train_documents": 4, "dev_documents": 2, "decontaminate": False,
                 "negatives": {"shuffle": 1}},
        "objective": {"batch_size": 2, "bf16": False, "save_flavour": "full", "score_teacher": str(teacher),
                      "score_distil_weight": 1.0},
        "loop": {"output_dir": str(tmp_path / "run"), "max_steps": 2, "eval_every": 2, "lr": 1e-4},
    }
    logged = _distillation_logged(recipe, tmp_path)
    assert logged and all(math.isfinite(value) and value >= 0 for value in logged)

    with pytest.raises(InputError, match="score_teacher and a positive score_distil_weight go together"):
        recipe_from_mapping({**recipe, "objective": {"score_distil_weight": 1.0}}, "student.yaml")
    from transformers import AutoTokenizer

    from coherence_metric.models.checkpoint import save_checkpoint
    from coherence_metric.training.pointwise.objective import load_score_teacher
    from coherence_metric.training.pointwise.recipe import build_model

    other, _ = build_model(recipe_from_mapping({"family": "pointwise", "model": {
        "backbone": str(tiny_bert_dir), "max_length": 64}}, "student.yaml"))
    with_term = tmp_path / "with-term"
    other.cohesion_weight = torch.tensor(1.0)
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    save_checkpoint(other, with_term, tokenizer=tokenizer, flavour="full")
    with pytest.raises(InputError, match="adds a term to its document score"):
        load_score_teacher(str(with_term), other, tokenizer, 64)


def test_a_teacher_on_another_backbone_reads_texts_with_its_own_tokenizer(shared_data, tiny_bert_dir,
                                                                          xlnet_checkpoint, tmp_path):
    """The default taught by the accurate tier: a teacher on another backbone scores each text as
    its own scorer does (its tokenizer, its max_length), and the student learns that score."""
    from transformers import AutoTokenizer

    from coherence_metric import CoherenceScorer
    from coherence_metric.training.pointwise.objective import load_score_teacher
    from coherence_metric.training.pointwise.recipe import build_model
    from coherence_metric.training.trainer import encode

    recipe = {
        "family": "pointwise",
        "model": {"backbone": str(tiny_bert_dir), "max_length": 64, "train_layers": None},
        "data": {"corpora": ["lee"], "train_documents": 4, "dev_documents": 2, "decontaminate": False,
                 "negatives": {"shuffle": 1}},
        "objective": {"batch_size": 2, "bf16": False, "save_flavour": "full", "score_teacher": str(xlnet_checkpoint),
                      "score_distil_weight": 1.0},
        "loop": {"output_dir": str(tmp_path / "run"), "max_steps": 2, "eval_every": 2, "lr": 1e-4},
    }
    student, _ = build_model(recipe_from_mapping(recipe, "student.yaml"))
    student_tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    teacher = load_score_teacher(str(xlnet_checkpoint), student, student_tokenizer, 64)
    assert teacher.tokenizer is not student_tokenizer and type(teacher.tokenizer).__name__.startswith("XLNet")
    reference = CoherenceScorer(str(xlnet_checkpoint), dtype="fp32", device="cpu")
    assert teacher.max_length == reference.max_length
    texts = [["The river rose overnight.", "By morning the bridge was closed."], ["A short one."]]
    with torch.no_grad():
        taught = teacher.model(*encode(teacher.tokenizer, texts, teacher.max_length, "cpu")).tolist()
    assert taught == pytest.approx(reference.score(texts).scores, abs=1e-5)  # what the teacher's users get

    logged = _distillation_logged(recipe, tmp_path)
    assert logged and all(math.isfinite(value) and value >= 0 for value in logged)


@pytest.mark.slow
def test_a_lora_run_trains_adapters_alone_and_its_checkpoint_scores_as_the_trained_model(shared_data, tiny_bert_dir,
                                                                                        tmp_path):
    """``model.lora`` (the accurate tier's way to stay a few MB over a 110M backbone): only the adapters and the head
    train, the pooler is never adapted, and the ``adapter`` checkpoint scores exactly as the model did in memory."""
    from safetensors.torch import load_file

    from coherence_metric import CoherenceScorer
    from coherence_metric.models.checkpoint import load_checkpoint
    from coherence_metric.training.evaluation import score_documents
    from coherence_metric.training.pointwise.recipe import build_model, load_pointwise_recipe

    recipe = tmp_path / "lora.yaml"
    recipe.write_text(json.dumps({
        "family": "pointwise",
        "model": {"backbone": str(tiny_bert_dir), "max_length": 64, "train_layers": None,
                  "lora": {"r": 4, "alpha": 8}},
        "data": {"corpora": ["lee"], "train_documents": 4, "dev_documents": 2, "decontaminate": False,
                 "negatives": {"shuffle": 1}},
        "objective": {"batch_size": 2, "bf16": False, "save_flavour": "adapter"},
        "loop": {"output_dir": str(tmp_path / "run"), "max_steps": 2, "eval_every": 2, "lr": 1e-2},
    }), encoding="utf-8")
    model, tokenizer = build_model(load_pointwise_recipe(recipe))
    trainable = [name for name, parameter in model.named_parameters() if parameter.requires_grad]
    assert trainable and all("lora_" in name or name.startswith("head.") for name in trainable)
    assert not any("pooler" in name for name, _ in model.named_parameters() if "lora_" in name)
    assert any(".attention.self.query.lora_A" in name for name in trainable)
    run_recipe(recipe, {}, progress=False)
    final = tmp_path / "run" / "final"
    config = json.loads((final / "coherence_config.json").read_text())
    assert config["flavour"] == "adapter" and "adapter/adapter_model.safetensors" in config["files"]
    adapter = load_file(str(final / "adapter" / "adapter_model.safetensors"))
    assert any("lora_B" in name and float(tensor.abs().max()) > 0 for name, tensor in adapter.items())  # trained
    texts = [["Rain fell all day.", "The roads flooded."], ["The roads flooded.", "Rain fell all day.", "Odd."]]
    loaded = CoherenceScorer(str(final), dtype="fp32").score(texts).scores
    assert all(math.isfinite(value) for value in loaded)
    # The adapters are applied: the same head over the bare backbone scores otherwise.
    bare, _ = build_model(load_pointwise_recipe(recipe, {"model.lora": None, "model.train_layers": 0,
                                                        "objective.save_flavour": "full"}))
    bare.head.load_state_dict(load_checkpoint(final).model.head.state_dict())
    assert score_documents(bare, tokenizer, texts, 64) != pytest.approx(loaded, abs=1e-4)


@pytest.mark.parametrize("model, objective, message", [
    ({"train_layers": 2, "lora": {"r": 4}}, {"save_flavour": "adapter"}, "set model.train_layers: null"),
    ({"train_layers": None, "lora": {"r": 4}}, {"save_flavour": "delta"}, "objective.save_flavour: adapter"),
    ({"train_layers": None}, {"save_flavour": "adapter"}, "adapter needs a model.lora section"),
    ({"train_layers": None, "lora": {"r": 0}}, {"save_flavour": "adapter"}, "model.lora needs r >= 1"),
    ({"train_layers": None, "lora": {"rank": 4}}, {"save_flavour": "adapter"}, "unknown key 'rank'"),
])
def test_a_lora_section_that_cannot_train_or_save_is_refused_in_one_line(model, objective, message):
    with pytest.raises(InputError, match=message):
        recipe_from_mapping({"family": "pointwise", "model": model, "objective": objective}, "r.yaml")


def test_wrapping_the_backbone_in_lora_shows_no_peft_deprecation(tiny_bert_dir):
    """peft reads transformers' deprecated ``is_gradient_checkpointing``; that warning is about peft, not the
    recipe, and was printed once per LoRA training run."""
    import warnings

    from coherence_metric.training.pointwise.recipe import build_model

    recipe = recipe_from_mapping({"family": "pointwise", "model": {
        "backbone": str(tiny_bert_dir), "train_layers": None, "lora": {"r": 4, "target_modules": ["query"]}},
        "objective": {"save_flavour": "adapter"}}, "r.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model, _ = build_model(recipe)
    assert type(model.backbone).__name__.startswith("Peft")
    assert not [str(w.message) for w in caught if "is_gradient_checkpointing" in str(w.message)]


def test_lora_targets_the_backbone_lacks_are_refused(tiny_bert_dir):
    from coherence_metric.training.pointwise.recipe import build_model

    recipe = recipe_from_mapping({"family": "pointwise", "model": {
        "backbone": str(tiny_bert_dir), "train_layers": None, "lora": {"r": 4, "target_modules": ["nowhere"]}},
        "objective": {"save_flavour": "adapter"}}, "r.yaml")
    with pytest.raises(InputError, match="match no Linear layer"):
        build_model(recipe)


def test_a_lead_negative_loss_ranks_each_lead_above_its_own_texts_negatives_only():
    """A lead (a shorter coherent text) above every negative made from its whole text, by the margin; negatives of
    a text without a lead take no part."""
    from coherence_metric.training.pointwise.objective import text_losses

    # positives 2.0, 0.0; negatives 1.5 (of 0), -1.0 (of 1), 0.8 (of 0); one lead of text 0 scoring 1.0
    scores = torch.tensor([2.0, 0.0, 1.5, -1.0, 0.8, 1.0])
    losses = text_losses(scores, 2, owner=[0, 1, 0], lead_owners=[0], margin=1.0)
    assert losses["lead_negative"].item() == pytest.approx(((1.0 - (1.0 - 1.5)) + (1.0 - (1.0 - 0.8))) / 2)
    assert text_losses(scores[:5], 2, [0, 1, 0], [], 1.0)["lead_negative"].item() == 0.0


def test_a_lead_negative_weight_without_leads_is_refused_in_one_line():
    with pytest.raises(InputError, match="lead_negative_weight ranks leads above negatives.*truncation_leads"):
        recipe_from_mapping({"family": "pointwise", "objective": {"lead_negative_weight": 0.5}}, "r")


def test_a_truncation_loss_one_sided_per_lead_counts_flagged_leads_only_above_their_text():
    from coherence_metric.training.pointwise.objective import text_losses

    # the same step as above: lead of text 0 is 1.0 below it, lead of text 1 is 0.5 above it
    scores = torch.tensor([2.0, 0.0, 1.5, -1.0, 1.0, 0.5])
    both_ways_for_the_first = text_losses(scores, 2, [0, 1], [0, 1], 1.0, one_sided=[False, True])["truncation"]
    assert both_ways_for_the_first.item() == pytest.approx((1.0 + 0.25) / 2)
    assert text_losses(scores, 2, [0, 1], [0, 1], 1.0, one_sided=[True, True])["truncation"].item() == pytest.approx(
        0.25 / 2)


def test_one_sided_min_sentences_without_a_one_sided_loss_is_refused_in_one_line():
    with pytest.raises(InputError, match="one_sided_min_sentences needs truncation_one_sided"):
        recipe_from_mapping({"family": "pointwise", "objective": {"one_sided_min_sentences": 12}}, "r")
