"""coherence-metric: a trained document-coherence metric for evaluating text generators.

Usage::

    from coherence_metric import score, compare, CoherenceScorer
    score(["A text.", "Another text."])                 # ScoreResult
    CoherenceScorer("default").compare(text_a, text_b)   # CompareResult

Importing this package does not import torch: the names below load on first use, so the CLI's
``--help`` and error messages stay instant.

Layout, lowest layer first (an import never points up a layer: ``tests/packaging/test_import_cycles.py``):

- base modules: ``errors``, ``version``, ``signature``, ``atomic_write``;
- ``inputs/`` (texts, sentences, files) and ``statistics/`` (bootstrap, significance, ties);
- ``models/``: the model, checkpoints, the registry, the Hub and backbones;
- ``scoring/``: runtime, batching, windows, the sentence and transition passes;
- ``analysis/``: ``explain``'s mechanisms and per-sentence flags;
- ``scorer`` (its options, one ``ScorerSettings``, in ``settings``) and what is built on it: ``results``,
  ``systems``, ``report/``, ``dataframe``, ``diagnostics``, ``distributed``;
- front ends: ``cli/``, ``integrations/``, and ``toolkit``, the named pieces training and benchmarks build on.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from .errors import (
    CheckpointError,
    CoherenceMetricError,
    EmptyTextWarning,
    InputError,
    ModelNotFoundError,
    NetworkError,
    TruncationWarning,
)
from .version import __version__

logging.getLogger("coherence_metric").addHandler(logging.NullHandler())

_LAZY = {
    "CoherenceScorer": "scorer",
    "score": "scorer",
    "compare": "scorer",
    "get_scorer": "scorer",
    "ScorerSettings": "settings",
    "CoherenceModel": "models.model",
    "save_checkpoint": "models.checkpoint",
    "load_checkpoint": "models.checkpoint",
    "ScoreResult": "results",
    "CompareResult": "results",
    "Signature": "signature",
    "diagnose": "diagnostics",
    "DiagnosticReport": "diagnostics",
    "score_dataframe": "dataframe",
    "SystemsComparison": "systems",
    "PairComparison": "systems",
    "ExplainResult": "analysis.explain",
    "TextExplanation": "analysis.explain",
}

__all__ = [
    "CheckpointError",
    "CoherenceMetricError",
    "CoherenceModel",
    "CoherenceScorer",
    "CompareResult",
    "DiagnosticReport",
    "EmptyTextWarning",
    "ExplainResult",
    "InputError",
    "ModelNotFoundError",
    "NetworkError",
    "ScoreResult",
    "ScorerSettings",
    "PairComparison",
    "Signature",
    "SystemsComparison",
    "TextExplanation",
    "TruncationWarning",
    "__version__",
    "compare",
    "diagnose",
    "get_scorer",
    "load_checkpoint",
    "save_checkpoint",
    "score",
    "score_dataframe",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .analysis.explain import ExplainResult, TextExplanation
    from .dataframe import score_dataframe
    from .diagnostics import DiagnosticReport, diagnose
    from .models.checkpoint import load_checkpoint, save_checkpoint
    from .models.model import CoherenceModel
    from .results import CompareResult, ScoreResult
    from .scorer import CoherenceScorer, compare, get_scorer, score
    from .settings import ScorerSettings
    from .signature import Signature
    from .systems import PairComparison, SystemsComparison


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'coherence_metric' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module_name}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
