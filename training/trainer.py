"""One training loop for every coherence objective: pairwise (eq. 1), contrastive (eq. 2) and the full
model (eq. 2 + momentum encoder over a negative queue, eqs. 3-5, with hard-negative mining, Algorithm 1).

What it does per optimizer step: ``accumulation`` documents, each scored with its N negatives in one
forward pass (bf16 autocast optional); the loss; backward; the momentum update (before the optimizer step,
as the authors' code does); AdamW; the schedule. Every ``eval_every`` steps: dev accuracy, the best
checkpoint kept, and the full training state saved so an interrupted run resumes where it stopped
(weights, optimizer, schedule, queue, RNG states, data position, mined negatives).

Deliberate differences from the reference code: an attention mask always; any batch size through
accumulation; a random contiguous slice (the paper) instead of a prefix (``objective.slice: prefix``
restores it); the best checkpoint kept by dev accuracy; seeded everything; a multi-process mode.
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import torch

from coherence_metric import save_checkpoint
from coherence_metric.errors import InputError
from coherence_metric.toolkit import SentenceEmbedder, autocast_context

from . import distributed
from .config import RecipeConfig
from .data.examples import TrainingItem
from .data.intrusions import Intrusion, build_intrusions, intrusion_document
from .data.selection import limit_sources, load_prepared  # noqa: F401  (limit_sources: older import path)
from .evaluation import DevResult, evaluate, score_documents
from .model_setup import backbone_folder, build_model
from .objectives import (
    MomentumEncoder,
    NegativeQueue,
    contrastive_margin_loss,
    document_slice,
    momentum_loss,
    pairwise_margin_loss,
    select_hard_negatives,
)
from .resume import check_same_recipe, random_states, restore_random_states
from .run_log import append_record, cut_log_after_step
from .state_files import (
    read_state,
    recover_directory,
    remove_unfinished_files,
    replace_directory,
    save_atomically,
    write_text_atomically,
)

logger = logging.getLogger("coherence_metric.training")

STATE_FILE = "trainer_state.pt"
LOG_FILE = "log.jsonl"
INTRUSIONS_FILE = "intrusions.json"
BEST_DIR = "best"
FINAL_DIR = "final"
# What may change when a run resumes: how long it trains, how often it logs and evaluates, and where its folder
# is. Everything else would make the resumed run a mix of two recipes.
RESUMABLE_CHANGES = ("output_dir", "train.max_steps", "train.eval_every", "train.log_every")


@dataclass
class StepOutput:
    """The losses of one optimizer step, averaged over its documents."""

    loss: float
    contrastive: float
    momentum: float


def encode(
    tokenizer: Any, documents: Sequence[Sequence[str]], max_length: int, device: torch.device
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Tokenize sentence-list documents (joined with one space, as the scorer does) into a padded batch."""
    texts = [" ".join(document) for document in documents]
    batch = tokenizer(texts, truncation=True, max_length=max_length, padding=True, return_tensors="pt")
    return batch["input_ids"].to(device), batch["attention_mask"].to(device)


def make_schedule(optimizer: torch.optim.Optimizer, recipe: RecipeConfig) -> torch.optim.lr_scheduler.LRScheduler:
    """SWALR-style linear anneal (stepped every optimizer step, over ``anneal_steps``), warmup + linear, or constant.

    The paper's SWALR anneals lr 5e-6 -> 1e-6 linearly; the reference code stepped it once per 1000
    steps with 50 "epochs". One LambdaLR stepped every step gives the same line, resumes exactly, and
    needs no SWA machinery.
    """
    schedule, base_lr = recipe.schedule, recipe.optimizer.lr
    final_ratio = schedule.final_lr / base_lr if base_lr else 1.0

    def factor(step: int) -> float:
        if schedule.warmup_steps and step < schedule.warmup_steps:
            return (step + 1) / schedule.warmup_steps
        if schedule.name == "constant":
            return 1.0
        if schedule.name == "swalr":
            span = schedule.anneal_steps
        else:
            span = max(recipe.train.max_steps - schedule.warmup_steps, 1)
        progress = min(max(step - schedule.warmup_steps, 0) / max(span, 1), 1.0)
        return 1.0 + progress * (final_ratio - 1.0)

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def parameter_groups(model: torch.nn.Module, recipe: RecipeConfig) -> List[Dict[str, Any]]:
    """AdamW groups: the trainable backbone at ``optimizer.lr`` and the head at ``optimizer.head_lr`` when set.

    The schedule scales every group by the same factor, so the head's rate anneals in proportion.
    """
    head_lr = recipe.optimizer.head_lr
    trainable = [(name, parameter) for name, parameter in model.named_parameters() if parameter.requires_grad]
    if head_lr is None:
        return [{"params": [parameter for _, parameter in trainable]}]
    head = [parameter for name, parameter in trainable if name.startswith("head.")]
    rest = [parameter for name, parameter in trainable if not name.startswith("head.")]
    return [{"params": rest}, {"params": head, "lr": head_lr}]


class Trainer:
    """Runs a recipe to the end, resuming from ``output_dir`` when a previous run left its state there.

    Args:
        recipe: the parsed YAML recipe.
        progress: show a progress bar with ETA on stderr (rank 0 only).
    """

    def __init__(self, recipe: RecipeConfig, progress: bool = True) -> None:
        self.recipe = recipe
        self.progress = progress
        self._cached_order: Optional[Tuple[int, List[int]]] = None
        self.output_dir = Path(recipe.output_dir)
        self.world = distributed.setup()
        self.device = self.world.device
        seed = recipe.train.seed
        torch.manual_seed(seed)
        self.rng = random.Random(seed * 1000 + self.world.rank)
        self.model, self.tokenizer = build_model(recipe, seed)
        self.model.to(self.device)
        self.sentence_embedder: Optional[SentenceEmbedder] = None
        if self.model.cohesion_weight is not None:  # the pretrained backbone, frozen: the term never trains
            self.sentence_embedder = SentenceEmbedder.from_folder(
                backbone_folder(recipe.backbone, recipe.backbone_revision), device=str(self.device))
        self.data_notes: Dict[str, Any] = {}
        self.train_items, self.dev_items = self._load_data()
        self.train_intrusions: Dict[str, List[Intrusion]] = {}
        self.dev_intrusions: Optional[Dict[str, List[Intrusion]]] = None
        if recipe.objective.intrusions:
            self._build_intrusions()
        objective = recipe.objective
        self.momentum_encoder: Optional[MomentumEncoder] = None
        self.queue: Optional[NegativeQueue] = None
        if objective.name == "full":
            self.momentum_encoder = MomentumEncoder(self.model).to(self.device)
            self.queue = NegativeQueue(objective.queue_size, self.model.hidden_size, self.device)
        self.optimizer = torch.optim.AdamW(parameter_groups(self.model, recipe), lr=recipe.optimizer.lr,
                                           eps=recipe.optimizer.eps, weight_decay=recipe.optimizer.weight_decay)
        self.schedule = make_schedule(self.optimizer, recipe)
        self.wrapped = distributed.wrap(self.model, self.world)
        self.step = 0
        self.best_accuracy = -1.0
        self.mined: Dict[int, List[int]] = {}  # stream position -> chosen negative indices (current chunk)
        self.mined_chunk = -1

    # ---------------------------------------------------------------------------------------------- data

    def _load_data(self) -> Tuple[List[TrainingItem], List[TrainingItem]]:
        data = self.recipe.data
        folder = Path(data.dir)
        prepared = load_prepared(folder, data.decontaminate, data.source_limits, self.recipe.train.seed)
        self.data_notes.update(prepared.notes)
        train, dev = prepared.train, prepared.dev
        if data.train_limit:
            train = train[: data.train_limit]
        self.dev_pool = dev  # intruders for dev items come from the whole dev split, not only the sample
        if data.dev_limit:
            dev = random.Random(self.recipe.train.seed).sample(dev, min(data.dev_limit, len(dev)))
        short = sum(not item.negs for item in train)
        if short:
            raise InputError(f"{folder}: {short} training items have no negatives")
        return train, dev

    def _build_intrusions(self) -> None:
        """Intrusion negatives for the training items and the dev sample, read from ``output_dir`` when a
        previous start of this run built them (building takes minutes on a CPU)."""
        per_item, seed = self.recipe.objective.intrusions, self.recipe.train.seed
        path = self.output_dir / INTRUSIONS_FILE
        key = {"per_item": per_item, "seed": seed, "train": [item.id for item in self.train_items],
               "dev": [item.id for item in self.dev_items]}
        if path.is_file():
            cached = json.loads(path.read_text(encoding="utf-8"))
            if cached.get("key") == key:
                self.train_intrusions, self.dev_intrusions = (
                    {item_id: [(position, sentence) for position, sentence in found]
                     for item_id, found in cached[split].items()} for split in ("train", "dev"))
                return
        started = time.perf_counter()
        self.train_intrusions = build_intrusions(self.train_items, per_item, seed)
        dev_ids = {item.id for item in self.dev_items}
        dev_pool_intrusions = build_intrusions(self.dev_pool, per_item, seed)
        self.dev_intrusions = {item_id: found for item_id, found in dev_pool_intrusions.items() if item_id in dev_ids}
        logger.info("intrusion negatives built in %.0f s", time.perf_counter() - started)
        if self.world.is_main:
            self.output_dir.mkdir(parents=True, exist_ok=True)
            record = {"key": key, "train": self.train_intrusions, "dev": self.dev_intrusions}
            write_text_atomically(json.dumps(record), path)

    def _order(self, epoch: int) -> List[int]:
        """The epoch's seeded item order, shuffled once per epoch (not once per item looked up)."""
        cached = self._cached_order
        if cached is None or cached[0] != epoch:
            order = list(range(len(self.train_items)))
            random.Random(f"{self.recipe.train.seed}:{epoch}").shuffle(order)
            cached = self._cached_order = (epoch, order)
        return cached[1]

    def stream_position(self, step: int, slot: int) -> int:
        """Position in the global item stream of this rank's ``slot``-th document of optimizer ``step``."""
        per_step = self.recipe.train.accumulation * self.world.size
        return step * per_step + self.world.rank * self.recipe.train.accumulation + slot

    def item_at(self, position: int) -> Tuple[TrainingItem, int]:
        """The item at a stream position, and which pass over the data (epoch) it belongs to."""
        epoch, index = divmod(position, len(self.train_items))
        return self.train_items[self._order(epoch)[index]], epoch

    def total_steps(self) -> int:
        """Optimizer steps: ``max_steps``, or fewer when the epochs run out of items first."""
        per_step = self.recipe.train.accumulation * self.world.size
        return min(self.recipe.train.max_steps, self.recipe.train.epochs * len(self.train_items) // per_step)

    # ------------------------------------------------------------------------------------------ negatives

    def permutations_per_document(self) -> int:
        """How many of the N negatives are permutations (the rest are intrusions)."""
        return self.recipe.objective.negatives - self.recipe.objective.intrusions

    def negatives_for(self, position: int, item: TrainingItem, epoch: int) -> List[List[str]]:
        """The N negatives this document trains with: permutations (mined ones, or the epoch's own slice of
        candidates), then the item's intrusion negatives when ``objective.intrusions`` asks for them.

        Without mining, pass e over the data takes candidates [eN, (e+1)N), so repeats of a document
        never reuse a negative (the paper's uniqueness rule) while candidates last.
        """
        count = self.permutations_per_document()
        if position in self.mined:
            chosen = self.mined[position]
        else:
            available = len(item.negs)
            start = (epoch * count) % max(available, 1)
            chosen = [(start + offset) % available for offset in range(min(count, available))]
        negatives = [[item.pos[index] for index in item.negs[choice]] for choice in chosen]
        intrusions = self.train_intrusions.get(item.id, [])[: self.recipe.objective.intrusions]
        return negatives + [intrusion_document(item, intrusion) for intrusion in intrusions]

    def mine_chunk(self, step: int) -> None:
        """Algorithm 1: rank the ``candidates`` negatives of the documents of the next ``every`` steps with the
        current model (eval mode) and keep the top N of each. Chunk 0 trains on unmined negatives."""
        mining = self.recipe.mining
        chunk = step // mining.every
        if not mining.enabled or chunk == 0 or chunk == self.mined_chunk:
            return
        positions = [self.stream_position(chunk_step, slot)
                     for chunk_step in range(step, min(step + mining.every, self.total_steps()))
                     for slot in range(self.recipe.train.accumulation)]
        documents: List[List[str]] = []
        spans = []
        for position in positions:
            item, _ = self.item_at(position)
            candidates = item.negative_documents()[: mining.candidates]
            spans.append((position, len(documents), len(candidates)))
            documents.extend(candidates)
        scores = score_documents(self.model, self.tokenizer, documents, self.recipe.max_length,
                                 sentence_embedder=self.sentence_embedder)
        self.model.train()
        self.mined = {position: select_hard_negatives(scores[start : start + count], self.permutations_per_document())
                      for position, start, count in spans}
        self.mined_chunk = chunk

    # ---------------------------------------------------------------------------------------------- steps

    def document_loss(self, item: TrainingItem, negatives: List[List[str]]) -> Tuple[torch.Tensor, float, float]:
        """The loss of one positive with its negatives, and its contrastive and momentum parts."""
        objective, max_length = self.recipe.objective, self.recipe.max_length
        input_ids, mask = encode(self.tokenizer, [item.pos, *negatives], max_length, self.device)
        with autocast_context("bf16" if self.recipe.train.bf16 else "fp32", self.device):
            scores, vectors = self.wrapped(input_ids, mask, return_vectors=True)
        scores = scores.float()
        if self.sentence_embedder is not None and self.model.cohesion_weight is not None:
            cohesion = torch.tensor(self.sentence_embedder.cohesion([item.pos, *negatives]), device=scores.device)
            scores = scores + self.model.cohesion_weight * cohesion
        positive, negative = scores[:1], scores[1:].unsqueeze(0)
        if objective.name == "pairwise":
            loss = pairwise_margin_loss(positive, negative, objective.margin)
            return loss, loss.item(), 0.0
        contrastive = contrastive_margin_loss(positive, negative, objective.margin)
        if objective.name == "contrastive":
            return contrastive, contrastive.item(), 0.0
        assert self.momentum_encoder is not None and self.queue is not None
        piece = document_slice(item.pos, self.rng, objective.slice_min_sentences, objective.slice)
        slice_ids, slice_mask = encode(self.tokenizer, [piece, *negatives], max_length, self.device)
        with autocast_context("bf16" if self.recipe.train.bf16 else "fp32", self.device):
            keys = self.momentum_encoder(slice_ids, slice_mask).float()
        self.queue.enqueue(keys[1:])  # the reference code enqueues the current negatives before the loss
        momentum = momentum_loss(vectors[:1].float(), keys[:1], self.queue.vectors(), objective.margin,
                                 objective.negatives_against)
        loss = objective.loss_weight * contrastive + (1.0 - objective.loss_weight) * momentum
        return loss, contrastive.item(), momentum.item()

    def train_step(self) -> StepOutput:
        """One optimizer step over ``accumulation`` documents."""
        self.mine_chunk(self.step)
        self.model.train()
        accumulation = self.recipe.train.accumulation
        totals = [0.0, 0.0, 0.0]
        for slot in range(accumulation):
            position = self.stream_position(self.step, slot)
            item, epoch = self.item_at(position)
            loss, contrastive, momentum = self.document_loss(item, self.negatives_for(position, item, epoch))
            with distributed.no_sync_unless_last(self.wrapped, slot == accumulation - 1):
                (loss / accumulation).backward()
            totals = [totals[0] + loss.item(), totals[1] + contrastive, totals[2] + momentum]
        if self.recipe.optimizer.grad_clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.recipe.optimizer.grad_clip)
        if self.momentum_encoder is not None:
            self.momentum_encoder.update_from(self.model, self.recipe.objective.momentum)
        self.optimizer.step()
        self.schedule.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        return StepOutput(*(total / accumulation for total in totals))

    # ------------------------------------------------------------------------------------- state & output

    def _log(self, record: Dict[str, Any]) -> None:
        if self.world.is_main:
            append_record(self.output_dir / LOG_FILE, record)  # strict JSON: NaN is written as null

    def _training_info(self) -> Dict[str, Any]:
        return {"objective": self.recipe.objective.name, "steps": self.step, "seed": self.recipe.train.seed,
                "data": self.recipe.data.dir, "best_dev_accuracy": self.best_accuracy, "recipe": self.recipe.to_dict()}

    def save_model(self, folder: Path) -> Path:
        """Write the current model as a coherence checkpoint (the recipe's flavour) in place of ``folder``.

        Written beside it and renamed into place (:func:`~coherence_metric.training.state_files.replace_directory`): a
        kill or an error during the write never costs the previous ``best/`` or ``final/``.
        """
        flavour = self.recipe.train.save_flavour
        delta_dtype = torch.bfloat16 if self.recipe.train.delta_bf16 else None
        return replace_directory(folder, lambda target: save_checkpoint(
            self.model, target, tokenizer=self.tokenizer, flavour=flavour, delta_dtype=delta_dtype,
            training=self._training_info()))

    def state_dict(self) -> Dict[str, Any]:
        """Everything a resumed run needs to continue exactly."""
        return {
            "step": self.step,
            "best_accuracy": self.best_accuracy,
            "model": self.model.state_dict(),
            "momentum_encoder": self.momentum_encoder.state_dict() if self.momentum_encoder else None,
            "queue": self.queue.state_dict() if self.queue else None,
            "optimizer": self.optimizer.state_dict(),
            "schedule": self.schedule.state_dict(),
            "rng": random_states(self.rng),
            "mined": self.mined,
            "mined_chunk": self.mined_chunk,
            "recipe": self.recipe.to_dict(),
        }

    def save_state(self) -> None:
        """Atomically replace the resume state (a crash mid-write leaves the previous one intact)."""
        if not self.world.is_main:
            return
        save_atomically(self.state_dict(), self.output_dir / STATE_FILE)

    def load_state(self) -> bool:
        """Resume from ``output_dir`` when a state file is there; returns whether it did."""
        path = self.output_dir / STATE_FILE
        if not path.is_file():
            return False
        state = read_state(path, map_location=self.device, keys=("recipe", "model", "step"))
        # keys added to the recipe since the state was written count as their defaults (e.g. intrusions: 0)
        defaults = RecipeConfig(backbone=self.recipe.backbone, output_dir=self.recipe.output_dir).to_dict()
        check_same_recipe(path, state["recipe"], self.recipe.to_dict(), RESUMABLE_CHANGES, defaults)
        self.model.load_state_dict(state["model"])
        if self.momentum_encoder is not None:
            self.momentum_encoder.load_state_dict(state["momentum_encoder"])
            self.queue.load_state_dict(state["queue"])  # type: ignore[union-attr]
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        restore_random_states(state["rng"], self.rng)
        self.step, self.best_accuracy = state["step"], state["best_accuracy"]
        self.mined, self.mined_chunk = state["mined"], state["mined_chunk"]
        return True

    def evaluate_and_keep_best(self) -> DevResult:
        """Dev accuracy now; a new best is saved to ``best/`` (rank 0 only)."""
        result = evaluate(self.model, self.tokenizer, self.dev_items, self.recipe.objective.negatives,
                          self.recipe.max_length, intrusions=self.dev_intrusions,
                          sentence_embedder=self.sentence_embedder)
        self.model.train()
        if result.selection_score > self.best_accuracy:
            self.best_accuracy = result.selection_score
            self.save_model(self.output_dir / BEST_DIR)
        self._log({"step": self.step, **result.to_dict(), "best_dev_accuracy": self.best_accuracy})
        return result

    # ------------------------------------------------------------------------------------------------ run

    def _steps(self, total: int) -> Iterator[int]:
        if not (self.progress and self.world.is_main):
            yield from range(self.step, total)
            return
        from tqdm.auto import tqdm

        yield from tqdm(range(self.step, total), initial=self.step, total=total, desc="training", unit="step")

    def run(self) -> Dict[str, Any]:
        """Train to ``max_steps`` (resuming if possible); returns the final numbers."""
        self.output_dir.mkdir(parents=True, exist_ok=True)
        if self.world.is_main:  # a kill while best/ or final/ was replaced leaves the previous one aside
            for name in (BEST_DIR, FINAL_DIR):
                recover_directory(self.output_dir / name)
            for name in (STATE_FILE, "recipe.json", LOG_FILE):  # a SIGKILL mid-write leaves <name>.tmp-<pid>
                remove_unfinished_files(self.output_dir / name)
        resumed = self.load_state()  # refuses a changed recipe before recipe.json is rewritten
        if resumed and self.world.is_main:  # records of steps after the saved state are written again from here on
            cut_log_after_step(self.output_dir / LOG_FILE, self.step)
        total = self.total_steps()
        if total < 1:
            raise InputError("the recipe leaves no training step: more data, epochs or a smaller accumulation")
        if self.world.is_main:
            write_text_atomically(json.dumps(self.recipe.to_dict(), indent=2), self.output_dir / "recipe.json")
            logger.info("%s at step %d of %d", "resuming" if resumed else "starting", self.step, total)
            if self.data_notes and not resumed:
                self._log({"step": self.step, **self.data_notes})
            if not resumed:
                self._evaluate_on_main()
        started, first_step = time.perf_counter(), self.step
        train_config = self.recipe.train
        window: List[StepOutput] = []
        for _ in self._steps(total):
            output = self.train_step()
            if not math.isfinite(output.loss):
                raise InputError(f"loss became {output.loss} at step {self.step}: lower optimizer.lr")
            window.append(output)
            if self.step % train_config.log_every == 0 or self.step == total:
                elapsed = time.perf_counter() - started
                # losses averaged over the steps since the last record: single-step losses are too noisy
                self._log({"step": self.step, "loss": _mean(o.loss for o in window),
                           "loss_contrastive": _mean(o.contrastive for o in window),
                           "loss_momentum": _mean(o.momentum for o in window), "lr": self.schedule.get_last_lr()[0],
                           "seconds_per_step": elapsed / max(self.step - first_step, 1)})
                window = []
            if self.step % train_config.eval_every == 0 or self.step == total:
                self._evaluate_on_main()
                self.save_state()
                distributed.barrier(self.world)
        if self.world.is_main:
            self.save_model(self.output_dir / FINAL_DIR)
        seconds = time.perf_counter() - started
        distributed.teardown(self.world)
        return {"steps": self.step, "best_dev_accuracy": self.best_accuracy, "seconds": seconds,
                "output_dir": str(self.output_dir)}

    def _evaluate_on_main(self) -> None:
        if self.world.is_main:
            self.evaluate_and_keep_best()


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items)


def train_recipe(recipe: RecipeConfig, progress: bool = True) -> Dict[str, Any]:
    """Run a recipe (the ``coherence-metric train run`` command and ``torchrun`` both land here)."""
    return Trainer(recipe, progress=progress).run()


def read_log(output_dir: Path) -> List[Dict[str, Any]]:
    """The JSONL training log as records (losses, learning rate, dev accuracy)."""
    path = Path(output_dir) / LOG_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


__all__ = ["Trainer", "encode", "make_schedule", "read_log", "train_recipe"]
