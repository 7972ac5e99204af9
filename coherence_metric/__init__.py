"""coherence-metric: a trained document-coherence metric for evaluating text generators.

Usage::

    from coherence_metric import score, compare, CoherenceScorer
    score(["A text.", "Another text."])                 # ScoreResult
    CoherenceScorer("default").compare(text_a, text_b)   # CompareResult

Importing this package does not import torch: the names below load on first use, so the CLI's
``--help`` and error messages stay instant.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from .errors import CheckpointError, CoherenceMetricError, InputError, ModelNotFoundError, NetworkError
from .version import __version__

logging.getLogger("coherence_metric").addHandler(logging.NullHandler())

_LAZY = {
    "CoherenceScorer": "scorer",
    "TruncationWarning": "scorer",
    "score": "scorer",
    "compare": "scorer",
    "get_scorer": "scorer",
    "CoherenceModel": "model",
    "save_checkpoint": "checkpoint",
    "load_checkpoint": "checkpoint",
    "ScoreResult": "results",
    "CompareResult": "results",
    "Signature": "signature",
    "diagnose": "diagnostics",
    "DiagnosticReport": "diagnostics",
    "score_dataframe": "dataframe",
    "SystemsComparison": "systems",
    "PairComparison": "systems",
    "ExplainResult": "explain",
    "TextExplanation": "explain",
}

__all__ = [
    "CheckpointError",
    "CoherenceMetricError",
    "CoherenceModel",
    "CoherenceScorer",
    "CompareResult",
    "DiagnosticReport",
    "ExplainResult",
    "InputError",
    "ModelNotFoundError",
    "NetworkError",
    "ScoreResult",
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
    from .checkpoint import load_checkpoint, save_checkpoint
    from .dataframe import score_dataframe
    from .diagnostics import DiagnosticReport, diagnose
    from .explain import ExplainResult, TextExplanation
    from .model import CoherenceModel
    from .results import CompareResult, ScoreResult
    from .scorer import CoherenceScorer, TruncationWarning, compare, get_scorer, score
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
