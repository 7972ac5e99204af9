"""The boundary head trained *with* the backbone, on this CPU, on dev data only (issue 41's next step after
``boundary_head_dev``: a frozen pass held part of the transition model's order signal and none of its gain on people's
judgements, so the backbone must move). Nothing here ships or reads a test set.

Start: the weights of ``cm-minilm-joint-long-2026.11`` (the default when this ran; backbone and score head) and a
fresh :class:`BoundaryHead` on the mean last-layer state of each sentence, read from the *same* document pass that
gives the whole-text score, so at scoring time the head costs a few matrix products, not a second model. Each step
takes 8 of the joint recipe's training examples (epoch-0 draw, each positive with its own negatives and its lead) and
adds up:

- the joint recipe's losses on the whole-text score, as it weighs them (logistic 1, own ranking 1, truncation 0.5),
  so the score the default learnt is kept, not forgotten;
- ``--distil`` x the mean squared difference between the head's logit and ``tm-minilm-2026.11``'s logit for each
  boundary (the teacher's logits of these very texts, cached by ``boundary_head_dev``);
- ``--rank`` x a margin ranking of each positive above its own negatives in mean head logit.

Every encoder layer trains (embeddings frozen), at ``--lr`` after 20 warm-up steps, decayed linearly to a tenth;
the boundary head at 1e-3. A state file every 25 steps lets an interrupted run resume (``--out-dir``). Afterwards
every dev text is scored and read by ``dev_report``'s ruler like ``boundary_head_dev``: ``s + w * (mean - c)``
(``c``: the head's mean on training positives), each option paired with the starting checkpoint (its cached dev scores)
and with it plus the transition model's term at the same weight (the opt-in checkpoint's reading). The trainer's
version of this run is ``training/configs/cpu-minilm-joint-boundary.yaml``, which made the 0.7.0 default.

    python -m experiments.boundary_joint_dev --steps 250 --out-dir runs/boundary-joint --out runs/bj.json

``--drop-layer K`` trains a five-layer student instead: the start's weights without encoder layer K (the speed
target's lever, ``layer_drop_dev.py``), read against the six-layer start on the same dev pairs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch
from torch import nn

from coherence_metric import CoherenceScorer
from coherence_metric.training.config import read_recipe_mapping
from coherence_metric.training.pointwise.boundary import BoundaryHead, boundary_losses, scores_and_boundaries
from coherence_metric.training.pointwise.dev_report import (
    DEV_RECIPE,
    dev_documents,
    evaluate_option,
    load_dev_data,
    option_summary,
    paired_difference,
)
from coherence_metric.training.pointwise.objective import text_losses
from coherence_metric.training.pointwise.recipe import recipe_from_mapping
from coherence_metric.training.pointwise.texts import PointwiseExample, make_example, sample_documents

from .boundary_head_dev import centred, fit_head, training_texts

BATCH = 8
TOKENS_PER_PASS = 2048
WARMUP = 20
SAVE_EVERY = 25
#: The checkpoint both runs start from: the default of 0.4.0-0.6.0, whose cached passes the caches below hold.
START = "cm-minilm-joint-long-2026.11"
TEACHER_CACHE = Path("runs/boundary-head-cache/591f5e97f14c-e1-n33187-l3_-1.pt")
FROZEN_CACHE = Path("runs/boundary-head-cache/591f5e97f14c-e1-n15000.pt")


def teacher_targets(out_dir: Path) -> Tuple[List[List[str]], List[int], List[List[float]]]:
    """The epoch-0 training texts, their example index, and the teacher's logit per boundary (read once from
    ``boundary_head_dev``'s cache and kept small in ``out_dir``)."""
    texts, groups = training_texts(1)
    small = out_dir / "teacher-targets.pt"
    if small.is_file():
        targets = torch.load(small)
    else:
        targets = torch.load(TEACHER_CACHE)[1]
        out_dir.mkdir(parents=True, exist_ok=True)
        torch.save(targets, small)
    if len(targets) != len(texts):
        raise SystemExit(f"teacher cache holds {len(targets)} texts, the recipe's draw {len(texts)}")
    return texts, groups, targets


def forward(model: nn.Module, head: BoundaryHead, tokenizer: Any, texts: Sequence[Sequence[str]], max_length: int,
            dtype: str = "bf16") -> Tuple[torch.Tensor, List[torch.Tensor]]:
    """Whole-text scores and boundary logits as a boundary recipe's trainer computes them."""
    return scores_and_boundaries(model, head, tokenizer, texts, max_length, TOKENS_PER_PASS, dtype,
                                 torch.device("cpu"))


def step_loss(model: nn.Module, head: BoundaryHead, tokenizer: Any, examples: Sequence[PointwiseExample],
              targets: Sequence[Sequence[List[float]]], max_length: int, distil: float, rank: float
              ) -> Tuple[torch.Tensor, Dict[str, float]]:
    """The joint recipe's losses on the whole score plus the head's distillation and own ranking (see the module
    docstring); ``targets[i]`` are the teacher logits of example i's positive then each negative."""
    positives = [example.positive for example in examples]
    negatives = [negative for example in examples for _, negative in example.negatives]
    owner = [position for position, example in enumerate(examples) for _ in example.negatives]
    leads = [(position, example.lead) for position, example in enumerate(examples) if example.lead is not None]
    scores, logits = forward(model, head, tokenizer, [*positives, *negatives, *(lead for _, lead in leads)],
                             max_length)
    losses = text_losses(scores, len(positives), owner, [position for position, _ in leads], 1.0)
    logistic, own, truncation = losses["logistic"], losses["own_ranking"], losses["truncation"]
    flat_targets = [values for example in targets for values in example]
    boundary = boundary_losses(logits[:len(positives) + len(negatives)], _reorder(flat_targets, examples), owner,
                               len(positives), 1.0)
    distillation, ranking = boundary.distillation, boundary.ranking
    loss = logistic + own + 0.5 * truncation + distil * distillation + rank * ranking
    return loss, {"logistic": logistic.item(), "own": own.item(), "truncation": truncation.item(),
                  "distil": distillation.item(), "head_rank": ranking.item()}


def _reorder(flat: Sequence[List[float]], examples: Sequence[PointwiseExample]) -> List[List[float]]:
    """Teacher logits listed per example (positive, negatives) reordered as the step lists texts: every positive,
    then every negative."""
    positives, negatives, cursor = [], [], 0
    for example in examples:
        positives.append(flat[cursor])
        negatives.extend(flat[cursor + 1: cursor + 1 + len(example.negatives)])
        cursor += 1 + len(example.negatives)
    return positives + negatives


def train(args: argparse.Namespace, scorer: CoherenceScorer) -> Tuple[BoundaryHead, Dict[str, Any]]:
    """Train (or resume) for ``args.steps`` steps; returns the head and the run's log."""
    recipe = recipe_from_mapping(read_recipe_mapping(DEV_RECIPE, {}), str(DEV_RECIPE))
    documents = sample_documents(recipe.data, "train")
    texts, groups, targets = teacher_targets(args.out_dir)
    members: Dict[int, List[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    model, tokenizer = scorer.model, scorer.tokenizer
    for name, parameter in model.named_parameters():
        parameter.requires_grad = "embeddings" not in name
    torch.manual_seed(args.seed)
    head = BoundaryHead(model.hidden_size, args.width)
    if args.init_head:  # the frozen fit of boundary_head_dev on the default's cached last-layer vectors
        vectors, cached_targets = torch.load(FROZEN_CACHE)
        head, _ = fit_head(vectors, cached_targets, groups[:len(vectors)], seed=args.seed, epochs=15,
                           width=args.width, rank_weight=args.rank)
    encoder = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimiser = torch.optim.AdamW([{"params": encoder, "lr": args.lr, "base": args.lr, "warm": True},
                                   {"params": head.parameters(), "lr": 1e-3, "base": 1e-3, "warm": False}],
                                  weight_decay=1e-2)
    order = list(range(len(documents)))
    random.Random(args.seed).shuffle(order)
    state_file = args.out_dir / "state.pt"
    start, log = 0, []
    if state_file.is_file():
        state = torch.load(state_file)
        model.load_state_dict(state["model"])
        head.load_state_dict(state["head"])
        optimiser.load_state_dict(state["optimiser"])
        start, log = state["step"], state["log"]
        print(f"resumed at step {start}", flush=True)
    model.train()
    head.train()
    for step in range(start, args.steps):
        clock = time.perf_counter()
        progress = step / max(1, args.steps - 1)
        for group in optimiser.param_groups:
            warm = min(1.0, (step + 1) / WARMUP) if group["warm"] else 1.0
            group["lr"] = group["base"] * warm * (1.0 - 0.9 * progress)
        positions = [order[(step * BATCH + slot) % len(order)] for slot in range(BATCH)]
        examples = [make_example(documents[position], documents, recipe.data, epoch=0) for position in positions]
        example_targets = []
        for position, example in zip(positions, examples):
            indices = members[position]
            if texts[indices[0]] != list(example.positive):
                raise SystemExit(f"example {position}'s positive differs from the teacher cache's")
            example_targets.append([targets[index] for index in indices])
        loss, parts = step_loss(model, head, tokenizer, examples, example_targets, scorer.max_length,
                                args.distil, args.rank)
        optimiser.zero_grad()
        loss.backward()
        # One norm over encoder and head, as the recorded runs did and the trainer's grad_clip does.
        torch.nn.utils.clip_grad_norm_([*encoder, *head.parameters()], 1.0)
        optimiser.step()
        log.append({"step": step + 1, "loss": loss.item(), **parts, "seconds": time.perf_counter() - clock})
        if (step + 1) % 10 == 0:
            recent = log[-10:]
            print(f"step {step + 1}: " + " ".join(f"{key} {statistics.fmean(item[key] for item in recent):.3f}"
                                                  for key in ("loss", "logistic", "own", "truncation", "distil",
                                                              "head_rank", "seconds")), flush=True)
        if (step + 1) % SAVE_EVERY == 0 or step + 1 == args.steps:
            torch.save({"model": model.state_dict(), "head": head.state_dict(), "optimiser": optimiser.state_dict(),
                        "step": step + 1, "log": log}, state_file)
    model.eval()
    head.eval()
    positives = [members[position][0] for position in sorted(members)]
    with torch.no_grad():
        _, values = forward(model, head, tokenizer, [texts[index] for index in positives], scorer.max_length)
    centre = statistics.fmean(float(value.mean()) for value in values if len(value))
    return head, {"log": log, "centre": centre}


def dev_parts(scorer: CoherenceScorer, head: BoundaryHead, documents: Dict[str, List[List[str]]]
              ) -> Tuple[Dict[str, List[float]], Dict[str, List[List[float]]]]:
    """Every dev text's whole score (the scorer's, which reads a text longer than ``max_length`` in windows) and
    boundary logits (those inside ``max_length``) from the trained model, fp32."""
    whole: Dict[str, List[float]] = {}
    values: Dict[str, List[List[float]]] = {}
    with torch.no_grad():
        for key, texts in documents.items():
            whole[key] = scorer.score([list(text) for text in texts]).scores
            _, logits = forward(scorer.model, head, scorer.tokenizer, texts, scorer.max_length, "fp32")
            values[key] = [value.tolist() for value in logits]
    return whole, values


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=250)
    parser.add_argument("--lr", type=float, default=1e-5)
    parser.add_argument("--distil", type=float, default=0.5)
    parser.add_argument("--rank", type=float, default=1.0)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--init-head", action="store_true",
                        help="start the head from a frozen fit on the default's cached vectors (15,000 texts)")
    parser.add_argument("--drop-layer", type=int, default=None,
                        help="train a student without this encoder layer (layer_drop_dev.py: the speed target)")
    parser.add_argument("--weights", default="0,0.1,0.2,0.3")
    parser.add_argument("--out-dir", type=Path, default=Path("runs/boundary-joint"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(2)
    started = time.perf_counter()
    scorer = CoherenceScorer(START, dtype="fp32")
    default_cache = Path("runs/boundary-head-cache") / f"{scorer.fingerprint}-dev.pt"
    default_whole, _, taught = torch.load(default_cache)
    if args.drop_layer is not None:
        from .layer_drop_dev import drop_layer

        drop_layer(scorer, args.drop_layer)
    head, run = train(args, scorer)
    trained_seconds = time.perf_counter() - started
    data = load_dev_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole, values = dev_parts(scorer, head, dev_documents(data))
    student = centred(whole, values, run["centre"])
    baseline = evaluate_option(data, default_whole, taught, 0.0)
    options: List[Dict[str, Any]] = []
    for weight in (float(value) for value in args.weights.split(",")):
        option = evaluate_option(data, whole, student, weight)
        option["reading"] = "jointly trained head"
        option["vs_default"] = paired_difference(baseline["credits"], option["credits"])
        options.append(option)
        if weight > 0:
            reference = evaluate_option(data, default_whole, taught, weight)
            reference["reading"] = "default + transition model"
            reference["vs_default"] = paired_difference(baseline["credits"], reference["credits"])
            option["vs_teacher_term"] = paired_difference(reference["credits"], option["credits"])
            options.append(reference)
    baseline["reading"] = "default"
    for option in [baseline, *options]:
        option.pop("credits", None)
        print(f"{option['reading']} w={option['weight']}: "
              + option_summary(option, [(key, key) for key in ("vs_default", "vs_teacher_term")]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"args": {key: str(value) for key, value in vars(args).items()},
                                    "centre": run["centre"], "log": run["log"], "default": baseline,
                                    "options": options, "seconds": {"train": trained_seconds,
                                                                    "total": time.perf_counter() - started}},
                                   indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
