"""CONPONO recipes: the YAML sections, building the objective from them, and ``run_recipe`` for the CLI.

A recipe (``training/configs/conpono-*.yaml``) has the sections ``family: conpono``, ``data``, ``model``,
``objective`` and ``loop`` (:class:`coherence_metric.training.loop.LoopConfig`); unknown keys are errors naming them.
``coherence-metric train run training/configs/conpono-cpu-minilm.yaml --set objective.max_distance=1``
runs the paper's k = 1 ablation (Table 5) from the same recipe.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from coherence_metric.errors import InputError
from coherence_metric.research.corpora import CORPORA
from coherence_metric.research.splits import held_out_documents

from ..checks import refuse_failed
from ..config import build_family_recipe, read_recipe_mapping
from ..loop import LoopConfig, ObjectiveLoop
from ..model_setup import backbone_folder, freeze
from ..resume import seed_random_states
from .examples import ExampleSettings, Paragraph, paragraphs_of
from .inputs import ENCODINGS
from .model import POOLINGS, ConponoModel, load_backbone
from .objective import FAMILY, ConponoObjective, ObjectiveSettings

logger = logging.getLogger("coherence_metric.training")


@dataclass
class ConponoData:
    """Which corpora (train split for training, dev split for the held-out accuracy) and the paragraph windows.

    ``max_documents`` / ``dev_max_documents`` keep the first N documents of each corpus's split (reader
    order): slices for quick runs. ``paragraph_sentences`` is the window standing in for paragraphs.
    """

    corpora: List[str] = field(default_factory=lambda: ["wiki"])
    max_documents: Optional[int] = None
    dev_max_documents: Optional[int] = 300
    paragraph_sentences: int = 12
    data_dir: Optional[str] = None


@dataclass
class ConponoModelConfig:
    """The backbone (a folder, an installed package's model, or a Hub id) and how it is pooled and trained."""

    backbone: str = "sentence-transformers/all-MiniLM-L6-v2"
    revision: Optional[str] = None
    pooling: str = "mean"
    max_length: int = 128
    freeze_embeddings: bool = False
    train_layers: Optional[int] = None
    device: str = "cpu"
    bf16: bool = False


@dataclass
class ConponoObjectiveConfig:
    """The objective; defaults are the paper's (sections 2.1, 2.3, A.2)."""

    encoding: str = "combined"
    max_distance: int = 4
    anchor_sentences: int = 4
    target_sentences: int = 3
    hard_negatives: int = 3
    random_negatives: int = 28
    batch_size: int = 1
    mlm_weight: float = 1.0
    mlm_probability: float = 0.15
    eval_examples: int = 500
    eval_batch_size: int = 4

    def example_settings(self) -> ExampleSettings:
        """The part that cuts examples."""
        return ExampleSettings(anchor_sentences=self.anchor_sentences, target_sentences=self.target_sentences,
                               max_distance=self.max_distance, hard_negatives=self.hard_negatives,
                               random_negatives=self.random_negatives)


@dataclass
class ConponoRecipe:
    """A whole CONPONO recipe."""

    family: str = FAMILY
    data: ConponoData = field(default_factory=ConponoData)
    model: ConponoModelConfig = field(default_factory=ConponoModelConfig)
    objective: ConponoObjectiveConfig = field(default_factory=ConponoObjectiveConfig)
    loop: LoopConfig = field(default_factory=LoopConfig)


def recipe_from_mapping(values: Dict[str, Any], where: str) -> ConponoRecipe:
    """Build and check a recipe from a parsed mapping; every error names ``where`` and the key."""
    recipe = build_family_recipe(ConponoRecipe, values, where)
    check_recipe(recipe, where)
    return recipe


def check_recipe(recipe: ConponoRecipe, where: str) -> None:
    """Raise an InputError naming the first bad value."""
    data, model, objective = recipe.data, recipe.model, recipe.objective
    if not isinstance(data.corpora, list) or not data.corpora or not all(isinstance(c, str) for c in data.corpora):
        raise InputError(f"{where}: data.corpora must be a non-empty list of corpus names ({', '.join(CORPORA)})")
    for name in data.corpora:
        if name not in CORPORA:
            raise InputError(f"{where}: data.corpora: unknown corpus {name!r} (known: {', '.join(CORPORA)})")
        if CORPORA[name].held_out_only:
            raise InputError(f"{where}: data.corpora: {name!r} is held out for testing and is never trained on")
    checks = [
        (objective.encoding in ENCODINGS, f"objective.encoding must be one of {', '.join(ENCODINGS)}"),
        (model.pooling in POOLINGS, f"model.pooling must be one of {', '.join(POOLINGS)}"),
        (model.max_length >= 8, "model.max_length must be at least 8"),
        (objective.batch_size >= 1 and objective.eval_batch_size >= 1,
         "objective.batch_size and objective.eval_batch_size must be at least 1"),
        (objective.mlm_weight >= 0, "objective.mlm_weight must be 0 (no MLM loss) or positive"),
        (0 < objective.mlm_probability < 1, "objective.mlm_probability must be between 0 and 1"),
        (objective.eval_examples >= 0, "objective.eval_examples must be 0 or more"),
        (data.max_documents is None or data.max_documents >= 2, "data.max_documents must be at least 2"),
    ]
    refuse_failed(checks, where)
    objective.example_settings().check(f"{where}: objective")
    recipe.loop.check(where)


def load_paragraphs(data: ConponoData, settings: ExampleSettings, split: str,
                    limit: Optional[int]) -> List[Paragraph]:
    """Paragraph windows of the first ``limit`` documents of ``split`` of each corpus (train: never dev or test)."""
    data_dir = Path(data.data_dir) if data.data_dir else None
    paragraphs: List[Paragraph] = []
    for name in data.corpora:
        documents = itertools.islice(held_out_documents(name, split, data_dir), limit)
        paragraphs.extend(paragraphs_of(documents, data.paragraph_sentences, settings.min_paragraph_sentences))
    return paragraphs


def build_objective(recipe: ConponoRecipe, name: str = "conpono") -> ConponoObjective:
    """The model, tokenizer and data a recipe names, assembled into the objective."""
    from transformers import AutoTokenizer


    device = _device(recipe.model.device)
    settings = recipe.objective.example_settings()
    train = load_paragraphs(recipe.data, settings, "train", recipe.data.max_documents)
    dev = load_paragraphs(recipe.data, settings, "dev", recipe.data.dev_max_documents)
    logger.info("CONPONO data: %d training and %d held-out paragraphs from %s", len(train), len(dev),
                ", ".join(recipe.data.corpora))
    folder = backbone_folder(recipe.model.backbone, recipe.model.revision)
    encoder, head = load_backbone(folder, with_mlm=recipe.objective.mlm_weight > 0)
    freeze(encoder, recipe.model.freeze_embeddings, recipe.model.train_layers)
    model = ConponoModel(encoder, head, recipe.objective.encoding, recipe.objective.max_distance,
                         recipe.model.pooling, seed=recipe.loop.seed)
    model.to(device)
    tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    objective_settings = ObjectiveSettings(
        batch_size=recipe.objective.batch_size, max_length=recipe.model.max_length,
        mlm_weight=recipe.objective.mlm_weight, mlm_probability=recipe.objective.mlm_probability,
        eval_examples=recipe.objective.eval_examples, eval_batch_size=recipe.objective.eval_batch_size,
        seed=recipe.loop.seed, bf16=recipe.model.bf16)
    manifest = {"recipe": name, "backbone": recipe.model.backbone, "corpora": list(recipe.data.corpora),
                "anchor_sentences": settings.anchor_sentences, "target_sentences": settings.target_sentences}
    return ConponoObjective(model, tokenizer, train, dev, settings, objective_settings, manifest)


def _device(name: str) -> Any:
    import torch

    try:
        device = torch.device(name)
    except RuntimeError:
        raise InputError(f"model.device: unknown device {name!r} (use cpu, cuda, cuda:N or mps)") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"model.device is {name!r} but no CUDA GPU is available here; set model.device: cpu")
    return device


def prepare(path: Path, overrides: Dict[str, Any]) -> Tuple[ConponoRecipe, ConponoObjective]:
    """Read a recipe file (with dotted overrides) and build its objective."""
    recipe = recipe_from_mapping(read_recipe_mapping(path, overrides), str(path))
    seed_random_states(recipe.loop.seed)  # before the model is built: its initial weights follow the seed
    return recipe, build_objective(recipe, Path(path).stem)


def run_recipe(path: Path, overrides: Dict[str, Any], progress: bool) -> Dict[str, Any]:
    """Train a CONPONO recipe with :class:`~coherence_metric.training.loop.ObjectiveLoop`; returns the loop's result."""
    recipe, objective = prepare(Path(path), overrides)
    return ObjectiveLoop(objective, recipe.loop, recipe=asdict(recipe), progress=progress).run()


__all__ = ["ConponoData", "ConponoModelConfig", "ConponoObjectiveConfig", "ConponoRecipe", "build_objective",
           "check_recipe", "load_paragraphs", "prepare", "recipe_from_mapping", "run_recipe"]
