"""``--encoder trained:FOLDER``: the sentence encoders training's other families save, rebuilt from their folder.

The DiscoEval suite in ``benchmarks`` does not import training: setup.cfg declares :func:`trained_encoder` as the
``trained`` entry point of ``coherence_metric.encoder_specs``, which the suite loads the first time a spec names
it. So the spec works wherever training is installed, and the import arrows stay one way (both packages import
``research``, neither imports the other).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Mapping

from coherence_metric.errors import InputError
from coherence_metric.research.encoders import TRAINED_ENCODER_FILE, SentenceEncoder

from .families import FAMILIES


def trained_encoder(target: str, options: Mapping[str, str]) -> SentenceEncoder:
    """``trained:FOLDER``: an encoder trained by one of training/'s other objectives (CONPONO, DisSent, ...).

    The folder's ``trained_encoder.json`` names its family; ``<family package>.encoder``
    rebuilds it with ``load_sentence_encoder(folder, options)``.
    """
    folder = Path(target).expanduser()
    manifest = folder / TRAINED_ENCODER_FILE
    if not manifest.is_file():
        raise InputError(f"{folder}: no {TRAINED_ENCODER_FILE} here: not the output of a training recipe's "
                         "best/ or final/ folder")
    try:
        family = json.loads(manifest.read_text(encoding="utf-8"))["family"]
    except (ValueError, KeyError, TypeError):
        raise InputError(f"{manifest} is corrupt: it must be JSON with a 'family' key") from None
    if family not in FAMILIES:
        raise InputError(f"{manifest}: unknown family {family!r} (known: {', '.join(FAMILIES)})")
    module = importlib.import_module(FAMILIES[family].rsplit(".", 1)[0] + ".encoder")
    encoder: SentenceEncoder = module.load_sentence_encoder(folder, options)
    return encoder


__all__ = ["trained_encoder"]
