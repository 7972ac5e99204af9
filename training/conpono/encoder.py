"""The trained CONPONO encoder as a DiscoEval sentence encoder (``--encoder trained:FOLDER``).

The saved folder is an ordinary Hugging Face encoder (plus ``conpono_head.pt``, which DiscoEval ignores as
the paper does: "we drop the weight matrix W_k and only use the output of the encoder"), so the suite's own
:class:`~coherence_metric.research.encoders.HuggingFaceEncoder` reads it; its signature fingerprints the
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
from coherence_metric.research.encoders import HuggingFaceEncoder, transformer_encoder_options

from .objective import FAMILY, MANIFEST_FILE


def load_sentence_encoder(folder: Union[str, Path], options: Mapping[str, str]) -> Any:
    """A frozen sentence encoder over a CONPONO run's ``best/`` or ``final/`` folder.

    Args:
        folder: the folder ``ConponoObjective.save`` wrote.
        options: spec options (see the module docstring).

    Returns:
        A :class:`~coherence_metric.research.encoders.HuggingFaceEncoder` (``name``, ``signature``, ``encode``).

    Raises:
        InputError: the folder is not a CONPONO output, or an option is unknown or malformed.
    """
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
    arguments = transformer_encoder_options(str(folder), options)
    arguments["pooling"] = arguments["pooling"] or str(manifest.get("pooling", "mean"))
    arguments["display_name"] = arguments["display_name"] or f"conpono:{folder.parent.name}/{folder.name}"
    return HuggingFaceEncoder(folder, **arguments)


__all__ = ["load_sentence_encoder"]
