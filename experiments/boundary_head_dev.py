"""A boundary head on the default's own document pass, distilled from the transition model, on dev data only (issue
41's next step: the transition term's order gain at the default's cost). Nothing here ships or reads a test set.

The default's backbone runs once over a text, as the scorer's document pass does; each sentence's vector is the mean
of its token states (``--layers``: the last layer's, or several layers' side by side); a small head reads
``[a, b, a * b, a - b]`` of each adjacent pair (``a`` before ``b``, so order is visible) and is trained to give the
transition model's logit for that boundary (mean squared error; ``--rank-weight`` adds a margin ranking of each
positive above its own negatives in mean head logit). Training texts are the joint recipe's training texts (each
positive and its negatives, one draw per epoch). The backbone stays frozen, so the whole-text score does not move;
only the head is new, and it costs a few matrix products per text.

Each weight ``w`` is then read by ``dev_report``'s ruler exactly as the transition term was
(``experiments/transition_term_dev.py``): ``(1 - w) * score + w * mean(head logits)`` for texts of 2+ sentences
(``--centre``: ``score + w * (mean - c)``, ``c`` the head's mean over training positives), with each option's paired
difference from ``w = 0`` and, with ``--with-teacher``, from the transition model's own term at the same weight (same
dev pairs). Results and what they show: experiments/README.md.

    python -m experiments.boundary_head_dev --layers 3,-1 --rank-weight 1 --centre --with-teacher \\
        --out runs/boundary-head-dev.json
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
from coherence_metric.scoring.batching import pad_batch
from coherence_metric.scoring.runtime import autocast_context
from coherence_metric.scoring.transition_pass import TransitionModel
from coherence_metric.training.config import read_recipe_mapping
from coherence_metric.training.pointwise.boundary import BoundaryHead, boundary_features, sentence_token_ids
from coherence_metric.training.pointwise.dev_report import (
    DEV_RECIPE,
    dev_documents,
    evaluate_option,
    load_dev_data,
    option_summary,
    paired_difference,
)
from coherence_metric.training.pointwise.recipe import recipe_from_mapping
from coherence_metric.training.pointwise.texts import make_example, sample_documents

BATCH = 32


def sentence_vectors(scorer: CoherenceScorer, texts: Sequence[Sequence[str]], dtype: str = "fp32",
                     batch: int = BATCH, layers: Sequence[int] = (-1,)) -> List[torch.Tensor]:
    """Per text, the mean state of each sentence's tokens in one pass over the whole text ([k, H * len(layers)], the
    k sentences that fit in ``max_length``; a sentence cut off entirely is left out, so they are a prefix), the
    states of each of ``layers`` (hidden-state indices: 0 the embeddings, -1 the last layer) side by side."""
    tokenizer, model = scorer.tokenizer, scorer.model
    encoded = [sentence_token_ids(tokenizer, list(text), scorer.max_length) for text in texts]
    order = sorted(range(len(texts)), key=lambda index: len(encoded[index][0]))
    out: List[Optional[torch.Tensor]] = [None] * len(texts)
    left = getattr(tokenizer, "padding_side", "right") == "left"
    with torch.inference_mode(), autocast_context(dtype, torch.device("cpu")):
        for first in range(0, len(order), batch):
            chunk = order[first:first + batch]
            padded = pad_batch(tokenizer, [encoded[index][0] for index in chunk], limit=scorer.max_length)
            states = model.backbone(input_ids=padded["input_ids"], attention_mask=padded["attention_mask"],
                                    output_hidden_states=True).hidden_states
            hidden = torch.cat([states[layer] for layer in layers], dim=-1).float()
            for row, index in enumerate(chunk):
                owners = torch.tensor(encoded[index][1])
                start = hidden.shape[1] - len(owners) if left else 0
                count = int(owners.max().item()) + 1
                keep = owners >= 0
                sums = torch.zeros((count, hidden.shape[-1]))
                sums.index_add_(0, owners[keep], hidden[row, start:start + len(owners)][keep])
                sizes = torch.bincount(owners[keep], minlength=count).clamp(min=1).unsqueeze(-1)
                out[index] = (sums / sizes).clone()
    assert all(vectors is not None for vectors in out)
    return [vectors for vectors in out if vectors is not None]


def training_texts(epochs: int) -> Tuple[List[List[str]], List[int]]:
    """The joint recipe's training positives and negatives, one draw per epoch (the texts the default learnt on), and
    each text's example index; an example's positive comes first."""
    recipe = recipe_from_mapping(read_recipe_mapping(DEV_RECIPE, {}), str(DEV_RECIPE))
    documents = sample_documents(recipe.data, "train")
    texts: List[List[str]] = []
    groups: List[int] = []
    for epoch in range(epochs):
        for position, document in enumerate(documents):
            example = make_example(document, documents, recipe.data, epoch=epoch)
            group = epoch * len(documents) + position
            texts.append(list(example.positive))
            texts.extend(list(negative) for _, negative in example.negatives)
            groups.extend([group] * (1 + len(example.negatives)))
    return texts, groups


def teacher_values(teacher: TransitionModel, texts: Sequence[Sequence[str]]) -> List[List[float]]:
    """The transition model's logit per boundary, in bf16 autocast (targets need not be exact)."""
    with autocast_context("bf16", torch.device("cpu")):
        return teacher.transition_values(texts)


def ranking_loss(head: BoundaryHead, features: Sequence[torch.Tensor], groups: Sequence[int],
                 selected: Sequence[int], margin: float) -> torch.Tensor:
    """Each example's positive above each of its negatives by ``margin`` in mean head logit (texts of 2+ sentences;
    ``features[i]`` are text i's boundary features), in one head pass over every selected text's boundaries."""
    kept = [index for index in selected if features[index].shape[0] > 0]
    if not kept:
        return torch.zeros(())
    owners = torch.cat([torch.full((features[index].shape[0],), row) for row, index in enumerate(kept)])
    logits = head(torch.cat([features[index] for index in kept]))
    means = torch.zeros(len(kept)).index_add(0, owners, logits) / torch.bincount(owners, minlength=len(kept))
    row_of = {index: row for row, index in enumerate(kept)}
    first: Dict[int, int] = {}
    for index in sorted(selected):
        first.setdefault(groups[index], index)
    pairs = [(row_of[first[groups[index]]], row_of[index]) for index in kept
             if first[groups[index]] != index and first[groups[index]] in row_of]
    if not pairs:
        return torch.zeros(())
    positive = means[torch.tensor([a for a, _ in pairs])]
    negative = means[torch.tensor([b for _, b in pairs])]
    return torch.relu(margin - (positive - negative)).mean()


def fit_head(vectors: Sequence[torch.Tensor], targets: Sequence[Sequence[float]], groups: Sequence[int],
             seed: int = 0, epochs: int = 30, width: int = 256, rank_weight: float = 0.0,
             margin: float = 1.0) -> Tuple[BoundaryHead, Dict[str, Any]]:
    """Train the head on 90% of the texts' boundaries (split by example) and report MSE and Pearson r on the other
    10%; with ``rank_weight`` each step also ranks the positives of 32 training examples above their negatives."""
    rng = random.Random(seed)
    indices = [index for index, value in enumerate(vectors) if value.shape[0] > 1]
    example_ids = sorted(set(groups))
    rng.shuffle(example_ids)
    held_examples = set(example_ids[: len(example_ids) // 10])
    held = {index for index in indices if groups[index] in held_examples}
    members: Dict[int, List[int]] = {}
    for index, group in enumerate(groups):
        if group not in held_examples:
            members.setdefault(group, []).append(index)
    train_groups = sorted(members)
    text_features = [boundary_features(value) for value in vectors] if rank_weight > 0 else []

    def stack(selected: Sequence[int]) -> Tuple[torch.Tensor, torch.Tensor]:
        features, values = [], []
        for index in selected:
            count = vectors[index].shape[0] - 1
            features.append(boundary_features(vectors[index]))
            values.append(torch.tensor(targets[index][:count], dtype=torch.float32))
        return torch.cat(features), torch.cat(values)

    train_x, train_y = stack([index for index in indices if index not in held])
    held_x, held_y = stack(sorted(held))
    torch.manual_seed(seed)
    head = BoundaryHead(train_x.shape[-1] // 4, width)
    optimiser = torch.optim.AdamW(head.parameters(), lr=1e-3, weight_decay=1e-2)
    best: Tuple[float, Dict[str, Any]] = (float("inf"), {})
    history = []
    for epoch in range(epochs):
        permutation = torch.randperm(train_x.shape[0])
        head.train()
        for first in range(0, len(permutation), 256):
            rows = permutation[first:first + 256]
            loss = nn.functional.mse_loss(head(train_x[rows]), train_y[rows])
            if rank_weight > 0:
                chosen = rng.sample(train_groups, 32)
                loss = loss + rank_weight * ranking_loss(head, text_features, groups,
                                                         [index for group in chosen for index in members[group]],
                                                         margin)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        head.eval()
        with torch.no_grad():
            predicted = head(held_x)
            mse = float(nn.functional.mse_loss(predicted, held_y))
            r = float(torch.corrcoef(torch.stack([predicted, held_y]))[0, 1])
        history.append({"epoch": epoch + 1, "held_mse": mse, "held_r": r})
        if mse < best[0]:
            best = (mse, {key: value.clone() for key, value in head.state_dict().items()})
    head.load_state_dict(best[1])
    return head, {"rank_weight": rank_weight, "margin": margin, "train_boundaries": int(train_x.shape[0]),
                  "held_boundaries": int(held_x.shape[0]),
                  "held_target_var": float(held_y.var()), "history": history,
                  "best": min(history, key=lambda item: item["held_mse"])}


def head_values(head: BoundaryHead, vectors: Sequence[torch.Tensor]) -> List[List[float]]:
    """Per text, the head's logit for each boundary inside ``max_length``."""
    with torch.no_grad():
        return [head(boundary_features(value)).tolist() if value.shape[0] > 1 else [] for value in vectors]


def _passes(scorer: CoherenceScorer, teacher: TransitionModel, texts: Sequence[Sequence[str]], cache: Path,
            timings: Dict[str, float], layers: Sequence[int], teacher_cache: Optional[Path] = None
            ) -> Tuple[List[torch.Tensor], List[List[float]]]:
    """Sentence vectors and teacher logits of the training texts, read back from ``cache`` when it exists (the
    passes are the slow part; head variants reuse them)."""
    if cache.is_file():
        vectors, targets = torch.load(cache)
        return vectors, targets
    clock = time.perf_counter()
    vectors = sentence_vectors(scorer, texts, layers=layers)
    timings["student_pass"] = time.perf_counter() - clock
    clock = time.perf_counter()
    if teacher_cache is not None and teacher_cache.is_file():  # the same texts read by other layers
        targets = torch.load(teacher_cache)[1]
    else:
        targets = teacher_values(teacher, texts)
    timings["teacher_pass"] = time.perf_counter() - clock
    cache.parent.mkdir(parents=True, exist_ok=True)
    torch.save((vectors, targets), cache)
    return vectors, targets


DevPasses = Tuple[Dict[str, List[float]], Dict[str, List[torch.Tensor]], Dict[str, List[List[float]]]]


def _dev_passes(scorer: CoherenceScorer, teacher: TransitionModel, documents: Dict[str, List[List[str]]],
                cache: Path, layers: Sequence[int], teacher_cache: Optional[Path] = None) -> DevPasses:
    """Every dev text's whole score (the scorer, fp32), sentence vectors and teacher logits, cached like
    :func:`_passes`."""
    if cache.is_file():
        whole, vectors, taught = torch.load(cache)
        return whole, vectors, taught
    whole, vectors, taught = {}, {}, {}
    known = torch.load(teacher_cache) if teacher_cache is not None and teacher_cache.is_file() else None
    for key, texts in documents.items():
        vectors[key] = sentence_vectors(scorer, texts, layers=layers)
        if known is not None:  # the same texts read by other layers
            whole[key], taught[key] = known[0][key], known[2][key]
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            whole[key] = scorer.score([list(text) for text in texts]).scores
        taught[key] = teacher.transition_values(texts)
    torch.save((whole, vectors, taught), cache)
    return whole, vectors, taught


def centred(whole: Dict[str, List[float]], values: Dict[str, List[List[float]]], centre: float
            ) -> Dict[str, List[List[float]]]:
    """Boundary values shifted so that ``mix``'s ``(1 - w) * s + w * mean`` reads ``s + w * (mean - centre)``: a text
    whose boundaries read as an average coherent text's keeps its score, as a one-sentence text does."""
    return {key: [[value - centre + score for value in text] for score, text in zip(whole[key], values[key])]
            for key in values}


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="cm-minilm-joint-long-2026.11", help="the default when these ran")
    parser.add_argument("--epochs", type=int, default=1, help="draws of the recipe's negatives per training text")
    parser.add_argument("--head-epochs", type=int, default=30)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--rank-weight", type=float, default=0.0)
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument("--centre", action="store_true",
                        help="mix as s + w * (mean - c), c the head's mean over training positives")
    parser.add_argument("--weights", default="0,0.1,0.2,0.3")
    parser.add_argument("--with-teacher", action="store_true", help="also read the transition model's own term")
    parser.add_argument("--layers", default="-1", help="hidden-state indices read side by side (-1: the last)")
    parser.add_argument("--limit", type=int, default=0, help="training texts at most (0: all)")
    parser.add_argument("--cache", type=Path, default=Path("runs/boundary-head-cache"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    timings: Dict[str, float] = {}
    scorer = CoherenceScorer(args.model, dtype="fp32")
    teacher = TransitionModel()
    texts, groups = training_texts(args.epochs)
    if args.limit:
        texts, groups = texts[: args.limit], groups[: args.limit]
    layers = [int(value) for value in args.layers.split(",")]
    tag = "" if layers == [-1] else "-l" + "_".join(str(value) for value in layers)
    stem = f"{scorer.fingerprint}-e{args.epochs}-n{len(texts)}"
    vectors, targets = _passes(scorer, teacher, texts, args.cache / f"{stem}{tag}.pt", timings, layers,
                               args.cache / f"{stem}.pt")
    clock = time.perf_counter()
    head, fit = fit_head(vectors, targets, groups, epochs=args.head_epochs, width=args.width,
                         rank_weight=args.rank_weight, margin=args.margin)
    timings["fit"] = time.perf_counter() - clock
    positives = [index for index in range(len(texts)) if index == 0 or groups[index] != groups[index - 1]]
    positive_means = [statistics.fmean(values) for values in head_values(head, [vectors[i] for i in positives])
                      if values]
    centre = statistics.fmean(positive_means)
    print(f"{len(texts)} training texts; held-out boundaries: best {fit['best']}, target var "
          f"{fit['held_target_var']:.3f}; head mean on training positives {centre:+.3f}", flush=True)
    data = load_dev_data()
    whole, dev_vectors, taught = _dev_passes(scorer, teacher, dev_documents(data),
                                             args.cache / f"{scorer.fingerprint}-dev{tag}.pt", layers,
                                             args.cache / f"{scorer.fingerprint}-dev.pt")
    student = {key: head_values(head, value) for key, value in dev_vectors.items()}
    if args.centre:
        student = centred(whole, student, centre)
    options: List[Dict[str, Any]] = []
    for weight in (float(value) for value in args.weights.split(",")):
        option = evaluate_option(data, whole, student, weight)
        option["reading"] = "boundary head"
        options.append(option)
        if args.with_teacher and weight > 0:
            reference = evaluate_option(data, whole, taught, weight)
            reference["reading"] = "transition model"
            option["vs_teacher"] = paired_difference(reference["credits"], option["credits"])
            options.append(reference)
    for option in options:
        option["vs_w0"] = paired_difference(options[0]["credits"], option["credits"])
    for option in options:
        del option["credits"]
        print(f"{option['reading']} w={option['weight']}: "
              + option_summary(option, [("vs w=0", "vs_w0"), ("vs teacher", "vs_teacher")]), flush=True)
    timings["total"] = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"model": args.model, "epochs": args.epochs, "training_texts": len(texts),
                                    "centre": centre if args.centre else None, "fit": fit, "options": options,
                                    "seconds": timings,
                                    "mean_sentences": statistics.fmean(len(text) for text in texts)}, indent=1),
                        encoding="utf-8")


if __name__ == "__main__":
    main()
