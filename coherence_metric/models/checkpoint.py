"""Saving and loading checkpoints: the one contract between ``training`` and the scorer.

Three flavours share one folder layout (docs/reproducibility.md, "Checkpoints and offline use"):

- ``full``: ``backbone/`` (config + safetensors) + ``head.safetensors``; self-contained.
- ``adapter``: ``adapter/`` (a PEFT adapter) + ``head.safetensors`` over a named backbone.
- ``delta``: ``backbone_delta.safetensors`` (only the backbone tensors that training changed, optionally
  in bf16) + ``head.safetensors`` over a named backbone; small enough to ship inside the package.

``tokenizer/`` is saved whenever a tokenizer is given. ``coherence_config.json`` records the sha256 of
every file, checked on load, so a truncated download or an edited weight file is refused, never scored; a file
where the loaders read that the config does not list, or a path leading out of the folder, is refused too.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple, Union

import torch
from torch import nn

from ..errors import CheckpointError, InputError
from ..version import __version__
from .backbones import verified_backbone_folder
from .checkpoint_config import (
    ADAPTER_DIR,
    BACKBONE_DIR,
    COHESION_FORMAT_VERSION,
    COHESION_KEY,
    CONFIG_NAME,
    DELTA_FILE,
    FLAVOURS,
    HEAD_FILE,
    LAYER_CUT_FORMAT_VERSION,
    LOCAL_KEY,
    LOCAL_TERM_FORMAT_VERSION,
    REFERENCE_FLAVOUR,
    SENTENCE_SCORER_FORMAT_VERSION,
    TOKENIZER_DIR,
    TRANSITION_TERM_FORMAT_VERSION,
    CheckpointConfig,
    hash_folder_files,
    make_files_readable,
    read_checkpoint_config,
    unverified_backbone,
    verify_checkpoint_files,
)
from .layers import keep_first_layers
from .lora import ADAPTER_WEIGHTS, merge_lora_adapter
from .model import CoherenceModel
from .pretrained import load_encoder, load_tokenizer
from .quiet import quiet_transformers
from .registry import packaged_checkpoint_folders, packaged_folder, read_alias_table
from .sentence_scorer import TENSOR_PREFIX as SENTENCE_SCORER_PREFIX
from .sentence_scorer import SentenceLevelScorer, SentenceScorerShape
from .transition_registry import DEFAULT_TRANSITION_MODEL, PACKAGED_DIR, transition_model_identity
from .transition_term import TransitionTerm

logger = logging.getLogger("coherence_metric")

PathLike = Union[str, Path]


@dataclass
class LoadedCheckpoint:
    """A model ready to score, its tokenizer and the config it was built from."""

    model: CoherenceModel
    tokenizer: Any
    config: CheckpointConfig
    folder: Path


def _library_versions() -> Dict[str, str]:
    import transformers

    return {"coherence_metric": __version__, "transformers": transformers.__version__, "torch": torch.__version__}


def _is_peft_model(module: nn.Module) -> bool:
    try:
        from peft import PeftModel
    except ImportError:
        return False
    return isinstance(module, PeftModel)


def _head_tensors(model: CoherenceModel) -> Dict[str, torch.Tensor]:
    tensors = {
        "weight": model.head.weight.detach().float().cpu().contiguous(),
        "bias": model.head.bias.detach().float().cpu().contiguous(),
    }
    if model.cohesion_weight is not None:  # in the head file, so the fingerprint covers it
        tensors[COHESION_KEY] = model.cohesion_weight.detach().float().cpu().reshape(1).contiguous()
    if model.sentence_scorer is not None:
        tensors.update(model.sentence_scorer.tensors())
    if model.local_weight is not None:
        tensors[LOCAL_KEY] = model.local_weight.detach().float().cpu().reshape(1).contiguous()
    return tensors


def _write_weights(
    model: CoherenceModel, target: Path, tokenizer: Any, flavour: str, delta_dtype: Optional[torch.dtype]
) -> None:
    """Write the flavour's backbone files, the head and the tokenizer into ``target``."""
    from safetensors.torch import save_file

    backbone: Any = model.backbone  # a transformers or PEFT model: save_pretrained is theirs
    if flavour == "adapter":
        if not _is_peft_model(backbone):
            raise InputError("flavour='adapter' needs a PEFT-wrapped backbone (peft.get_peft_model)")
        backbone.save_pretrained(str(target / ADAPTER_DIR), safe_serialization=True)
    elif flavour == "full":
        if _is_peft_model(backbone):  # merge a copy: merge_and_unload would strip the caller's adapter
            backbone = copy.deepcopy(backbone).merge_and_unload()
        backbone.save_pretrained(str(target / BACKBONE_DIR), safe_serialization=True)
    else:
        if _is_peft_model(backbone):
            raise InputError("flavour='delta' takes a plain backbone; save a PEFT model as 'adapter' or 'full'")
        delta = {
            name: parameter.detach().cpu().to(delta_dtype or parameter.dtype).contiguous()
            for name, parameter in backbone.named_parameters()
            if parameter.requires_grad
        }
        if not delta:
            raise InputError("flavour='delta' found no trainable backbone parameter: nothing to save")
        save_file(delta, str(target / DELTA_FILE))
    save_file(_head_tensors(model), str(target / HEAD_FILE))
    if tokenizer is not None:
        tokenizer.save_pretrained(str(target / TOKENIZER_DIR))


def save_checkpoint(
    model: CoherenceModel,
    folder: PathLike,
    tokenizer: Any = None,
    flavour: str = "full",
    delta_dtype: Optional[torch.dtype] = None,
    training: Optional[Dict[str, Any]] = None,
    overwrite: bool = False,
) -> Path:
    """Write ``model`` as a checkpoint folder that ``load_checkpoint`` and ``CoherenceScorer`` read.

    Args:
        model: the model to save.
        folder: the target folder; it must be empty or absent unless ``overwrite``.
        tokenizer: saved under ``tokenizer/`` when given (needed when the backbone is not a public model).
        flavour: ``full``, ``adapter`` (the backbone must be a PEFT model) or ``delta`` (the backbone's
            trainable tensors only, i.e. those with ``requires_grad``; frozen ones come from the named backbone).
        delta_dtype: store delta tensors in this dtype (e.g. ``torch.bfloat16`` to halve the size).
        training: how the model was trained (objective, data, steps, seed), recorded in the config.
        overwrite: replace an existing checkpoint folder.

    Returns:
        The checkpoint folder.
    """
    if flavour not in FLAVOURS:
        raise InputError(f"unknown checkpoint flavour {flavour!r}: choose one of {', '.join(FLAVOURS)}")
    if flavour == "full" and tokenizer is None:
        raise InputError("flavour='full' needs the tokenizer: a full checkpoint must be self-contained")
    _check_backbone_hash(model, flavour)
    target = Path(folder)
    _empty_target(target, overwrite)
    target.mkdir(parents=True, exist_ok=True)

    with quiet_transformers():
        _write_weights(model, target, tokenizer, flavour, delta_dtype)
    make_files_readable(target)

    config = CheckpointConfig(
        flavour=flavour,
        backbone=model.backbone_spec,
        pooling=model.pooling,
        max_length=model.max_length,
        hidden_size=model.hidden_size,
        files=hash_folder_files(target),
        training=dict(training or {}),
        library_versions=_library_versions(),
        format_version=_format_version(model),
        sentence_scorer=None if model.sentence_scorer is None else model.sentence_scorer.shape.to_dict(),
        num_layers=model.num_layers,
    )
    config.write(target)
    logger.info("saved %s checkpoint to %s", flavour, target)
    return target


def _check_backbone_hash(model: CoherenceModel, flavour: str) -> None:
    """Refuse to write a checkpoint that loading would refuse: one reading a backbone with no recorded sha256."""
    uses_backbone = flavour != "full" or model.sentence_scorer is not None or model.cohesion_weight is not None
    if uses_backbone and model.backbone_spec.weights_sha256 is None:
        raise InputError(f"flavour={flavour!r} with this model reads the pretrained backbone "
                         f"{model.backbone_spec.name_or_path}, whose weights_sha256 is unknown (backbone_spec."
                         "weights_sha256 is None): build the model from a local folder holding model.safetensors")


def _empty_target(target: Path, overwrite: bool) -> None:
    """Refuse to write into a non-empty ``target`` unless ``overwrite``, which clears it first."""
    if target.exists() and any(target.iterdir()):
        if not overwrite:
            raise InputError(f"{target} is not empty: choose another folder or pass overwrite=True")
        shutil.rmtree(target)


def _copy_with_head(source: Path, out: Path, tensors: Dict[str, torch.Tensor], verified: Path) -> None:
    """Copy the checkpoint ``source`` to ``out`` byte for byte, except its head file (written from ``tensors``)
    and its config (left for the caller to write with the new hashes). Its listed files are copied from
    ``verified`` (:func:`_verified_copy`), so the new hashes are of the bytes that were checked."""
    from safetensors.torch import save_file

    shutil.copytree(source, out, dirs_exist_ok=True)
    shutil.copytree(verified, out, dirs_exist_ok=True)
    (out / CONFIG_NAME).unlink()
    save_file(tensors, str(out / HEAD_FILE))
    make_files_readable(out)


def add_sentence_scorer(
    base: PathLike,
    scorer: SentenceLevelScorer,
    target: PathLike,
    training: Optional[Dict[str, Any]] = None,
    overwrite: bool = False,
) -> Path:
    """Write a copy of the checkpoint ``base`` whose score adds ``scorer``'s sentence-level term.

    The backbone files are copied byte for byte (a delta stays the same delta); the head file gains the term's
    tensors and the config its shape, format 3, new file hashes, and ``training.sentence_scorer`` (how the term
    was trained) beside ``training.base_checkpoint`` (the fingerprint of ``base``).

    Raises:
        InputError: ``target`` is not empty (without ``overwrite``), ``base`` already has such a term, or the term
            reads sentence embeddings of another width than the backbone's.
        CheckpointError: ``base`` is not a valid checkpoint.
    """
    source, out = Path(base), Path(target)
    config = read_checkpoint_config(source)
    with _verified_copy(source, config) as verified:
        if config.sentence_scorer is not None:
            raise InputError(f"{source} already has a sentence-level term")
        if config.backbone.weights_sha256 is None:
            raise InputError(f"{source} records no backbone.weights_sha256: a sentence-level term over it could not "
                             "verify the backbone that embeds its sentences")
        if scorer.shape.embedding_dim != config.hidden_size:
            raise InputError(f"the sentence scorer reads {scorer.shape.embedding_dim}-wide embeddings, but "
                             f"{source}'s backbone gives {config.hidden_size}")
        _empty_target(out, overwrite)
        _copy_with_head(source, out, {**_read_tensors(verified / HEAD_FILE, source / HEAD_FILE), **scorer.tensors()},
                        verified)
    config.training = {**config.training, "base_checkpoint": config.fingerprint(),
                       "sentence_scorer": dict(training or {})}
    config.files = hash_folder_files(out)
    config.format_version = _keeping_layer_cut(config, SENTENCE_SCORER_FORMAT_VERSION)
    config.sentence_scorer = scorer.shape.to_dict()
    config.library_versions = _library_versions()
    config.write(out)
    logger.info("wrote %s: %s with a sentence-level term", out, source)
    return out


def remove_sentence_scorer(source: PathLike, target: PathLike, overwrite: bool = False) -> Path:
    """Write the checkpoint that ``add_sentence_scorer`` started from: ``source`` without its sentence-level term.

    The head file is rewritten without the term's tensors (safetensors writes the same tensors to the same bytes)
    and the config returns to the base's format and training record, so the result has the fingerprint recorded
    in ``source``'s ``training.base_checkpoint`` (in the current fingerprint scheme, or for a checkpoint written
    before scheme 2, such as ``cm-minilm-2026.11``, in the file-list-only scheme 1 it was recorded in). This is how
    the term of ``cm-minilm-2026.11`` (the 0.1.0 default) is retrained from that checkpoint.

    Raises:
        InputError: ``source`` has no sentence-level term, or ``target`` is not empty (without ``overwrite``).
        CheckpointError: ``source`` is not a valid checkpoint, or the result does not match the recorded base.
    """
    origin, out = Path(source), Path(target)
    config = read_checkpoint_config(origin)
    with _verified_copy(origin, config) as verified:
        if config.sentence_scorer is None:
            raise InputError(f"{origin} has no sentence-level term to remove")
        _empty_target(out, overwrite)
        tensors = {name: tensor for name, tensor in _read_tensors(verified / HEAD_FILE, origin / HEAD_FILE).items()
                   if not name.startswith(SENTENCE_SCORER_PREFIX)}
        _copy_with_head(origin, out, tensors, verified)
    expected = config.training.get("base_checkpoint")
    config.training = {key: value for key, value in config.training.items()
                       if key not in ("base_checkpoint", "sentence_scorer")}
    config.files = hash_folder_files(out)
    config.format_version = _keeping_layer_cut(config, COHESION_FORMAT_VERSION if COHESION_KEY in tensors else 1)
    config.sentence_scorer = None
    config.write(out)
    if expected is not None and expected not in (config.fingerprint(), config.files_fingerprint()):
        raise CheckpointError(f"{origin} without its term has fingerprint {config.fingerprint()}, not the recorded "
                              f"base {expected}: the head file was not written by add_sentence_scorer")
    logger.info("wrote %s: %s without its sentence-level term (%s)", out, origin, config.fingerprint())
    return out


def _keeping_layer_cut(config: CheckpointConfig, version: int) -> int:
    """The format of a copy whose term needs ``version``: a cut backbone (``num_layers``) still needs format 6."""
    return max(version, LAYER_CUT_FORMAT_VERSION) if config.num_layers is not None else version


def _format_version(model: CoherenceModel) -> int:
    """The oldest format that describes the model, so older releases keep reading what they score correctly."""
    if model.num_layers is not None:
        return LAYER_CUT_FORMAT_VERSION
    if model.local_weight is not None:
        return LOCAL_TERM_FORMAT_VERSION
    if model.sentence_scorer is not None:
        return SENTENCE_SCORER_FORMAT_VERSION
    return COHESION_FORMAT_VERSION if model.cohesion_weight is not None else 1


def _load_sentence_scorer(path: Path, config: CheckpointConfig,
                          tensors: Dict[str, torch.Tensor]) -> Optional[SentenceLevelScorer]:
    """The sentence-level term the config describes, rebuilt from the head file's tensors (None without one)."""
    has_tensors = any(key.startswith(SENTENCE_SCORER_PREFIX) for key in tensors)
    if config.sentence_scorer is None:
        if has_tensors:
            raise CheckpointError(f"{path} is corrupt: it holds sentence scorer tensors its config does not describe")
        return None
    try:
        shape = SentenceScorerShape.from_dict(config.sentence_scorer)
        if shape.embedding_dim != config.hidden_size:
            raise InputError(f"its embedding_dim {shape.embedding_dim} is not the backbone's {config.hidden_size}")
        return SentenceLevelScorer.from_tensors(shape, tensors)
    except (InputError, TypeError) as error:
        raise CheckpointError(f"{path} is corrupt: the sentence scorer does not load ({error})") from None


def _read_tensors(path: Path, shown: Optional[Path] = None) -> Dict[str, torch.Tensor]:
    """Every tensor of a safetensors file, parsed from one read of its bytes; an unreadable one is a corrupt
    checkpoint (named as ``shown``, default ``path``)."""
    from safetensors.torch import load

    try:
        return load(path.read_bytes())
    except Exception as error:  # safetensors raises its own error types (and OSError) for damaged files
        message = str(error).splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"{shown or path} is corrupt: not a readable safetensors file ({message})") from None


def _load_local_weight(path: Path, tensors: Dict[str, torch.Tensor], config: CheckpointConfig) -> Optional[float]:
    """The local term's weight, for a format-4 checkpoint whose head file holds one; refuses one out of (0, 1]."""
    value = tensors.get(LOCAL_KEY)
    if value is None:
        return None
    if config.format_version < LOCAL_TERM_FORMAT_VERSION:
        raise CheckpointError(f"{path} is corrupt: it holds {LOCAL_KEY} but its config says format "
                              f"{config.format_version}")
    weight = float(value.reshape(-1)[0]) if value.numel() == 1 else float("nan")
    if not 0.0 < weight <= 1.0:
        raise CheckpointError(f"{path} is corrupt: {LOCAL_KEY} must be one number in (0, 1]")
    return weight


def set_local_term(base: PathLike, target: PathLike, weight: float, training: Optional[Dict[str, Any]] = None,
                   overwrite: bool = False) -> Path:
    """Write a copy of the checkpoint ``base`` whose score mixes in its local term with ``weight`` (0 < w <= 1).

    The backbone files are copied byte for byte; the head file gains ``local_weight``, the config format 4, new file
    hashes and ``training.local_term`` (how the weight was chosen) beside ``training.base_checkpoint``. The weight is
    chosen after training, on dev data, so it is set here rather than by the trainer.

    Raises:
        InputError: a weight out of (0, 1], ``base`` already has a local term, or ``target`` is not empty.
        CheckpointError: ``base`` is not a valid checkpoint.
    """
    source, out = Path(base), Path(target)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 < float(weight) <= 1.0:
        raise InputError(f"the local term's weight must be a number in (0, 1], got {weight!r}")
    config = read_checkpoint_config(source)
    with _verified_copy(source, config) as verified:
        tensors = _read_tensors(verified / HEAD_FILE, source / HEAD_FILE)
        if LOCAL_KEY in tensors:
            raise InputError(f"{source} already has a local term")
        _empty_target(out, overwrite)
        _copy_with_head(source, out, {**tensors, LOCAL_KEY: torch.tensor([float(weight)])}, verified)
    config.training = {**config.training, "base_checkpoint": config.fingerprint(),
                       "local_term": {"weight": float(weight), **dict(training or {})}}
    config.files = hash_folder_files(out)
    config.format_version = _keeping_layer_cut(config, LOCAL_TERM_FORMAT_VERSION)
    config.library_versions = _library_versions()
    config.write(out)
    logger.info("wrote %s: %s with a local term of weight %s", out, source, weight)
    return out


def write_transition_term(base: str, target: PathLike, weight: float, transition_model: Optional[str] = None,
                          training: Optional[Dict[str, Any]] = None, overwrite: bool = False) -> Path:
    """Write a reference checkpoint: the packaged checkpoint ``base`` (by name and fingerprint, no weights copied)
    whose score mixes in a packaged transition model's mean boundary logit with ``weight`` (0 < w < 1).

    The weight is chosen on dev data after both models are trained, so it is set here, and ``training.transition_term``
    records how it was chosen.

    Raises:
        InputError: a weight out of (0, 1), an unknown transition model, or ``target`` is not empty.
        CheckpointError: ``base`` is not shipped in the package, is itself a reference checkpoint, has a local term,
            or a file of it does not verify.
    """
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 < float(weight) < 1.0:
        raise InputError(f"the transition term's weight must be a number in (0, 1), got {weight!r}")
    referrer = Path(target) / CONFIG_NAME
    base_folder = packaged_base_folder(base, referrer)
    config = read_checkpoint_config(base_folder)
    _refuse_reference_base(referrer, base, config)
    with _verified_copy(base_folder, config) as verified:
        _refuse_local_term_base(referrer, base, _local_weight_in_head(verified))
    model_name, model_fingerprint = transition_model_identity(transition_model or DEFAULT_TRANSITION_MODEL)
    out = Path(target)
    _empty_target(out, overwrite)
    out.mkdir(parents=True, exist_ok=True)
    reference = CheckpointConfig(
        flavour=REFERENCE_FLAVOUR, backbone=config.backbone, pooling=config.pooling, max_length=config.max_length,
        hidden_size=config.hidden_size, files={}, format_version=TRANSITION_TERM_FORMAT_VERSION,
        training={"base_checkpoint": base, "transition_term": dict(training or {})},
        library_versions=_library_versions(), base={"name": base, "fingerprint": config.fingerprint()},
        transition_term={"model": model_name, "fingerprint": model_fingerprint, "weight": float(weight)})
    reference.write(out)
    logger.info("wrote %s: %s with transition term %s of weight %s", out, base, model_name, weight)
    return out


def packaged_base_folder(name: str, referrer: Path) -> Path:
    """The folder of the packaged checkpoint a reference names (``referrer``: the reference's config, for the error).

    Raises:
        CheckpointError: no checkpoint of that name is shipped in this package or in an installed checkpoint pack.
        ModelNotFoundError: the base is archived and its pack is not installed (the message names the package).
    """
    folders = packaged_checkpoint_folders()
    archived = read_alias_table(sorted(folders)).archived
    if name not in folders and name not in archived:
        raise CheckpointError(f"{referrer}: its base checkpoint {name!r} is not shipped in this package "
                              "(a reference checkpoint reads the weights of a packaged one)")
    return packaged_folder(name, folders, archived)


def _refuse_reference_base(referrer: Path, name: str, base_config: CheckpointConfig) -> None:
    """A reference's base holds weights: a reference of a reference would chain loads (and could loop).

    Raises:
        CheckpointError: the base is itself a reference checkpoint.
    """
    if base_config.flavour == REFERENCE_FLAVOUR:
        raise CheckpointError(f"{referrer}: its base {name!r} is itself a reference checkpoint")


def _refuse_local_term_base(referrer: Path, name: str, local_weight: Optional[float]) -> None:
    """A base with a local term already mixes pair scores into its score; a transition term on top is not a format.

    Raises:
        CheckpointError: the base has a local term (``local_weight`` is not None).
    """
    if local_weight is not None:
        raise CheckpointError(f"{referrer}: its base {name!r} has a local term; a transition term cannot be added "
                              "to it")


def _local_weight_in_head(folder: Path) -> Optional[float]:
    """The local term's weight recorded in a checkpoint's head file, or None (no local term, or no head file)."""
    head = folder / HEAD_FILE
    if not head.is_file():
        return None
    value = _read_tensors(head).get(LOCAL_KEY)
    return None if value is None else float(value.reshape(-1)[0])


def _refuse_settings_unlike_base(path: Path, config: CheckpointConfig, base: CheckpointConfig) -> None:
    """A reference scores with its base's model, so its own backbone, pooling, max_length and hidden_size must be the
    base's: they were accepted and ignored, a config that said one thing while the scores did another.

    Raises:
        CheckpointError: naming the first field that differs, both values, and the base.
    """
    name = config.base["name"] if config.base is not None else "?"
    for key in ("pooling", "max_length", "hidden_size", "backbone"):
        own, based = getattr(config, key), getattr(base, key)
        if own != based:
            if key == "backbone":  # the spec's repr is long: its name and revision tell two apart
                own, based = own.name_or_path + "@" + str(own.revision), based.name_or_path + "@" + str(based.revision)
            raise CheckpointError(f"{path} is corrupt: {key} {own!r} differs from its base {name!r} ({based!r}), "
                                  "which does the scoring: a reference checkpoint carries its base's settings")


def _load_reference(source: Path, config: CheckpointConfig, verify: bool,
                    local_files_only: bool = False) -> LoadedCheckpoint:
    """A reference checkpoint: its packaged base, checked against the recorded fingerprint, with the transition
    term attached (its packaged model checked against its recorded fingerprint; loaded when first scored)."""
    path = source / CONFIG_NAME
    assert config.base is not None  # read_checkpoint_config requires it of the flavour
    base_folder = packaged_base_folder(config.base["name"], path)
    _refuse_reference_base(path, config.base["name"], read_checkpoint_config(base_folder))
    base = load_checkpoint(base_folder, verify=verify, local_files_only=local_files_only)
    if base.config.fingerprint() != config.base["fingerprint"]:
        raise CheckpointError(f"{path}: its base {config.base['name']!r} has fingerprint "
                              f"{base.config.fingerprint()}, not the recorded {config.base['fingerprint']}")
    _refuse_settings_unlike_base(path, config, base.config)
    model = base.model
    term = config.transition_term
    if term is not None:
        _refuse_local_term_base(path, config.base["name"],
                                None if model.local_weight is None else float(model.local_weight))
        if not (PACKAGED_DIR / term["model"] / CONFIG_NAME).is_file() or term["model"] in (".", ".."):
            raise CheckpointError(f"{path}: its transition model {term['model']!r} is not shipped in this package")
        _, fingerprint = transition_model_identity(term["model"])
        if fingerprint != term["fingerprint"]:
            raise CheckpointError(f"{path}: transition model {term['model']!r} has fingerprint {fingerprint}, not "
                                  f"the recorded {term['fingerprint']}")
        model.transition_term = TransitionTerm(term["model"], float(term["weight"]))
    return LoadedCheckpoint(model=model, tokenizer=base.tokenizer, config=config, folder=source)


def _load_head(path: Path, tensors: Dict[str, torch.Tensor], hidden_size: int) -> Tuple[nn.Linear, Optional[float]]:
    """The linear head and, for a checkpoint with a cohesion term, its weight."""
    weight, bias = tensors.get("weight"), tensors.get("bias")
    if weight is None or bias is None or tuple(weight.shape) != (1, hidden_size) or tuple(bias.shape) != (1,):
        raise CheckpointError(f"{path} is corrupt: expected a head of shape (1, {hidden_size}) with a bias")
    head = nn.Linear(hidden_size, 1)
    with torch.no_grad():
        head.weight.copy_(weight)
        head.bias.copy_(bias)
    cohesion = tensors.get(COHESION_KEY)
    if cohesion is None:
        return head, None
    value = float(cohesion.reshape(-1)[0]) if cohesion.numel() == 1 else float("nan")
    if not value > 0.0:
        raise CheckpointError(f"{path} is corrupt: {COHESION_KEY} must be one positive number")
    return head, value


def _apply_delta(backbone: nn.Module, path: Path) -> None:
    delta = _read_tensors(path)
    state = backbone.state_dict()
    unknown = sorted(set(delta) - set(state))
    if unknown:
        raise CheckpointError(f"{path} does not fit its backbone: unknown tensors {', '.join(unknown[:3])}")
    for name, tensor in delta.items():
        if tuple(tensor.shape) != tuple(state[name].shape):
            raise CheckpointError(f"{path} does not fit its backbone: {name} has shape {tuple(tensor.shape)}")
    with torch.no_grad():
        for name, tensor in delta.items():
            state[name].copy_(tensor.to(state[name].dtype))


def _cut_backbone(backbone: nn.Module, count: int, source: Path) -> None:
    """Cut the named backbone to the checkpoint's ``num_layers`` before its weights are applied: a delta tensor of a
    layer the model does not keep is then unknown, hence refused."""
    try:
        keep_first_layers(backbone, count)
    except InputError as error:
        raise CheckpointError(f"{source / CONFIG_NAME} does not fit its backbone: {error}") from None


def _build_backbone(config: CheckpointConfig, source: Path,
                    local_files_only: bool = False) -> Tuple[nn.Module, Any]:
    """The checkpoint's backbone with its weights in place (full, base + adapter, or base + delta); a named backbone
    is loaded from a private copy of the bytes its check hashed (``local_files_only``: never from the Hub)."""
    own_tokenizer = source / TOKENIZER_DIR if (source / TOKENIZER_DIR).is_dir() else None
    if config.flavour == "full":
        backbone = load_encoder(source / BACKBONE_DIR)
        tokenizer = load_tokenizer(own_tokenizer or source / BACKBONE_DIR)
    else:
        with verified_backbone_folder(config.backbone, checkpoint=source, listed=config.files,
                                      local_files_only=local_files_only) as base_folder:
            backbone = load_encoder(base_folder)
            tokenizer = load_tokenizer(own_tokenizer or base_folder)
    if config.num_layers is not None:
        _cut_backbone(backbone, config.num_layers, source)
    if config.flavour == "adapter":
        # Merged once at load, without peft: inference then runs at plain-model speed.
        adapter = source / ADAPTER_DIR
        merge_lora_adapter(backbone, adapter, _read_tensors(adapter / ADAPTER_WEIGHTS))
    elif config.flavour == "delta":
        _apply_delta(backbone, source / DELTA_FILE)
    return backbone, tokenizer


def load_checkpoint(folder: PathLike, verify: bool = True, local_files_only: bool = False) -> LoadedCheckpoint:
    """Load a checkpoint folder into an eval-mode model on the CPU, after checking its files' sha256.

    Args:
        folder: a folder holding ``coherence_config.json`` (local, packaged, or a Hub snapshot).
        verify: check every recorded sha256 (on by default; turning it off only saves a hash pass: unlisted files
            and paths leading out of the folder are refused either way).
        local_files_only: never open a connection to find the backbone (``HF_HUB_OFFLINE=1`` does the same).

    Raises:
        CheckpointError: missing, corrupt, unlisted or escaping files, a newer-format checkpoint, or a backbone that
            cannot be found.
    """
    source = Path(folder)
    if not source.is_dir():
        raise CheckpointError(f"no checkpoint folder at {source}")
    config = read_checkpoint_config(source)
    if config.flavour == REFERENCE_FLAVOUR or not verify:
        verify_checkpoint_files(source, config, hashes=verify)
        if config.flavour == REFERENCE_FLAVOUR:
            return _load_reference(source, config, verify, local_files_only)
        return _load_files(source, source, config, local_files_only)
    with _verified_copy(source, config) as verified:
        return _load_files(verified, source, config, local_files_only)


@contextlib.contextmanager
def _verified_copy(source: Path, config: CheckpointConfig) -> Iterator[Path]:
    """Verify the checkpoint ``source`` and yield a private copy of its listed files made from the bytes hashed.

    Everything is loaded from the copy, so what is parsed is what was verified: a loader that opened each file again
    after its hash was checked would load a file swapped in between (a hard link and ``os.replace``) unverified.
    The copy is a fresh folder only this user can open, removed afterwards (weights
    mapped into memory stay readable); errors name ``source``, not the copy."""
    with tempfile.TemporaryDirectory(prefix="coherence-metric-verified-") as private:
        copy = Path(private)
        verify_checkpoint_files(source, config, copy_to=copy)
        try:
            yield copy
        except CheckpointError as error:
            raise CheckpointError(str(error).replace(str(copy), str(source))) from None


def _load_files(folder: Path, source: Path, config: CheckpointConfig,
                local_files_only: bool = False) -> LoadedCheckpoint:
    """The model of a weights checkpoint whose files are read from ``folder`` (``source`` or its verified copy);
    messages name ``source``."""
    with quiet_transformers():
        backbone, tokenizer = _build_backbone(config, folder, local_files_only)

    head_tensors = _read_tensors(folder / HEAD_FILE, source / HEAD_FILE)
    head, cohesion_weight = _load_head(source / HEAD_FILE, head_tensors, config.hidden_size)
    problem = unverified_backbone(config, has_cohesion=cohesion_weight is not None)
    if problem:
        raise CheckpointError(f"{source / CONFIG_NAME} is corrupt: {problem}")
    sentence_scorer = _load_sentence_scorer(source / HEAD_FILE, config, head_tensors)
    local_weight = _load_local_weight(source / HEAD_FILE, head_tensors, config)
    model = CoherenceModel(
        backbone,
        config.pooling,
        config.backbone,
        config.max_length,
        head=head,
        cohesion_weight=cohesion_weight,
        sentence_scorer=sentence_scorer,
        local_weight=local_weight,
    )
    model.num_layers = config.num_layers
    model.eval()
    return LoadedCheckpoint(model=model, tokenizer=tokenizer, config=config, folder=source)


__all__ = ["CONFIG_NAME", "LoadedCheckpoint", "add_sentence_scorer", "load_checkpoint", "remove_sentence_scorer",
           "packaged_base_folder", "save_checkpoint", "set_local_term", "write_transition_term"]
