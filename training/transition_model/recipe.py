"""``family: transition_model`` recipes: train the model behind ``explain``'s ``transition-model`` mechanism.

The model (:mod:`coherence_metric.scoring.transition_pass`) cross-encodes (the two sentences before a boundary, the
sentence after it) with all-MiniLM-L6-v2 and a linear head. Each step draws boundaries from freshly corrupted windows
of the
training documents (:mod:`.data`): every broken boundary of a window and as many intact ones, with a logistic loss
(1: the sentences followed each other in the document, 0: they did not). Every ``eval_every`` steps the model is read
on the localisation recipe built from the news corpora's *dev* documents (never the test split), the best step by
mean top-1 hit rate is kept as a checkpoint, and the run's state is saved, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import torch

from coherence_metric import CoherenceModel, save_checkpoint
from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache
from coherence_metric.research.localisation_sets import hits, load_localisation_sets
from coherence_metric.toolkit import (
    PAIR_MAX_LENGTH,
    BackboneSpec,
    autocast_context,
    encode_pairs,
    pad_to_width,
    sha256_of_file,
    transition_values,
)

from ..checks import refuse_failed
from ..config import build_family_recipe, read_recipe_mapping
from ..model_setup import backbone_folder, freeze
from ..pointwise.texts import PointwiseData, sample_documents
from ..resume import check_same_recipe
from ..run_log import cut_log_after_step, log_line
from ..state_files import read_state, remove_unfinished_files, replace_directory, save_atomically
from .data import KINDS, IndexedDocuments, boundary_examples, epoch_windows, index_documents

logger = logging.getLogger("coherence_metric.training")

STATE_FILE = "state.pt"
LOG_FILE = "log.jsonl"
BEST_DIR = "best"
RESUMABLE_CHANGES = ("output_dir", "train.steps")
BACKBONE = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass
class TransitionData:
    """``data:``: which training documents (per corpus, training split, decontaminated), how windows are cut and
    corrupted (``kinds``: the weight of each kind of window), the balance of intact to broken boundaries, and the dev
    localisation sets read at each evaluation."""

    corpora: List[str] = field(default_factory=lambda: ["bbc", "reuters", "lee", "abc", "mctest", "tales"])
    train_documents: int = 600
    max_document_sentences: int = 24
    min_sentences: int = 3
    max_sentences: int = 12
    lead_share: float = 0.3
    kinds: Dict[str, float] = field(default_factory=lambda: {"intact": 1.0, "intrusion": 2.0, "moved": 2.0,
                                                             "swap": 2.0})
    intact_per_break: float = 1.0
    decontaminate: bool = True
    seed: int = 13
    dev_per_kind: int = 200
    dev_seed: int = 0


@dataclass
class TransitionTrain:
    """``train:``: AdamW steps over (pair, label) batches; the encoder at ``lr`` after ``warmup_steps``, linearly down
    to 10% by the last step, the head at ``head_lr``."""

    steps: int = 1500
    batch_pairs: int = 32
    lr: float = 3.0e-5
    head_lr: float = 1.0e-3
    warmup_steps: int = 50
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    eval_every: int = 250
    dtype: str = "bf16"
    seed: int = 0


@dataclass
class TransitionRecipe:
    """A whole ``family: transition_model`` recipe."""

    family: str = "transition_model"
    output_dir: str = "runs/transition-model"
    data: TransitionData = field(default_factory=TransitionData)
    train: TransitionTrain = field(default_factory=TransitionTrain)


def recipe_from_mapping(values: Dict[str, Any], where: str = "recipe") -> TransitionRecipe:
    """Build and check a recipe from a parsed mapping (YAML or a test's dict)."""
    recipe = build_family_recipe(TransitionRecipe, values, where)
    data, train = recipe.data, recipe.train
    checks = [
        (data.train_documents >= 1 and data.dev_per_kind >= 1,
         "data.train_documents and data.dev_per_kind must be at least 1"),
        (3 <= data.min_sentences <= data.max_sentences, "data.min_sentences and data.max_sentences must satisfy "
                                                        "3 <= min <= max"),
        (set(data.kinds) <= set(KINDS) and any(weight > 0 for weight in data.kinds.values())
         and all(weight >= 0 for weight in data.kinds.values()),
         f"data.kinds must weigh some of {', '.join(KINDS)} (weights 0 or more, one positive)"),
        (0.0 <= data.lead_share <= 1.0, "data.lead_share must be in [0, 1]"),
        (data.intact_per_break > 0, "data.intact_per_break must be positive"),
        (train.steps >= 1 and train.batch_pairs >= 1 and train.eval_every >= 1,
         "train.steps, train.batch_pairs and train.eval_every must be at least 1"),
        (train.lr > 0 and train.head_lr > 0 and train.grad_clip > 0,
         "train.lr, train.head_lr and train.grad_clip must be positive"),
        (train.dtype in ("fp32", "bf16"), "train.dtype must be fp32 or bf16"),
    ]
    refuse_failed(checks, where)
    return recipe


def training_documents(data: TransitionData) -> List[List[str]]:
    """The training split's documents of ``data.corpora`` (seeded sample, decontaminated), cut to their first
    ``max_document_sentences`` sentences; documents under 3 sentences have no window and are left out."""
    chosen = sample_documents(PointwiseData(corpora=list(data.corpora), train_documents=data.train_documents,
                                            decontaminate=data.decontaminate, seed=data.seed), "train")
    return [list(document.sentences[:data.max_document_sentences]) for document in chosen
            if len(document.sentences) >= 3]


def example_stream(documents: IndexedDocuments, data: TransitionData, start_epoch: int
                   ) -> Iterator[Tuple[int, Tuple[str, str], float]]:
    """(epoch, pair, label) forever: each epoch one fresh window per document, its examples shuffled, seeded by the
    epoch (a resumed run re-enters at its epoch and skips the examples it had used)."""
    epoch = start_epoch
    while True:
        rng = random.Random(f"{data.seed}:examples:{epoch}")
        windows = epoch_windows(documents, data.kinds, data.min_sentences, data.max_sentences, data.lead_share, 1,
                                seed=data.seed * 1000 + epoch)
        examples = [example for window in windows
                    for example in boundary_examples(documents, window, data.intact_per_break, rng)]
        rng.shuffle(examples)
        for pair, label in examples:
            yield epoch, pair, label
        epoch += 1


class DevLocalisation:
    """The localisation recipe on the news corpora's dev documents: top-1 / top-2 per kind of a model in training.

    Args:
        sets: the corrupted dev items per kind (:func:`from_data` builds them from the corpora).
    """

    def __init__(self, sets: Dict[str, List[Any]]) -> None:
        self.sets = sets

    @classmethod
    def from_data(cls, data: TransitionData) -> "DevLocalisation":
        return cls(load_localisation_sets(data.dev_per_kind, data.dev_seed, JsonCache(), split="dev"))

    def measure(self, model: Any, tokenizer: Any, dtype: str, device: str = "cpu") -> Dict[str, Any]:
        """Top-1 / top-2 hit rates (percent) per kind and the mean top-1 over kinds (the selection value)."""
        model.eval()
        result: Dict[str, Any] = {}
        for kind, items in self.sets.items():
            with autocast_context(dtype, torch.device(device)):
                values = transition_values(model, tokenizer, [item.sentences for item in items], device)
            flags = [hits(row, item.breaks) for item, row in zip(items, values)]
            result[kind] = [round(100.0 * sum(flag[0] for flag in flags) / len(flags), 2),
                            round(100.0 * sum(flag[1] for flag in flags) / len(flags), 2)]
        result["mean_top1"] = round(sum(result[kind][0] for kind in self.sets) / len(self.sets), 2)
        return result


def build_transition_model(seed: int, folder: Optional[Path] = None,
                           weights_sha256: Optional[str] = None) -> Tuple[Any, Any]:
    """all-MiniLM-L6-v2 (every layer trainable, the embeddings frozen: they come from the named backbone in the
    stored delta) with a seeded fresh head, and its tokenizer. ``folder`` / ``weights_sha256``: a copy of the
    backbone elsewhere (a GPU machine's fp16 copy) and the sha256 of the original weights, which the checkpoint
    records so that it loads over the installed backbone."""
    from transformers import AutoTokenizer



    folder = folder or backbone_folder(BACKBONE)
    model = CoherenceModel.from_backbone(folder, pooling="mean", max_length=PAIR_MAX_LENGTH, seed=seed)
    model.backbone_spec = BackboneSpec(name_or_path=BACKBONE, revision=None,
                                       model_type=model.backbone_spec.model_type,
                                       weights_sha256=weights_sha256 or sha256_of_file(folder / "model.safetensors"))
    freeze(model.backbone, freeze_embeddings=True, train_layers=None)
    return model, AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)


def make_optimizer(model: Any, train: TransitionTrain) -> torch.optim.Optimizer:
    """AdamW with the encoder's trainable weights at ``train.lr`` and the head at ``train.head_lr``."""
    encoder = [parameter for parameter in model.backbone.parameters() if parameter.requires_grad]
    return torch.optim.AdamW([{"params": encoder, "lr": train.lr, "base_lr": train.lr},
                              {"params": list(model.head.parameters()), "lr": train.head_lr,
                               "base_lr": train.head_lr}], weight_decay=train.weight_decay)


def train_step(model: Any, tokenizer: Any, optimizer: torch.optim.Optimizer, batch: List[Tuple[Tuple[str, str], float]],
               step: int, train: TransitionTrain, device: str = "cpu") -> float:
    """One AdamW step on (pair, label) examples at ``step``'s learning rate; returns the batch's loss."""
    for group in optimizer.param_groups:
        group["lr"] = group["base_lr"] * _lr_factor(step, train)
    model.train()
    ids = encode_pairs(tokenizer, [pair for pair, _ in batch])
    padded = pad_to_width(tokenizer, ids, max(len(sequence) for sequence in ids))
    labels = torch.tensor([label for _, label in batch], device=device)
    with autocast_context(train.dtype, torch.device(device)):
        logits = model(padded["input_ids"].to(device), padded["attention_mask"].to(device)).float()
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), train.grad_clip)
    optimizer.step()
    return float(loss.detach())


def _lr_factor(step: int, train: TransitionTrain) -> float:
    if step <= train.warmup_steps:
        return step / max(train.warmup_steps, 1)
    progress = (step - train.warmup_steps) / max(train.steps - train.warmup_steps, 1)
    return max(0.1, 1.0 - 0.9 * progress)


class TransitionRun:
    """One recipe's run: documents, steps (resuming), dev selection, the best checkpoint."""

    def __init__(self, recipe: TransitionRecipe) -> None:
        self.recipe = recipe
        self.out = Path(recipe.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)

    def log(self, record: Dict[str, Any]) -> None:
        line = log_line(record)
        logger.info(line.rstrip("\n"))
        with open(self.out / LOG_FILE, "a", encoding="utf-8") as handle:
            handle.write(line)

    def _save_best(self, model: Any, tokenizer: Any, step: int, measured: Dict[str, Any]) -> None:
        training = {"recipe": asdict(self.recipe), "step": step, "dev_localisation": measured,
                    "input": "boundary pairs (coherence_metric.scoring.transition_pass.boundary_pairs)"}
        replace_directory(self.out / BEST_DIR, lambda folder: save_checkpoint(
            model, folder, tokenizer=tokenizer, flavour="delta", delta_dtype=torch.bfloat16, training=training,
            overwrite=True))

    def run(self) -> Dict[str, Any]:
        """Train to ``train.steps`` (resuming), keeping the best dev step in ``output_dir/best``."""
        started = time.time()
        recipe, train, data = self.recipe, self.recipe.train, self.recipe.data
        documents = index_documents(training_documents(data))
        dev = DevLocalisation.from_data(data)
        torch.manual_seed(train.seed)
        model, tokenizer = build_transition_model(train.seed)
        optimizer = make_optimizer(model, train)
        state: Dict[str, Any] = {"step": 0, "epoch": 0, "used": 0, "best": None}
        state_path = self.out / STATE_FILE
        remove_unfinished_files(state_path)
        if state_path.is_file():
            state = read_state(state_path, keys=("recipe", "module", "optimizer", "step", "epoch", "used", "best"))
            check_same_recipe(state_path, state["recipe"], asdict(recipe), RESUMABLE_CHANGES)
            model.load_state_dict(state["module"])
            optimizer.load_state_dict(state["optimizer"])
            logger.info("transition model: resuming after step %d", state["step"])
            cut_log_after_step(self.out / LOG_FILE, state["step"], key="step")
        stream = example_stream(documents, data, state["epoch"])
        skipped = 0
        while skipped < state["used"]:  # the examples of the interrupted epoch already trained on
            next(stream)
            skipped += 1
        epoch, used, losses = state["epoch"], state["used"], []
        for step in range(state["step"] + 1, train.steps + 1):
            batch = []
            for _ in range(train.batch_pairs):
                example_epoch, pair, label = next(stream)
                used = used + 1 if example_epoch == epoch else 1
                epoch = example_epoch
                batch.append((pair, label))
            losses.append(train_step(model, tokenizer, optimizer, batch, step, train))
            if step % train.eval_every == 0 or step == train.steps:
                measured = dev.measure(model, tokenizer, train.dtype)
                self.log({"step": step, "epoch": epoch, "loss": round(sum(losses) / len(losses), 5), "dev": measured,
                          "seconds": round(time.time() - started, 1)})
                losses = []
                if state["best"] is None or measured["mean_top1"] > state["best"]["dev"]["mean_top1"]:
                    state["best"] = {"step": step, "dev": measured}
                    self._save_best(model, tokenizer, step, measured)
                state.update(step=step, epoch=epoch, used=used, module=model.state_dict(),
                             optimizer=optimizer.state_dict(), recipe=asdict(recipe))
                save_atomically(state, state_path)
        if state["best"] is None:
            raise InputError(f"{self.out}: no evaluation ran (train.steps {train.steps})")
        summary = {"best_step": state["best"]["step"], "dev_localisation": state["best"]["dev"],
                   "documents": len(documents.rows), "sentences": len(documents.sentences),
                   "model": str(self.out / BEST_DIR), "seconds": round(time.time() - started, 1),
                   "output_dir": str(self.out)}
        self.log({"result": summary})
        return summary


def run_recipe(path: Path, overrides: Dict[str, Any], progress: bool,
               recipe: Optional[TransitionRecipe] = None) -> Dict[str, Any]:
    """Train a ``family: transition_model`` recipe file; returns the run's summary."""
    if recipe is None:
        recipe = recipe_from_mapping(read_recipe_mapping(Path(path), overrides), str(path))
    return TransitionRun(recipe).run()


__all__ = ["BACKBONE", "DevLocalisation", "TransitionData", "TransitionRecipe", "TransitionRun", "TransitionTrain",
           "build_transition_model", "example_stream", "make_optimizer", "recipe_from_mapping", "run_recipe",
           "train_step", "training_documents"]

