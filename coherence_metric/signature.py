"""A sacrebleu-style signature: one string naming everything that can change a number.

Two results are comparable only if their signatures match. Example::

    coherence-metric:0.2.0|model:cm-minilm-pointwise-2026.11@ffa0e578e583|pool:mean|maxlen:256|trunc:window|dtype:fp32|ntrunc:0|transformers:5.24.0|torch:2.13.0
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, replace
from typing import Dict, Optional

from .errors import InputError


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
    n_windowed: int = 0

    def with_bootstrap(self, resamples: int, seed: int, randomization_trials: Optional[int] = None) -> "Signature":
        """The same signature, naming the paired bootstrap's resample count and seed (and the approximate
        randomization test's trial count, when one ran)."""
        return replace(self, bootstrap_resamples=resamples, bootstrap_seed=seed,
                       randomization_trials=randomization_trials)

    def with_transitions(self, mechanism: str) -> "Signature":
        """The same signature, naming the mechanism that scored per-transition values (``explain``)."""
        return replace(self, transitions=mechanism)

    def with_truncated(self, n_truncated: int, n_windowed: int = 0) -> "Signature":
        """The same signature with the count of inputs cut at ``max_length`` and of those scored as sentence windows
        over it (``nwin:N``, shown only when some were: a windowed score is the mean of its windows, not one read)."""
        return replace(self, n_truncated=n_truncated, n_windowed=n_windowed)

    def settings(self) -> "Signature":
        """What scored the texts alone: the signature without the counts of one result (texts cut, texts windowed)
        and what was computed from its scores (bootstrap, randomization, transitions). Scores from two runs can be
        compared only if these are equal."""
        return replace(self, n_truncated=0, n_windowed=0, bootstrap_resamples=None, bootstrap_seed=None,
                       randomization_trials=None, transitions=None)

    def differences(self, other: "Signature") -> str:
        """The fields where ``self`` and ``other`` differ, as ``dtype:fp32 vs dtype:bf16`` (comma-separated)."""
        mine, theirs = _tags(self), _tags(other)
        return ", ".join(f"{tag}:{mine.get(tag)} vs {tag}:{theirs.get(tag)}"
                         for tag in dict.fromkeys([*mine, *theirs]) if mine.get(tag) != theirs.get(tag))

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
        if self.n_windowed:
            parts.append(f"nwin:{self.n_windowed}")
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


_INTEGERS = {"maxlen": "max_length", "ntrunc": "n_truncated", "nwin": "n_windowed", "bootstrap": "bootstrap_resamples",
             "seed": "bootstrap_seed", "ar": "randomization_trials"}
_STRINGS = {"coherence-metric": "library_version", "pool": "pooling", "trunc": "truncation", "dtype": "dtype",
            "trans": "transitions", "transformers": "transformers_version", "torch": "torch_version"}


def _tags(signature: Signature) -> Dict[str, str]:
    """The signature's fields by the tag the string names them with (``model`` holds ``name@fingerprint``)."""
    return dict(part.partition(":")[::2] for part in str(signature).split("|"))


def parse_signature(text: str) -> Signature:
    """The :class:`Signature` whose string is ``text`` (a saved result's ``signature``).

    Raises:
        InputError: ``text`` is not a signature string (an unknown or repeated tag, a missing one, a bad number).
    """
    values: Dict[str, object] = {}
    for part in str(text).split("|"):
        tag, colon, value = part.partition(":")
        name = "model" if tag == "model" else _INTEGERS.get(tag) or _STRINGS.get(tag)
        if not colon or name is None or name in values:
            raise InputError(f"{ascii(part)} is not a part of a coherence-metric signature")
        if tag == "model":
            model, at, fingerprint = value.rpartition("@")
            if not at:
                raise InputError(f"{ascii(part)} in the signature names no fingerprint (model:NAME@FINGERPRINT)")
            values.update(model=model, fingerprint=fingerprint)
        elif tag in _INTEGERS:
            if not value.isdigit():
                raise InputError(f"{ascii(part)} in the signature is not a count")
            values[name] = int(value)
        else:
            values[name] = value
    required = [item.name for item in fields(Signature) if item.default is MISSING]
    missing = [name for name in required if name not in values]
    if missing:
        raise InputError(f"the signature names no {', '.join(missing)}")
    return Signature(**values)  # type: ignore[arg-type]
