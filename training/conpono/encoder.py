"""The trained CONPONO encoder as a DiscoEval sentence encoder (``--encoder trained:FOLDER``).

The saved folder is an ordinary Hugging Face encoder (plus ``conpono_head.pt``, which DiscoEval ignores as
the paper does: "we drop the weight matrix W_k and only use the output of the encoder"), so the suite's own
:class:`~benchmarks.discoeval.encoders.HuggingFaceEncoder` reads it; its signature fingerprints the
weights and config, so a retrained folder never reuses stale cached vectors.

Pooling: by default the pooling the objective trained (``mean`` in our recipes, so mean pooling is the
default), overridable with ``:pool=cls`` or ``:pool=mean``. The paper reads BERT's pooled [CLS] output;
we read the vectors our objective shaped. Other options: ``layer=N|avg``, ``batch=N``, ``maxlen=N``,
``device=D``, ``name=TEXT``, as for ``hf:`` specs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Union

from coherence_metric.errors import InputError

from .objective import FAMILY, MANIFEST_FILE

OPTIONS = ("layer", "pool", "batch", "maxlen", "device", "name")


def _integer(options: Mapping[str, str], key: str, folder: Path) -> Any:
    if key not in options:
        return None
    try:
        return int(options[key])
    except ValueError:
        raise InputError(f"encoder option {key}={options[key]!r} for {folder} must be an integer") from None


def load_sentence_encoder(folder: Union[str, Path], options: Mapping[str, str]) -> Any:
    """A frozen sentence encoder over a CONPONO run's ``best/`` or ``final/`` folder.

    Args:
        folder: the folder ``ConponoObjective.save`` wrote.
        options: spec options (see the module docstring).

    Returns:
        A :class:`~benchmarks.discoeval.encoders.HuggingFaceEncoder` (``name``, ``signature``, ``encode``).

    Raises:
        InputError: the folder is not a CONPONO output, or an option is unknown or malformed.
    """
    from benchmarks.discoeval.encoders import HuggingFaceEncoder

    folder = Path(folder).expanduser()
    manifest_path = folder / MANIFEST_FILE
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(f"{manifest_path}: missing or not JSON; pass a CONPONO run's best/ or final/ folder") from None
    if manifest.get("family") != FAMILY:
        raise InputError(f"{manifest_path} names family {manifest.get('family')!r}, not {FAMILY!r}")
    if not (folder / "config.json").is_file():
        raise InputError(f"{folder}: no config.json; the encoder weights were not saved here")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)} for trained CONPONO encoder {folder}: "
                         f"use {', '.join(OPTIONS)}")
    layer_text = options.get("layer", "-1")
    try:
        layer: Union[int, str] = "avg" if layer_text == "avg" else int(layer_text)
    except ValueError:
        raise InputError(f"encoder option layer={layer_text!r} for {folder} must be an integer or 'avg'") from None
    name = options.get("name") or f"conpono:{folder.parent.name}/{folder.name}"
    return HuggingFaceEncoder(folder, layer=layer, pooling=options.get("pool", str(manifest.get("pooling", "mean"))),
                              batch_size=_integer(options, "batch", folder) or 64,
                              max_length=_integer(options, "maxlen", folder), device=options.get("device", "cpu"),
                              display_name=name)


__all__ = ["OPTIONS", "load_sentence_encoder"]
