"""``family: sentence_scorer`` recipes: sections, checks, and ``run_recipe`` (what ``coherence-metric train run``
calls). Every stage resumes: the embedded groups, the base checkpoint's dev scores and each finished epoch are
saved in ``output_dir``, so an interrupted run picks up where it stopped and gives the same numbers."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import torch

from coherence_metric import CoherenceScorer
from coherence_metric.toolkit import (
    SentenceEmbedder,
    SentenceLevelScorer,
    SentenceScorerShape,
    add_sentence_scorer,
    read_checkpoint_config,
    remove_sentence_scorer,
    resolve_backbone_folder,
    resolve_model,
)

from ..checks import refuse_failed
from ..config import build_family_recipe, read_recipe_mapping
from ..evaluation import dev_result
from ..resume import check_same_recipe
from ..run_log import cut_log_after_step, log_line
from ..state_files import (
    read_state,
    recover_directory,
    remove_unfinished_files,
    replace_directory,
    save_atomically,
    write_text_atomically,
)
from .fit import choose_weight, folded, term_scores, train_epoch
from .groups import EmbeddedGroups, cache_key, embedded_groups, load_items, sample_groups

logger = logging.getLogger("coherence_metric.training")

STATE_FILE = "state.pt"
LOG_FILE = "log.jsonl"
CHECKPOINT_DIR = "checkpoint"
BASE_DIR = "base"
# A run folder may move; every other recipe key shapes the embedded groups, the epochs or the weight chosen.
RESUMABLE_CHANGES = ("output_dir",)


@dataclass
class SentenceScorerData:
    """``data:``: the prepared folder (``coherence-metric train prepare``), how many items of each split, and
    their negatives per item: ``permutations``, ``intrusions`` (one sentence replaced by the most similar
    sentence of another document of the same corpus) and ``document_intrusions`` (one sentence replaced by a
    random sentence of the most similar other document, as INSteD-Wiki's pairs look) and ``sibling_intrusions``
    (one sentence replaced by a sentence of another block of the same document: on-topic). ``source_limits`` with
    ``source_limit_seed`` keep the same items as the base checkpoint's recipe did; ``seed`` / ``dev_seed`` draw
    the items used here."""

    dir: str = "runs/data/cpu"
    train_items: int = 8000
    dev_items: int = 600
    permutations: int = 5
    intrusions: int = 2
    document_intrusions: int = 0
    sibling_intrusions: int = 0
    decontaminate: bool = True
    source_limits: Dict[str, int] = field(default_factory=dict)
    source_limit_seed: int = 100
    seed: int = 11
    dev_seed: int = 7


@dataclass
class SentenceScorerModel:
    """``model:``: the term's sizes (:class:`~coherence_metric.models.sentence_scorer.SentenceScorerShape`), its dropout
    and the initial weight of its adjacent-cosine part."""

    width: int = 128
    layers: int = 2
    heads: int = 4
    max_sentences: int = 64
    dropout: float = 0.1
    scale: float = 5.0


@dataclass
class SentenceScorerTrain:
    """``train:``: AdamW epochs over the groups, and the grid of weights beside the head tried on dev."""

    epochs: int = 6
    batch_groups: int = 32
    lr: float = 5.0e-4
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    seed: int = 0
    weights: List[float] = field(default_factory=lambda: [0.25, 0.5, 1.0, 2.0, 4.0, 8.0])


@dataclass
class SentenceScorerRecipe:
    """A whole ``family: sentence_scorer`` recipe."""

    family: str = "sentence_scorer"
    base_checkpoint: str = "fast"
    output_dir: str = "runs/sentence-scorer"
    data: SentenceScorerData = field(default_factory=SentenceScorerData)
    model: SentenceScorerModel = field(default_factory=SentenceScorerModel)
    train: SentenceScorerTrain = field(default_factory=SentenceScorerTrain)


def recipe_from_mapping(values: Dict[str, Any], where: str = "recipe") -> SentenceScorerRecipe:
    """Build and check a recipe from a parsed mapping (YAML or a test's dict)."""
    recipe = build_family_recipe(SentenceScorerRecipe, values, where)
    data, train = recipe.data, recipe.train
    checks = [
        (data.train_items >= 1 and data.dev_items >= 1, "data.train_items and data.dev_items must be at least 1"),
        (data.permutations >= 1, "data.permutations must be at least 1"),
        (min(data.intrusions, data.document_intrusions, data.sibling_intrusions) >= 0,
         "data.intrusions, data.document_intrusions and data.sibling_intrusions must be 0 or more"),
        (train.epochs >= 1 and train.batch_groups >= 1, "train.epochs and train.batch_groups must be at least 1"),
        (train.lr > 0 and train.grad_clip > 0, "train.lr and train.grad_clip must be positive"),
        (bool(train.weights) and all(weight > 0 for weight in train.weights),
         "train.weights must be a non-empty list of positive numbers"),
        (0.0 <= recipe.model.dropout < 1.0, "model.dropout must be in [0, 1)"),
    ]
    refuse_failed(checks, where)
    return recipe


def _shape(recipe: SentenceScorerRecipe, embedding_dim: int) -> SentenceScorerShape:
    model = recipe.model
    return SentenceScorerShape(embedding_dim=embedding_dim, width=model.width, layers=model.layers, heads=model.heads,
                               max_sentences=model.max_sentences)


class SentenceScorerRun:
    """One recipe's run: data, base checkpoint, epochs, weight choice, and the written checkpoint."""

    def __init__(self, recipe: SentenceScorerRecipe) -> None:
        self.recipe = recipe
        self.out = Path(recipe.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        recover_directory(self.out / CHECKPOINT_DIR)  # a kill while checkpoint/ was replaced left the old one aside
        self.base_folder = self._term_free(resolve_model(recipe.base_checkpoint, local_files_only=True).folder)
        self.base = CoherenceScorer(str(self.base_folder))
        self.encoder = SentenceEmbedder.from_folder(resolve_backbone_folder(self.base.model.backbone_spec))

    def _term_free(self, folder: Path) -> Path:
        """``folder``, or, when it already has a sentence-level term (as ``cm-minilm-2026.11``, the 0.1.0 default,
        has), the checkpoint that term was added to, restored into ``output_dir/base``: the run trains a replacement
        term over the same base, so the committed recipe reproduces ``cm-minilm-2026.11`` from itself."""
        if read_checkpoint_config(folder).sentence_scorer is None:
            return folder
        restored = self.out / BASE_DIR
        logger.info("%s has a sentence-level term: training a new one over its base, restored into %s", folder,
                    restored)
        return remove_sentence_scorer(folder, restored, overwrite=True)

    def groups(self) -> Tuple[Dict[str, EmbeddedGroups], List[List[str]]]:
        """The embedded train and dev groups (cached in the run folder), and the dev documents' sentences."""
        data = self.recipe.data
        train_items, dev_items = load_items(Path(data.dir), data.decontaminate, data.source_limits,
                                            data.source_limit_seed)
        settings = {**asdict(data), "backbone": self.base.model.backbone_spec.weights_sha256}
        result = {}
        dev_documents: List[List[str]] = []
        for split, items, count, seed in (("train", train_items, data.train_items, data.seed),
                                           ("dev", dev_items, data.dev_items, data.dev_seed)):
            documents, spans = sample_groups(items, count, data.permutations, data.intrusions, seed,
                                             data.document_intrusions, data.sibling_intrusions)
            key = cache_key({**settings, "split": split})
            result[split] = embedded_groups(self.out / f"embeddings-{split}.pt", key, documents, spans, self.encoder)
            dev_documents = documents
        return result, dev_documents

    def base_dev_scores(self, documents: List[List[str]]) -> List[float]:
        """The base checkpoint's scores of the dev documents (the slowest part after embedding).

        Cached per document under the base's fingerprint, so a recipe that adds negatives scores only the new ones.
        """
        path = self.out / "base_dev_scores.json"
        known: Dict[str, float] = {}
        if path.is_file():
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored.get("fingerprint") == self.base.fingerprint:
                known = dict(stored["scores"])
        keys = [cache_key({"sentences": document}) for document in documents]
        missing = list(dict.fromkeys(key for key in keys if key not in known))
        if missing:
            by_key = dict(zip(keys, documents))
            known.update(zip(missing, self.base.score([by_key[key] for key in missing]).scores))
            write_text_atomically(json.dumps({"fingerprint": self.base.fingerprint, "scores": known}), path)
        return [known[key] for key in keys]

    def log(self, record: Dict[str, Any]) -> None:
        line = log_line(record)  # strict JSON: NaN is written as null
        logger.info(line.rstrip("\n"))
        with open(self.out / LOG_FILE, "a", encoding="utf-8") as handle:
            handle.write(line)

    def run(self) -> Dict[str, Any]:
        """Train to ``train.epochs`` (resuming), choose the weight, write ``output_dir/checkpoint``."""
        started = time.time()
        recipe, train = self.recipe, self.recipe.train
        groups, dev_documents = self.groups()
        with_intrusions = recipe.data.intrusions + recipe.data.document_intrusions + recipe.data.sibling_intrusions > 0
        torch.manual_seed(train.seed)
        module = SentenceLevelScorer(_shape(recipe, int(groups["train"].embeddings.shape[1])),
                                     dropout=recipe.model.dropout, scale=recipe.model.scale)
        optimizer = torch.optim.AdamW(module.parameters(), lr=train.lr, weight_decay=train.weight_decay)
        state: Dict[str, Any] = {"epoch": 0, "best": None}
        state_path = self.out / STATE_FILE
        remove_unfinished_files(state_path)  # a SIGKILL mid-write leaves <name>.tmp-<pid>
        if state_path.is_file():
            state = read_state(state_path, keys=("recipe", "module", "optimizer", "epoch", "best"))
            check_same_recipe(state_path, state["recipe"], asdict(recipe), RESUMABLE_CHANGES)
            module.load_state_dict(state["module"])
            optimizer.load_state_dict(state["optimizer"])
            logger.info("sentence scorer: resuming after epoch %d", state["epoch"])
            cut_log_after_step(self.out / LOG_FILE, state["epoch"], key="epoch")  # epochs after it run again
        for epoch in range(state["epoch"] + 1, train.epochs + 1):
            loss = train_epoch(module, optimizer, groups["train"], train.batch_groups, train.grad_clip,
                               seed=train.seed * 1000 + epoch)
            result = dev_result(term_scores(module, groups["dev"]), groups["dev"].spans, with_intrusions)
            record = {"epoch": epoch, "loss": loss, **result.to_dict(), "seconds": round(time.time() - started, 1)}
            self.log(record)
            if state["best"] is None or result.selection_score > state["best"]["selection"]:
                state["best"] = {"epoch": epoch, "selection": result.selection_score,
                                 "module": {k: v.clone() for k, v in module.state_dict().items()}}
            state.update(epoch=epoch, module=module.state_dict(), optimizer=optimizer.state_dict(),
                         recipe=asdict(recipe))
            save_atomically(state, state_path)
        best = SentenceLevelScorer(module.shape, dropout=recipe.model.dropout)
        best.load_state_dict(state["best"]["module"])
        term = term_scores(best, groups["dev"])
        base = self.base_dev_scores(dev_documents)
        weight, results = choose_weight(base, term, groups["dev"].spans, train.weights, with_intrusions)
        alone = dev_result(base, groups["dev"].spans, with_intrusions)
        for grid_weight, grid_result in sorted(results.items()):
            self.log({"weight": grid_weight, **grid_result.to_dict()})
        summary = {"best_epoch": state["best"]["epoch"], "weight": weight,
                   "dev_base": alone.to_dict(), "dev_combined": results[weight].to_dict(),
                   "sentences": {split: int(g.embeddings.shape[0]) for split, g in groups.items()},
                   "groups": {split: len(g.spans) for split, g in groups.items()}}
        target = replace_directory(self.out / CHECKPOINT_DIR, lambda folder: add_sentence_scorer(
            self.base_folder, folded(best, weight), folder, training={"recipe": asdict(recipe), **summary}))
        summary.update(checkpoint=str(target), seconds=round(time.time() - started, 1), output_dir=str(self.out))
        self.log({"result": summary})
        return summary


def run_recipe(path: Path, overrides: Dict[str, Any], progress: bool, recipe: Optional[SentenceScorerRecipe] = None
               ) -> Dict[str, Any]:
    """Train a ``family: sentence_scorer`` recipe file; returns the run's summary."""
    if recipe is None:
        recipe = recipe_from_mapping(read_recipe_mapping(Path(path), overrides), str(path))
    return SentenceScorerRun(recipe).run()


__all__ = ["SentenceScorerData", "SentenceScorerModel", "SentenceScorerRecipe", "SentenceScorerRun",
           "SentenceScorerTrain", "recipe_from_mapping", "run_recipe"]
