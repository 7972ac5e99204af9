"""A sacrebleu-style signature: one string naming everything that can change a number.

Two results are comparable only if their signatures match. Example::

    coherence-metric:0.2.0|model:cm-minilm-pointwise-2026.11@ffa0e578e583|pool:mean|maxlen:256|trunc:window|dtype:fp32|ntrunc:0|transformers:5.24.0|torch:2.13.0
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional


@dataclass(frozen=True)
class Signature:
    """The settings behind a result; ``str()`` renders the signature string."""

    model: str
    fingerprint: str
    pooling: str
    max_length: int
    truncation: str
    dtype: str
    n_truncated: int
    library_version: str
    transformers_version: str
    torch_version: str
    bootstrap_resamples: Optional[int] = None
    bootstrap_seed: Optional[int] = None
    randomization_trials: Optional[int] = None
    transitions: Optional[str] = None

    def with_bootstrap(self, resamples: int, seed: int, randomization_trials: Optional[int] = None) -> "Signature":
        """The same signature, naming the paired bootstrap's resample count and seed (and the approximate
        randomization test's trial count, when one ran)."""
        return replace(self, bootstrap_resamples=resamples, bootstrap_seed=seed,
                       randomization_trials=randomization_trials)

    def with_transitions(self, mechanism: str) -> "Signature":
        """The same signature, naming the mechanism that scored per-transition values (``explain``)."""
        return replace(self, transitions=mechanism)

    def with_truncated(self, n_truncated: int) -> "Signature":
        """The same signature with the count of inputs cut at ``max_length``."""
        return replace(self, n_truncated=n_truncated)

    def __str__(self) -> str:
        parts = [
            f"coherence-metric:{self.library_version}",
            f"model:{self.model}@{self.fingerprint}",
            f"pool:{self.pooling}",
            f"maxlen:{self.max_length}",
            f"trunc:{self.truncation}",
            f"dtype:{self.dtype}",
            f"ntrunc:{self.n_truncated}",
        ]
        if self.bootstrap_resamples is not None:
            parts.append(f"bootstrap:{self.bootstrap_resamples}")
            parts.append(f"seed:{self.bootstrap_seed}")
        if self.randomization_trials is not None:
            parts.append(f"ar:{self.randomization_trials}")
        if self.transitions is not None:
            parts.append(f"trans:{self.transitions}")
        parts.append(f"transformers:{self.transformers_version}")
        parts.append(f"torch:{self.torch_version}")
        return "|".join(parts)
