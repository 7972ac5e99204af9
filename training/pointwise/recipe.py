"""``family: pointwise`` recipes: short generator-shaped texts against generator-like corruptions, one scale.

What it trains is a normal coherence checkpoint (backbone + linear head, ``delta`` by default), so the
scorer, the benchmarks and the package read it like any other. The loop
(:class:`coherence_metric.training.loop.ObjectiveLoop`) gives resume, best/final folders and the log; the best
checkpoint is kept by ``select`` on synthetic dev (the mean of own-pair accuracy and cross-text AUC). Which run becomes
the default is decided afterwards on the human-judged dev-select half (``coherence-metric benchmark
human-dev``), never on a paper test set.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from coherence_metric import CoherenceModel
from coherence_metric.errors import InputError
from coherence_metric.toolkit import BackboneSpec, peft_deprecation_hidden, sha256_of_file

from ..config import build_family_recipe, read_recipe_mapping
from ..loop import LoopConfig, ObjectiveLoop
from ..model_setup import backbone_folder, freeze, start_from_checkpoint
from .objective import PointwiseObjective, PointwiseObjectiveSection
from .texts import PointwiseData, sample_documents

logger = logging.getLogger("coherence_metric.training")


@dataclass
class PointwiseLora:
    """``model.lora:``: rank, scale and target Linear layers of the adapters (PEFT LoRA).

    The defaults name every attention projection of an MPNet layer (``q``, ``k``, ``v``, ``o``) and of a BERT-like one
    (``query``, ``key``, ``value``) plus every ``dense`` layer (both feed-forward layers; BERT's attention output);
    targets the backbone lacks are ignored, and the pooler (never read: pooling reads the hidden states) is never
    adapted.
    """

    r: int = 16
    alpha: int = 32
    dropout: float = 0.0
    target_modules: List[str] = field(default_factory=lambda: ["q", "k", "v", "o", "query", "key", "value",
                                                              "dense"])


@dataclass
class PointwiseModelSection:
    """``model:``: the backbone, pooling, max length, and which of its weights train.

    ``train_layers`` top transformer layers train (None: all but the embeddings, 0: the head alone, a
    frozen-encoder probe); the embeddings stay frozen so that a ``delta`` checkpoint stays small.
    ``init_checkpoint`` starts from a coherence checkpoint's weights (its head and backbone) instead.
    ``num_layers`` keeps only the first transformer layers of that start (None: all): a faster student, which the
    recipe then trains; its checkpoint records the count (format 6) and loads on the same public backbone.
    ``lora`` trains low-rank adapters (PEFT LoRA) on every layer instead of whole tensors: the way a 110M backbone's
    checkpoint stays a few MB (``objective.save_flavour: adapter``); ``train_layers`` must then be null.
    """

    backbone: str = "sentence-transformers/all-MiniLM-L6-v2"
    backbone_revision: Optional[str] = None
    pooling: str = "mean"
    max_length: int = 256
    train_layers: Optional[int] = 2
    init_checkpoint: Optional[str] = None
    num_layers: Optional[int] = None
    lora: Optional[PointwiseLora] = None
    device: str = "cpu"


@dataclass
class PointwiseRecipe:
    """A whole pointwise recipe."""

    family: str = "pointwise"
    model: PointwiseModelSection = field(default_factory=PointwiseModelSection)
    data: PointwiseData = field(default_factory=PointwiseData)
    objective: PointwiseObjectiveSection = field(default_factory=PointwiseObjectiveSection)
    loop: LoopConfig = field(default_factory=lambda: LoopConfig(**LOOP_DEFAULTS))


#: The loop keys whose generic defaults do not suit fine-tuning a pretrained encoder on this objective.
LOOP_DEFAULTS: Dict[str, Any] = {"output_dir": "runs/pointwise", "lr": 2e-5, "select": "select"}


def recipe_from_mapping(values: Dict[str, Any], where: str) -> PointwiseRecipe:
    """Build and check a recipe from a parsed mapping (a ``loop:`` section keeps ``LOOP_DEFAULTS`` it omits)."""
    if isinstance(values, dict) and isinstance(values.get("loop"), dict):
        values = {**values, "loop": {**LOOP_DEFAULTS, **values["loop"]}}
    recipe = build_family_recipe(PointwiseRecipe, values, where)
    recipe.data.check(where)
    recipe.objective.check(where)
    if recipe.model.train_layers is not None and recipe.model.train_layers < 0:
        raise InputError(f"{where}: model.train_layers must be >= 0 (or null)")
    if recipe.model.num_layers is not None and (isinstance(recipe.model.num_layers, bool)
                                                 or not isinstance(recipe.model.num_layers, int)
                                                 or recipe.model.num_layers < 1):
        raise InputError(f"{where}: model.num_layers must be a positive integer (or null), got "
                         f"{recipe.model.num_layers!r}")
    if recipe.objective.lead_negative_weight > 0 and not recipe.data.truncation_leads:
        raise InputError(f"{where}: objective.lead_negative_weight ranks leads above negatives, and there are none: "
                         "set data.truncation_leads: true")
    lora = recipe.model.lora
    if lora is not None and (recipe.model.train_layers is not None or recipe.objective.save_flavour != "adapter"):
        raise InputError(f"{where}: model.lora trains adapters on every layer: set model.train_layers: null and "
                         "objective.save_flavour: adapter")
    if lora is None and recipe.objective.save_flavour == "adapter":
        raise InputError(f"{where}: objective.save_flavour adapter needs a model.lora section")
    if lora is not None and not (lora.r >= 1 and lora.alpha > 0 and 0 <= lora.dropout < 1 and lora.target_modules):
        raise InputError(f"{where}: model.lora needs r >= 1, alpha > 0, 0 <= dropout < 1 and target_modules")
    if recipe.model.train_layers == 0 and recipe.objective.save_flavour == "delta":
        raise InputError(f"{where}: model.train_layers 0 trains the head alone, which a delta checkpoint cannot hold "
                         "(it stores changed backbone tensors): set objective.save_flavour: full")
    return recipe


def load_pointwise_recipe(path: Path, overrides: Optional[Dict[str, Any]] = None) -> PointwiseRecipe:
    """Read a YAML recipe with dotted overrides (``data.negatives.shuffle=2``)."""
    return recipe_from_mapping(read_recipe_mapping(Path(path), overrides), str(path))


def build_model(recipe: PointwiseRecipe) -> Tuple[Any, Any]:
    """The recipe's CoherenceModel (pretrained backbone with its sha256, seeded head, frozen layers) and tokenizer."""
    import torch
    from transformers import AutoTokenizer



    section = recipe.model
    torch.manual_seed(recipe.loop.seed)
    folder = backbone_folder(section.backbone, section.backbone_revision)
    model = CoherenceModel.from_backbone(folder, pooling=section.pooling, max_length=section.max_length,
                                         seed=recipe.loop.seed)
    weights = folder / "model.safetensors"
    model.backbone_spec = BackboneSpec(name_or_path=section.backbone, revision=section.backbone_revision,
                                       model_type=model.backbone_spec.model_type,
                                       weights_sha256=sha256_of_file(weights) if weights.is_file() else None)
    if section.init_checkpoint:
        start_from_checkpoint(model, section.init_checkpoint)
    if section.num_layers is not None:
        model.keep_first_layers(section.num_layers)
    freeze(model.backbone, True, section.train_layers)
    if section.lora is not None:
        add_lora(model, section.lora)
    return model.to(section.device), AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)


def add_lora(model: Any, lora: PointwiseLora) -> None:
    """Wrap the model's backbone in PEFT LoRA adapters (the base weights freeze; the head stays trainable)."""
    from peft import LoraConfig, get_peft_model
    from torch import nn


    wanted = set(lora.target_modules)
    targets = sorted({name.split(".")[-1] for name, module in model.backbone.named_modules()
                      if isinstance(module, nn.Linear) and name.split(".")[-1] in wanted
                      and not name.startswith("pooler.")})
    if not targets:
        raise InputError(f"model.lora.target_modules {sorted(wanted)} match no Linear layer of the backbone")
    # A regular expression on the full module name, so that the pooler's ``dense`` is left alone.
    pattern = r"^(?!pooler\.).*\.(" + "|".join(targets) + ")$"
    config = LoraConfig(r=lora.r, lora_alpha=lora.alpha, lora_dropout=lora.dropout, target_modules=pattern)
    with peft_deprecation_hidden():
        model.backbone = get_peft_model(model.backbone, config)


def run_recipe(path: Path, overrides: Dict[str, Any], progress: bool) -> Dict[str, Any]:
    """Train a pointwise recipe (resuming from ``loop.output_dir``); returns the loop's result."""
    recipe = load_pointwise_recipe(path, overrides)
    train, dev = sample_documents(recipe.data, "train"), sample_documents(recipe.data, "dev")
    logger.info("pointwise: %d train and %d dev documents from %s", len(train), len(dev),
                ", ".join(recipe.data.corpora))
    model, tokenizer = build_model(recipe)
    info = {"objective": "pointwise", "family": "pointwise", "seed": recipe.loop.seed,
            "recipe": asdict(recipe)}
    objective = PointwiseObjective(model, tokenizer, train, dev, recipe.data, recipe.objective,
                                   recipe.model.max_length, recipe.loop.lr, info)
    return ObjectiveLoop(objective, recipe.loop, recipe=asdict(recipe), progress=progress).run()


__all__ = ["PointwiseLora", "PointwiseModelSection", "PointwiseRecipe", "add_lora", "build_model",
           "load_pointwise_recipe", "recipe_from_mapping", "run_recipe"]
