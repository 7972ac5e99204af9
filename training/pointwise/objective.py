"""The pointwise objective: every text on one scale, coherent above corrupted, across texts.

The paper's losses rank a text against its own permutations only, so nothing ties the scores of two different
texts together, and comparing different texts is the whole use of a metric (two systems' summaries of one
article). Here each text is classified on its own (logistic loss, coherent = 1, corrupted = 0, both classes
weighted equally), optionally plus a margin ranking of every positive above every negative *of the batch*,
other texts' negatives included. Either makes a score mean the same thing whatever text it belongs to.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import torch
from torch import nn

from coherence_metric import CoherenceModel, load_checkpoint, save_checkpoint
from coherence_metric.errors import InputError
from coherence_metric.toolkit import TransitionModel, autocast_context, plan_batches, resolve_model, window_units

from ..checks import refuse_failed
from ..evaluation import score_documents
from ..trainer import encode
from .boundary import BoundaryHead, boundary_losses, scores_and_boundaries
from .dev_checks import build_dev_texts, run_dev_checks
from .teacher.pool import EXTRA_CAPS, pool_extras
from .teacher.scores import load_folder
from .teacher.targets import stored_targets, teacher_mse, teacher_ranking
from .texts import PointwiseData, PointwiseExample, make_example

FLAVOURS = ("delta", "full", "adapter")


@dataclass
class PointwiseObjectiveSection:
    """``objective:`` of a pointwise recipe.

    Attributes:
        batch_size: texts (each with its negatives) per step.
        logistic_weight: weight of the per-text logistic loss.
        ranking_weight: weight of the in-batch margin ranking (every positive above every negative of the batch).
        margin: the ranking's margin (in-batch and own).
        own_ranking_weight: weight of a margin ranking of each text above its *own* negatives (its shuffles, swapped
            pairs, intruded copies): the seed paper's task, kept in the same step as the cross-text losses so one
            model both orders texts against their corruptions and puts different texts on one scale.
        tokens_per_pass: padded tokens per forward pass of a step, texts sorted by length (None: the whole step in one
            padded pass, as recipes before it did).
        truncation_weight: weight of the squared score difference between a text and its lead
            (``data.truncation_leads``): a text cut short is neither better nor worse than the whole.
        truncation_one_sided: count that difference only where the lead scores above its whole text (a lead
            below the whole is what a metric should say of a text cut short, so it is not pulled up).
        one_sided_min_sentences: with ``truncation_one_sided``, only texts of at least this many sentences are
            one-sided; shorter ones keep the squared difference both ways (None: every text one-sided). Lifting long
            texts above their leads also lifts short texts above theirs, a lean towards longer texts; holding short
            texts level both ways is meant to keep that lean off the short texts a metric mostly scores.
        lead_negative_weight: weight of a margin ranking of each lead above its whole text's negatives (cut to the
            whole's length with ``data.length_matched``): a shorter coherent text above a longer broken one. Holding
            a long text above its lead alone can be learnt as "more sentences score higher"; these pairs make that
            shortcut cost, so length itself stops paying.
        head_lr: learning rate of the fresh linear head (None: the loop's ``lr``); a larger one lets the head
            find its direction while the encoder moves slowly.
        bf16: bf16 autocast in training (several times faster on CPUs with AMX/AVX512-BF16).
        save_flavour: ``delta`` (trained tensors only over the named backbone; small enough to ship), ``full``, or
            ``adapter`` (the LoRA adapters of ``model.lora`` over the named backbone).
        delta_bf16: store a delta's tensors in bf16.
        boundary_distil_weight: weight of the boundary head's distillation from ``boundary_teacher``
            (:mod:`.boundary`: a head on the document pass's sentence vectors, a training signal only; 0 with
            ``boundary_rank_weight`` 0: no head).
        boundary_rank_weight: weight of the boundary head's ranking of each text above its own negatives.
        boundary_teacher: the packaged transition model (or folder) whose boundary logits the head learns.
        boundary_lr: the boundary head's learning rate (a fresh head; the encoder moves at the loop's rate).
        boundary_width: the boundary head's hidden width.
        score_teacher: a coherence checkpoint (packaged name or folder) whose whole-text score the model learns to
            give: on the same backbone, a smaller student (``model.num_layers``) kept close to the model it
            replaces; on another backbone (the accurate tier teaching the default), read with its own tokenizer and
            ``max_length``.
        score_distil_weight: weight of the mean squared difference between the model's and the teacher's score of
            every text of a step (positives, negatives and leads); 0: no teacher.
        window_long: score a text longer than ``max_length`` tokens as the mean of its sentence windows, as the
            metric does (:func:`~coherence_metric.scoring.windows.window_units`), instead of cutting it at
            ``max_length``, so the losses act on the number users get (a text cut at the limit never showed its whole
            to the truncation loss): pair it with long texts (``data.long_max_sentences``) and
            ``data.truncation_leads`` to hold long texts level with their leads.
        teacher_scores: a folder of a teacher's stored scores of the recipe's texts (:mod:`.teacher.score_pool`,
            computed once, in parts), learnt without running the teacher in the step: texts it holds no score for
            take no part in the two terms below. A lead's target is capped at its whole text's
            (:mod:`.teacher.targets`).
        teacher_mse_weight: weight of the mean squared difference between the model's score and the stored one.
        teacher_rank_weight: weight of a logistic ranking of every pair of the step's texts that the stored scores
            order by more than ``teacher_rank_gap`` (the teacher's order across documents, without its scale).
        teacher_rank_gap: stored scores closer than this are not a pair to rank.
        teacher_pool_extras: each step also scores the pool's other texts of its documents (the positive's cuts and
            extract; every ``teacher_long_every``-th visit, a 300-800-word text, its shuffle and two cuts) and learns
            the stored scores of them alone, each capped at its whole's: the long texts users score are otherwise
            never seen in a step.
        teacher_cap_margin: a lead, cut or extract whose stored score is above its whole's gets the whole's score
            minus this as its target (0: level with the whole, a tie the student may break either way).
        teacher_long_every: the pool's ``long_every`` (``score_pool --long-every``), so a step rebuilds the same
            long texts the teacher scored.
    """

    batch_size: int = 8
    logistic_weight: float = 1.0
    ranking_weight: float = 0.0
    margin: float = 1.0
    own_ranking_weight: float = 0.0
    truncation_weight: float = 0.0
    truncation_one_sided: bool = False
    one_sided_min_sentences: Optional[int] = None
    lead_negative_weight: float = 0.0
    tokens_per_pass: Optional[int] = None
    head_lr: Optional[float] = 1e-3
    bf16: bool = True
    save_flavour: str = "delta"
    delta_bf16: bool = True
    boundary_distil_weight: float = 0.0
    boundary_rank_weight: float = 0.0
    boundary_teacher: str = "tm-minilm-2026.11"
    boundary_lr: float = 1e-3
    boundary_width: int = 256
    score_teacher: Optional[str] = None
    score_distil_weight: float = 0.0
    window_long: bool = False
    teacher_scores: Optional[str] = None
    teacher_mse_weight: float = 0.0
    teacher_rank_weight: float = 0.0
    teacher_rank_gap: float = 0.1
    teacher_pool_extras: bool = False
    teacher_cap_margin: float = 0.0
    teacher_long_every: int = 2

    @property
    def boundary(self) -> bool:
        """Whether the recipe trains a boundary head beside the score."""
        return self.boundary_distil_weight > 0 or self.boundary_rank_weight > 0

    def check(self, where: str) -> None:
        """Raise InputError naming the first bad key."""
        checks = [
            (self.batch_size >= 1, "objective.batch_size must be >= 1"),
            (min(self.logistic_weight, self.ranking_weight, self.own_ranking_weight, self.truncation_weight,
                 self.lead_negative_weight) >= 0
             and self.logistic_weight + self.ranking_weight + self.own_ranking_weight > 0,
             "objective: loss weights >= 0, not all of logistic/ranking/own_ranking 0"),
            (self.one_sided_min_sentences is None or (self.truncation_one_sided
                                                      and self.one_sided_min_sentences >= 2),
             "objective.one_sided_min_sentences needs truncation_one_sided: true and a value >= 2 (or null)"),
            (self.head_lr is None or self.head_lr > 0, "objective.head_lr must be positive (or null)"),
            (self.tokens_per_pass is None or self.tokens_per_pass >= 1, "objective.tokens_per_pass must be >= 1"),
            (self.save_flavour in FLAVOURS, f"objective.save_flavour must be one of {', '.join(FLAVOURS)}"),
            (min(self.boundary_distil_weight, self.boundary_rank_weight) >= 0,
             "objective.boundary_distil_weight and boundary_rank_weight must be >= 0"),
            (self.boundary_lr > 0 and self.boundary_width >= 1,
             "objective.boundary_lr must be positive and boundary_width >= 1"),
            (self.score_distil_weight >= 0 and (self.score_distil_weight == 0) == (self.score_teacher is None),
             "objective.score_teacher and a positive score_distil_weight go together"),
            (min(self.teacher_mse_weight, self.teacher_rank_weight, self.teacher_rank_gap) >= 0
             and (self.teacher_mse_weight + self.teacher_rank_weight > 0) == (self.teacher_scores is not None),
             "objective.teacher_scores goes with a positive teacher_mse_weight or teacher_rank_weight (weights and "
             "teacher_rank_gap >= 0)"),
            (self.teacher_cap_margin >= 0, "objective.teacher_cap_margin must be >= 0"),
            (not self.teacher_pool_extras or (self.teacher_scores is not None and self.teacher_long_every >= 0),
             "objective.teacher_pool_extras needs objective.teacher_scores (and teacher_long_every >= 0)"),
            (not (self.window_long and self.boundary),
             "objective.window_long does not apply to a boundary head's pass: turn one of them off"),
        ]
        refuse_failed(checks, where)


def pointwise_losses(positive: torch.Tensor, negative: torch.Tensor,
                     margin: float) -> Tuple[torch.Tensor, torch.Tensor]:
    """(logistic, ranking) losses of positive and negative scores.

    logistic = (mean softplus(-s+) + mean softplus(s-)) / 2: the two classes weigh the same whatever their counts.
    ranking = mean over every (positive, negative) pair of the batch of max(0, margin - (s+ - s-)).
    """
    logistic = 0.5 * (nn.functional.softplus(-positive).mean() + nn.functional.softplus(negative).mean())
    ranking = torch.clamp(margin - (positive[:, None] - negative[None, :]), min=0.0).mean()
    return logistic, ranking


def own_ranking_loss(positive: torch.Tensor, negative: torch.Tensor, margin: float) -> torch.Tensor:
    """Mean of max(0, margin - (s+ - s-)) over each negative and the positive it was made from (aligned tensors)."""
    return torch.clamp(margin - (positive - negative), min=0.0).mean()


def text_losses(scores: torch.Tensor, n_positives: int, owner: Sequence[int], lead_owners: Sequence[int],
                margin: float, one_sided: Union[bool, Sequence[bool]] = False) -> Dict[str, torch.Tensor]:
    """The losses on one step's whole-text scores, listed positives, then negatives (negative j made from positive
    ``owner[j]``), then leads (lead k cut from positive ``lead_owners[k]``): ``logistic`` and in-batch ``ranking``
    (:func:`pointwise_losses`), ``own_ranking`` (:func:`own_ranking_loss`), ``truncation`` (the mean squared
    difference between each lead and its whole text, or with ``one_sided`` only where the lead scores above the
    whole, for every lead or, given one flag per lead, for the leads flagged; 0 without leads) and ``lead_negative``
    (the mean of max(0, margin - (lead - negative)) over each lead and every negative of its whole text; 0 where no
    lead's text has a negative)."""
    device = scores.device
    positive = scores[:n_positives]
    negative = scores[n_positives:n_positives + len(owner)]
    logistic, ranking = pointwise_losses(positive, negative, margin)
    own = own_ranking_loss(positive[torch.tensor(list(owner), device=device)], negative, margin)
    truncation = torch.zeros((), device=device)
    lead_negative = torch.zeros((), device=device)
    if lead_owners:
        whole = positive[torch.tensor(list(lead_owners), device=device)]
        lead = scores[n_positives + len(owner):]
        excess = lead - whole
        flags = [one_sided] * len(lead_owners) if isinstance(one_sided, bool) else list(one_sided)
        kept = torch.where(torch.tensor(flags, device=device), torch.relu(excess), excess)
        truncation = (kept ** 2).mean()
        pairs = [(k, j) for k, text in enumerate(lead_owners) for j, made_from in enumerate(owner) if made_from == text]
        if pairs:
            leads_at = torch.tensor([k for k, _ in pairs], device=device)
            negatives_at = torch.tensor([j for _, j in pairs], device=device)
            lead_negative = own_ranking_loss(lead[leads_at], negative[negatives_at], margin)
    return {"logistic": logistic, "ranking": ranking, "own_ranking": own, "truncation": truncation,
            "lead_negative": lead_negative}


def ranking_auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """P(a random positive scores above a random negative of *another or the same* text), ties half."""
    pos = torch.tensor(list(positive), dtype=torch.float64)
    neg = torch.tensor(list(negative), dtype=torch.float64)
    difference = pos[:, None] - neg[None, :]
    return float(((difference > 0).double() + 0.5 * (difference == 0).double()).mean())


@dataclass
class ScoreTeacher:
    """A frozen checkpoint whose score a student learns, and how to read a text for it: its own tokenizer and
    ``max_length`` (the student's when both stand on the same backbone, where the two tokenizers are one)."""

    model: CoherenceModel
    tokenizer: Any
    max_length: int


def refuse_added_terms(name: str, teacher: CoherenceModel) -> None:
    """Refuse a teacher whose score adds a term to the document pass, which a student could not learn from it.

    Raises:
        InputError: naming the checkpoint.
    """
    if (teacher.sentence_scorer is not None or teacher.cohesion_weight is not None
            or teacher.local_weight is not None or teacher.transition_term is not None):
        raise InputError(f"objective.score_teacher {name!r} adds a term to its document score, which the student "
                         "could not learn from the document pass: name its base checkpoint")


def load_score_teacher(name: str, student: CoherenceModel, student_tokenizer: Any,
                       student_max_length: int) -> ScoreTeacher:
    """The frozen, eval-mode document model of checkpoint ``name``, on the student's device. It must score with the
    document pass alone; on another backbone than the student's (weights sha256) it reads texts with its own
    tokenizer and ``max_length``, so an mpnet teacher can teach a MiniLM student."""
    loaded = load_checkpoint(resolve_model(name, local_files_only=True).folder)
    teacher = loaded.model
    refuse_added_terms(name, teacher)
    teacher.eval().requires_grad_(False)
    same = teacher.backbone_spec.weights_sha256 == student.backbone_spec.weights_sha256
    return ScoreTeacher(teacher.to(next(student.parameters()).device),
                        student_tokenizer if same else loaded.tokenizer,
                        student_max_length if same else teacher.max_length)


def extra_texts(batch: Sequence[PointwiseExample], first_index: int) -> Tuple[List[List[str]],
                                                                                List[Optional[int]]]:
    """The batch's extras in order, placed after ``first_index`` texts (the step's own, whose first
    ``len(batch)`` are the positives), and for each the index of the text that caps its stored target: its
    positive, or the long text of the same example (None when there is none)."""
    texts: List[List[str]] = []
    caps: List[Optional[int]] = []
    for position, example in enumerate(batch):
        long_index: Optional[int] = None
        for kind, sentences in example.extras:
            cap_kind = EXTRA_CAPS[kind]
            caps.append(position if cap_kind == "positive" else long_index if cap_kind == "long" else None)
            if kind == "long":
                long_index = first_index + len(texts)
            texts.append(list(sentences))
    return texts, caps


class PointwiseObjective:
    """The :class:`coherence_metric.training.loop.Objective` of a pointwise recipe (batches addressed by position)."""

    def __init__(self, model: CoherenceModel, tokenizer: Any, train: Sequence[Any], dev: Sequence[Any],
                 data: PointwiseData, section: PointwiseObjectiveSection, max_length: int, loop_lr: float,
                 training_info: Dict[str, Any]) -> None:
        if not train or not dev:
            raise InputError("a pointwise recipe needs train and dev documents")
        self.module: nn.Module = model
        self.model, self.tokenizer = model, tokenizer
        self.boundary_head: Optional[BoundaryHead] = None
        self.teacher: Optional[TransitionModel] = None
        if section.boundary:
            self.boundary_head = BoundaryHead(model.hidden_size, section.boundary_width).to(
                next(model.parameters()).device)
            self.teacher = TransitionModel(section.boundary_teacher)
            # Resume restores the head too; the checkpoint (save) is the model alone.
            self.module = nn.ModuleDict({"model": model, "boundary_head": self.boundary_head})
        self.score_teacher = None if section.score_teacher is None else load_score_teacher(
            section.score_teacher, model, tokenizer, max_length)
        self.stored_scores: Optional[Dict[str, float]] = None
        if section.teacher_scores is not None:
            _, stored = load_folder(Path(section.teacher_scores))
            self.stored_scores = stored.scores
        self.train, self.data, self.section, self.max_length = list(train), data, section, max_length
        self.dev_examples = [make_example(document, dev, data, epoch=0) for document in dev]
        self.dev_texts = build_dev_texts(dev)
        self.training_info = training_info
        self.head_lr_scale = 1.0 if section.head_lr is None else section.head_lr / loop_lr
        self.loop_lr = loop_lr

    def parameter_groups(self) -> List[Dict[str, Any]]:
        """The head at ``head_lr`` / the loop's ``lr`` times the scheduled rate, every other trainable tensor at it;
        a boundary head, when the recipe has one, at ``boundary_lr`` / the loop's ``lr`` times it."""
        head = [parameter for parameter in self.model.head.parameters() if parameter.requires_grad]
        head_ids = {id(parameter) for parameter in head}
        rest = [parameter for parameter in self.model.parameters() if parameter.requires_grad
                and id(parameter) not in head_ids]
        groups = [{"params": rest, "lr_scale": 1.0}, {"params": head, "lr_scale": self.head_lr_scale}]
        if self.boundary_head is not None:
            groups.append({"params": list(self.boundary_head.parameters()),
                           "lr_scale": self.section.boundary_lr / self.loop_lr})
        return groups

    def batch(self, position: int) -> List[PointwiseExample]:
        """``batch_size`` examples; pass e over the data visits the documents in its own seeded order."""
        examples = []
        for slot in range(self.section.batch_size):
            epoch, visit = divmod(position * self.section.batch_size + slot, len(self.train))
            document = self.train[self._order(epoch)[visit]]
            example = make_example(document, self.train, self.data, epoch)
            if self.section.teacher_pool_extras:
                example = replace(example, extras=pool_extras(example, document, self.data, epoch, visit,
                                                              self.section.teacher_long_every))
            examples.append(example)
        return examples

    @functools.lru_cache(maxsize=2)  # noqa: B019  (one objective per run; a batch may straddle two passes)
    def _order(self, epoch: int) -> List[int]:
        """The seeded order in which pass ``epoch`` visits the training documents (shuffled once per pass)."""
        order = list(range(len(self.train)))
        random.Random(f"{self.data.seed}:order:{epoch}").shuffle(order)
        return order

    def loss(self, batch: List[PointwiseExample]) -> Tuple[torch.Tensor, Dict[str, float]]:
        """The weighted logistic, in-batch ranking, own ranking, truncation and lead-negative losses of the batch's
        texts, all scored in one forward pass."""
        self.model.train()
        positives = [example.positive for example in batch]
        negatives = [negative for example in batch for _, negative in example.negatives]
        owner = [position for position, example in enumerate(batch) for _ in example.negatives]
        leads = [(position, example.lead) for position, example in enumerate(batch) if example.lead is not None]
        if self.section.truncation_weight == 0 and self.section.lead_negative_weight == 0:
            leads = []
        if not negatives:
            raise InputError("no negative could be made for a whole batch: turn on more data.negatives kinds")
        device = next(self.model.parameters()).device
        texts = [*positives, *negatives, *(lead for _, lead in leads)]
        own_count = len(texts)
        extras, extra_caps = extra_texts(batch, own_count) if self.stored_scores is not None else ([], [])
        texts += extras
        boundary_logits: List[torch.Tensor] = []
        if self.boundary_head is None:
            scores = self._forward(texts, device)
        else:
            scores, boundary_logits = scores_and_boundaries(
                self.model, self.boundary_head, self.tokenizer, texts, self.max_length, self.section.tokens_per_pass,
                "bf16" if self.section.bf16 else "fp32", device)
        one_sided: Union[bool, List[bool]] = self.section.truncation_one_sided
        if one_sided and self.section.one_sided_min_sentences is not None:
            one_sided = [len(batch[position].positive) >= self.section.one_sided_min_sentences
                         for position, _ in leads]
        losses = text_losses(scores[:own_count], len(positives), owner, [position for position, _ in leads],
                             self.section.margin, one_sided)
        loss = (self.section.logistic_weight * losses["logistic"] + self.section.ranking_weight * losses["ranking"]
                + self.section.own_ranking_weight * losses["own_ranking"]
                + self.section.truncation_weight * losses["truncation"]
                + self.section.lead_negative_weight * losses["lead_negative"])
        parts = {name: value.item() for name, value in losses.items()}
        if self.teacher is not None:
            with torch.inference_mode(), autocast_context("bf16" if self.section.bf16 else "fp32", device):
                targets = self.teacher.transition_values([*positives, *negatives])
            boundary = boundary_losses(boundary_logits[: len(positives) + len(negatives)], targets, owner,
                                       len(positives), self.section.margin)
            loss = (loss + self.section.boundary_distil_weight * boundary.distillation
                    + self.section.boundary_rank_weight * boundary.ranking)
            parts.update({"boundary_distillation": boundary.distillation.item(),
                          "boundary_ranking": boundary.ranking.item()})
        if self.score_teacher is not None:
            with torch.no_grad():
                taught = self._forward(texts, device, self.score_teacher.model, self.score_teacher.tokenizer,
                                       self.score_teacher.max_length)
            distillation = torch.mean((scores - taught) ** 2)
            loss = loss + self.section.score_distil_weight * distillation
            parts["score_distillation"] = distillation.item()
        if self.stored_scores is not None:
            capped_by = [None] * (len(positives) + len(negatives)) + [position for position, _ in leads] + extra_caps
            targets = stored_targets(texts, self.stored_scores, capped_by, self.section.teacher_cap_margin)
            mse, ranking = teacher_mse(scores, targets), teacher_ranking(scores, targets, self.section.teacher_rank_gap)
            loss = loss + self.section.teacher_mse_weight * mse + self.section.teacher_rank_weight * ranking
            parts.update({"teacher_mse": mse.item(), "teacher_ranking": ranking.item(),
                          "teacher_coverage": sum(target is not None for target in targets) / len(targets)})
        return loss, parts

    def _forward(self, texts: List[List[str]], device: torch.device, model: Optional[CoherenceModel] = None,
                 tokenizer: Any = None, max_length: Optional[int] = None) -> torch.Tensor:
        """Scores of ``texts`` in input order by ``model`` (the student unless told), read with ``tokenizer`` and
        ``max_length`` (the student's unless told); with ``window_long``, a text over ``max_length`` tokens scores
        the mean of its sentence windows, as the metric scores it."""
        model = self.model if model is None else model
        tokenizer = self.tokenizer if tokenizer is None else tokenizer
        max_length = self.max_length if max_length is None else max_length
        if not self.section.window_long:
            return self._score_units(texts, device, model, tokenizer, max_length)
        units, owners = window_units(tokenizer, texts, max_length)
        unit_scores = self._score_units(units, device, model, tokenizer, max_length)
        index = torch.tensor(owners, device=device)
        totals = torch.zeros(len(texts), device=device).index_add(0, index, unit_scores)
        counts = torch.zeros(len(texts), device=device).index_add(0, index, torch.ones_like(unit_scores))
        return totals / counts

    def _score_units(self, texts: List[List[str]], device: torch.device, model: CoherenceModel, tokenizer: Any,
                     max_length: int) -> torch.Tensor:
        """Scores of ``texts`` each cut at ``max_length``: one padded pass, or (``tokens_per_pass``) length-sorted
        passes under a padded-token budget, since a step mixing 256-token windows with one-sentence texts would
        otherwise pad every text to 256 tokens."""
        if self.section.tokens_per_pass is None:
            input_ids, mask = encode(tokenizer, texts, max_length, device)
            with autocast_context("bf16" if self.section.bf16 else "fp32", device):
                return model(input_ids, mask).float()
        lengths = [len(ids) for ids in tokenizer([" ".join(text) for text in texts], truncation=True,
                                                 max_length=max_length)["input_ids"]]
        passes = plan_batches(lengths, self.section.tokens_per_pass)
        parts: List[torch.Tensor] = []
        for batch in passes:
            input_ids, mask = encode(tokenizer, [texts[index] for index in batch], max_length, device)
            with autocast_context("bf16" if self.section.bf16 else "fp32", device):
                parts.append(model(input_ids, mask).float())
        order = torch.tensor([index for batch in passes for index in batch], device=device)
        scores = torch.empty(len(texts), device=device)
        return scores.index_put((order,), torch.cat(parts))

    def evaluate(self) -> Dict[str, float]:
        """On the fixed dev examples: own-pair accuracy, cross-text AUC, their mean (``select``), per kind."""
        documents = [example.positive for example in self.dev_examples]
        documents += [negative for example in self.dev_examples for _, negative in example.negatives]
        scores = score_documents(self.model, self.tokenizer, documents, self.max_length)
        self.model.train()
        positives, cursor = scores[: len(self.dev_examples)], len(self.dev_examples)
        wins: Dict[str, List[float]] = {}
        negative_scores = []
        for example, positive in zip(self.dev_examples, positives):
            for kind, _ in example.negatives:
                value = scores[cursor]
                cursor += 1
                negative_scores.append(value)
                wins.setdefault(kind, []).append(1.0 if positive > value else 0.5 if positive == value else 0.0)
        every = [win for kind_wins in wins.values() for win in kind_wins]
        accuracy = sum(every) / len(every)
        auc = ranking_auc(positives, negative_scores)
        result = {"accuracy": accuracy, "auc": auc, "select": (accuracy + auc) / 2}
        result.update({f"accuracy_{kind}": sum(values) / len(values) for kind, values in wins.items()})
        checks = run_dev_checks(self.dev_texts, lambda texts: score_documents(self.model, self.tokenizer, texts,
                                                                              self.max_length))
        self.model.train()
        result.update(checks)
        # Both halves of coherence: generator-like errors across texts, and order within a text.
        result["select_joint"] = (accuracy + auc + checks["own_shuffle"]) / 3
        return result

    def after_step(self) -> None:
        """Nothing to do after a step."""

    def save(self, folder: Path) -> None:
        """Write a coherence checkpoint (``delta`` by default: small enough to ship in the package)."""
        delta_dtype = torch.bfloat16 if self.section.delta_bf16 and self.section.save_flavour == "delta" else None
        save_checkpoint(self.model, folder, tokenizer=self.tokenizer, flavour=self.section.save_flavour,
                        delta_dtype=delta_dtype, training=self.training_info)
