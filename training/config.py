"""Training recipes: YAML files under training/configs/ parsed into typed dataclasses.

Every key is checked: a misspelt key is an error naming it, never a silently ignored setting (the
reference code's ``load_state_dict(strict=False)`` inside ``try/except: pass`` is what we avoid).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Type, TypeVar

from coherence_metric.errors import InputError

from .checks import refuse_failed

OBJECTIVES = ("pairwise", "contrastive", "full")
SCHEDULES = ("swalr", "linear", "constant")
FLAVOURS = ("full", "delta", "adapter")

T = TypeVar("T")


@dataclass
class DataConfig:
    """Where the prepared splits are (the output folder of ``coherence-metric train prepare``)."""

    dir: str = "runs/data"
    train_limit: Optional[int] = None
    dev_limit: Optional[int] = 300
    # Most training items a corpus may contribute, e.g. {wiki: 8000}: long Wikipedia articles give ~78% of
    # all blocks, and a CPU budget sees only a few thousand. Dev is capped in the same proportion.
    source_limits: Dict[str, int] = field(default_factory=dict)
    # Drop every train/dev document sharing a sentence of 8+ words with a benchmark test set (the paper
    # suite, the stand-ins and the probes): duplicated wire stories and Wikipedia articles INSteD also used.
    decontaminate: bool = False


@dataclass
class ObjectiveConfig:
    """Which loss (eqs. 1, 2, 3-5) and its hyper-parameters; defaults are the paper's (Table 5, section 3.4)."""

    name: str = "full"
    margin: float = 0.1
    negatives: int = 5
    momentum: float = 0.9999999
    queue_size: int = 1000
    loss_weight: float = 0.85
    slice: str = "random"
    slice_min_sentences: int = 4
    negatives_against: str = "base"
    # How many of the ``negatives`` per document are intrusion negatives (one sentence swapped for the most
    # similar sentence of another document of the same corpus, as INSteD builds its test); the rest are
    # permutations. 0 = the paper (permutations only).
    intrusions: int = 0
    # Beyond the paper: score = head + cohesion_weight * mean adjacent-sentence cosine of the pretrained
    # backbone's sentence embeddings (coherence_metric/scoring/sentence_pass.py), in the loss, in mining, on dev and
    # in the saved checkpoint. A fixed number; None = no term (the paper).
    cohesion_weight: Optional[float] = None


@dataclass
class MiningConfig:
    """Hard-negative mining by local ranking (Algorithm 1): every ``every`` steps, rank ``candidates``."""

    enabled: bool = False
    candidates: int = 50
    every: int = 200


@dataclass
class OptimizerConfig:
    """AdamW; the reference code used lr 5e-6, eps 1e-6, no weight decay, no clipping."""

    lr: float = 5e-6
    weight_decay: float = 0.0
    eps: float = 1e-6
    grad_clip: Optional[float] = None
    # The linear head starts random and is 385 numbers: a larger rate lets it find the order-sensitive
    # directions the backbone already has while the backbone moves slowly. None = ``lr`` (the paper).
    head_lr: Optional[float] = None


@dataclass
class ScheduleConfig:
    """``swalr``: linear anneal from lr to ``final_lr`` over ``anneal_steps`` (the paper's SWALR);
    ``linear``: warmup then linear decay to ``final_lr`` at ``max_steps``; ``constant``."""

    name: str = "swalr"
    final_lr: float = 1e-6
    anneal_steps: int = 5000
    warmup_steps: int = 0


@dataclass
class LoraConfig:
    """PEFT LoRA on the backbone (BERT-like: attention and dense layers; XLNet: feed-forward only)."""

    r: int = 16
    alpha: int = 32
    dropout: float = 0.0
    target_modules: List[str] = field(default_factory=lambda: ["query", "key", "value", "dense"])


@dataclass
class TrainConfig:
    """The loop: steps, accumulation, precision, evaluation, checkpoints, which weights train."""

    max_steps: int = 1000
    epochs: int = 1
    accumulation: int = 1
    bf16: bool = False
    eval_every: int = 1000
    log_every: int = 10
    seed: int = 100
    freeze_embeddings: bool = False
    train_layers: Optional[int] = None
    save_flavour: str = "full"
    delta_bf16: bool = False
    dropout: Optional[float] = None  # None keeps the backbone's own dropout (0.1 for BERT-like models)


@dataclass
class RecipeConfig:
    """A whole recipe: backbone, data, objective, mining, optimiser, schedule, loop and output folder."""

    backbone: str
    output_dir: str
    backbone_revision: Optional[str] = None
    pooling: Optional[str] = None
    max_length: int = 512
    data: DataConfig = field(default_factory=DataConfig)
    objective: ObjectiveConfig = field(default_factory=ObjectiveConfig)
    mining: MiningConfig = field(default_factory=MiningConfig)
    optimizer: OptimizerConfig = field(default_factory=OptimizerConfig)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    lora: Optional[LoraConfig] = None
    train: TrainConfig = field(default_factory=TrainConfig)
    # Start from this coherence checkpoint's weights (``default``, a packaged name or a folder) instead of the
    # pretrained backbone with a fresh head; it must stand on the recipe's backbone. None = the paper's start.
    init_checkpoint: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        """Plain-Python form, recorded in checkpoints and logs."""
        return dataclasses.asdict(self)


_SECTIONS: Dict[str, Type[Any]] = {
    "data": DataConfig,
    "objective": ObjectiveConfig,
    "mining": MiningConfig,
    "optimizer": OptimizerConfig,
    "schedule": ScheduleConfig,
    "lora": LoraConfig,
    "train": TrainConfig,
}


def build_section(cls: Type[T], values: Any, where: str) -> T:
    """A dataclass from a mapping: unknown keys and mistyped scalars are errors naming ``where`` and the key."""
    if not isinstance(values, dict):
        raise InputError(f"{where} must be a mapping of keys to values")
    known = {item.name for item in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - known)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    hints = typing.get_type_hints(cls)
    values = {key: _typed(value, hints[key], f"{where}: {key}") for key, value in values.items()}
    try:
        return cls(**values)
    except TypeError as error:
        raise InputError(f"{where}: {error}") from None


def build_family_recipe(cls: Type[T], values: Any, where: str) -> T:
    """A family's recipe dataclass (``family`` + dataclass-typed sections) from a parsed mapping.

    Every section is built with :func:`build_section` (strict keys, typed scalars) and a ``family`` other than
    the class's own is refused; the family's own value checks come after.
    """
    if not isinstance(values, dict):
        raise InputError(f"{where} must be a mapping")
    fields = {item.name: item for item in dataclasses.fields(cls)}  # type: ignore[arg-type]
    family = fields["family"].default
    if values.get("family", family) != family:
        raise InputError(f"{where}: family must be {family!r} for this recipe, got {values.get('family')!r}")
    hints = typing.get_type_hints(cls)
    values = dict(values)
    for name in fields:
        if dataclasses.is_dataclass(hints[name]) and values.get(name) is not None:
            values[name] = build_section(hints[name], values[name], f"{where}: {name}")
        elif dataclasses.is_dataclass(hints[name]):
            values.pop(name, None)
    return build_section(cls, values, where)


def _typed(value: Any, annotation: Any, where: str) -> Any:
    """Check a scalar against its field's type; a number written as text (YAML 1.1 reads ``1e-3`` as a
    string) becomes a number, an int becomes a float where a float is expected, anything else is an error."""
    optional = typing.get_origin(annotation) is typing.Union and type(None) in typing.get_args(annotation)
    if optional:
        if value is None:
            return None
        annotation = next(arg for arg in typing.get_args(annotation) if arg is not type(None))
    if dataclasses.is_dataclass(annotation) and not isinstance(value, annotation):  # type: ignore[arg-type]
        return build_section(annotation, value, where)  # a nested section (``model.lora``): strict keys, typed scalars
    if annotation is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise InputError(f"{where} must be a number, got {value!r}")
    if annotation is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise InputError(f"{where} must be an integer, got {value!r}")
    if annotation is bool and not isinstance(value, bool):
        raise InputError(f"{where} must be true or false, got {value!r}")
    if annotation is str and not isinstance(value, str):
        raise InputError(f"{where} must be text, got {value!r}")
    return value


def _check(config: RecipeConfig, where: str) -> None:
    checks = [
        (config.objective.name in OBJECTIVES, f"objective.name must be one of {', '.join(OBJECTIVES)}"),
        (config.schedule.name in SCHEDULES, f"schedule.name must be one of {', '.join(SCHEDULES)}"),
        (config.train.save_flavour in FLAVOURS, f"train.save_flavour must be one of {', '.join(FLAVOURS)}"),
        (config.objective.negatives >= 1, "objective.negatives must be at least 1"),
        (0 <= config.objective.intrusions < config.objective.negatives,
         "objective.intrusions must be at least 0 and below objective.negatives (some negatives stay permutations)"),
        (config.objective.slice in ("random", "prefix"), "objective.slice must be 'random' or 'prefix'"),
        (config.objective.negatives_against in ("base", "momentum"), "objective.negatives_against: base|momentum"),
        (0.0 <= config.objective.momentum < 1.0, "objective.momentum must be in [0, 1)"),
        (isinstance(config.data.source_limits, dict) and all(
            isinstance(name, str) and isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1
            for name, limit in config.data.source_limits.items()),
         "data.source_limits must map corpus names to positive integers"),
        (config.train.dropout is None or 0.0 <= config.train.dropout < 1.0, "train.dropout must be in [0, 1)"),
        (config.train.max_steps >= 1 and config.train.accumulation >= 1, "train.max_steps/accumulation must be >= 1"),
        (not config.mining.enabled or config.mining.candidates >= config.objective.negatives,
         "mining.candidates must be at least objective.negatives"),
        (config.train.save_flavour != "adapter" or config.lora is not None,
         "train.save_flavour 'adapter' needs a lora section"),
        (config.objective.cohesion_weight is None or config.objective.cohesion_weight > 0,
         "objective.cohesion_weight must be a positive number (leave it out for no cohesion term)"),
    ]
    refuse_failed(checks, where)


def recipe_from_dict(values: Dict[str, Any], where: str = "recipe") -> RecipeConfig:
    """Build and check a RecipeConfig from a parsed mapping (YAML or a test's dict)."""
    if not isinstance(values, dict):
        raise InputError(f"{where} must be a mapping")
    values = dict(values)
    for key, cls in _SECTIONS.items():
        if key in values and values[key] is not None:
            values[key] = build_section(cls, values[key], f"{where}: {key}")
    config = build_section(RecipeConfig, values, where)
    _check(config, where)
    return config


def load_recipe(path: Path, overrides: Optional[Dict[str, Any]] = None) -> RecipeConfig:
    """Read a YAML recipe; ``overrides`` maps dotted keys (``train.max_steps``) to values.

    Raises:
        InputError: a missing or unparsable file, an unknown key, or an invalid value, naming the file.
    """
    values = read_recipe_mapping(path, overrides)
    values.pop("family", None)  # "coherence" is the only family this loader reads (see training/families.py)
    return recipe_from_dict(values, str(path))


def read_recipe_mapping(path: Path, overrides: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A recipe YAML file as a mapping, with dotted-key ``overrides`` applied (``loop.max_steps=10``).

    Raises:
        InputError: a missing or unparsable file, or an override into a key that is not a section.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise InputError(f"recipe not found: {path}")
    try:
        values = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise InputError(f"{path} is not valid YAML: {str(error).splitlines()[0]}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text") from None
    if not isinstance(values, dict):
        raise InputError(f"{path} must hold a mapping of recipe keys")
    return apply_overrides(values, overrides)


def apply_overrides(values: Dict[str, Any], overrides: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """``values`` (a recipe mapping, changed in place and returned) with dotted-key ``overrides`` applied.

    Raises:
        InputError: an override into a key that is not a section.
    """
    for dotted, value in (overrides or {}).items():
        target = values
        *parents, last = dotted.split(".")
        for parent in parents:
            target = target.setdefault(parent, {})
            if not isinstance(target, dict):
                raise InputError(f"override {dotted}: {parent} is not a section")
        target[last] = value
    return values
