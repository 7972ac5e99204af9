"""``ScorerSettings``: every option of a ``CoherenceScorer``, declared once.

``CoherenceScorer``, ``get_scorer``, ``score``, ``compare``, ``diagnose``, ``score_dataframe``, the Ray scorer, the
torchmetrics and ``evaluate`` integrations and the CLI all take their settings as one of these, or as its fields by
name (``score(texts, dtype="fp32", batch_size=8)``), which :meth:`ScorerSettings.of` turns into one. The checks that
need no model (a batch size, a truncation policy) run when it is built; the device, the dtype and ``max_length`` are
checked when a scorer resolves them against the hardware and the checkpoint. Frozen and hashable: ``get_scorer``
keeps one scorer per model and settings. Importing it loads nothing heavy (no torch), so the CLI builds one before
any model loads.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Tuple

from .errors import InputError, UnknownSettingError
from .scoring.batching import DEFAULT_MAX_TOKENS_PER_BATCH

__all__ = ["DEFAULT_BATCH_SIZE", "ScorerSettings", "TRUNCATION_POLICIES"]

TRUNCATION_POLICIES = ("warn", "error", "window")
"""What a text longer than ``max_length`` tokens gets: cut with a warning, refused, or scored in windows."""
DEFAULT_BATCH_SIZE = 32
"""Most texts per forward pass unless a scorer is told otherwise."""


def _positive_integer(name: str, value: Any) -> None:
    # bool is an int to Python: batch_size=True ran batches of one
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}")


def _flag(name: str, value: Any) -> None:
    """A yes/no setting must be True or False: any other value was taken for its truth, so
    ``local_files_only="no"`` turned offline mode on."""
    if not isinstance(value, bool):
        raise InputError(f"{name} must be True or False, got {value!r}")


def _optional_string(name: str, value: Any, what: str) -> None:
    """A setting that names something (a revision, a truncation policy) must be a string (or None where allowed):
    a list reached the model lookup and failed there as a raw TypeError."""
    if value is not None and not isinstance(value, str):
        raise InputError(f"{name} must be {what}, got {value!r}")


def _is_torch(value: Any, kind: str) -> bool:
    """Whether ``value`` is a ``torch.device`` or ``torch.dtype`` (told without importing torch)."""
    return type(value).__module__ == "torch" and type(value).__name__ == kind


def _check_types(settings: "ScorerSettings") -> None:
    """Each field's type, before any value is used: one line naming the field and the value given."""
    if not (settings.device is None or isinstance(settings.device, str) or _is_torch(settings.device, "device")):
        raise InputError(f"device must be a string such as 'cpu', 'cuda' or 'cuda:1', got {settings.device!r}")
    if not (isinstance(settings.dtype, str) or _is_torch(settings.dtype, "dtype")):
        raise InputError(f"dtype must be one of auto, fp32, bf16, fp16 (a string), got {settings.dtype!r}")
    _positive_integer("batch_size", settings.batch_size)
    if settings.max_length is not None:
        _positive_integer("max_length", settings.max_length)
    _optional_string("truncation", settings.truncation, f"one of {', '.join(TRUNCATION_POLICIES)} (a string)")
    _optional_string("revision", settings.revision, "a string (a branch, tag or commit) or None")
    _flag("local_files_only", settings.local_files_only)
    _positive_integer("max_tokens_per_batch", settings.max_tokens_per_batch)
    _flag("progress", settings.progress)


@dataclass(frozen=True)
class ScorerSettings:
    """How a ``CoherenceScorer`` loads its checkpoint and runs it; every field has the default the scorer uses.

    Attributes:
        device: ``cpu``, ``cuda``, ``cuda:N``, ``mps``; None picks a GPU when there is one.
        dtype: ``auto`` (the default; None means the same: bf16 autocast where it is the faster path, i.e. CPUs
            with AMX-BF16, CPUs with AVX512-BF16 where a short cached probe measured it faster, and GPUs with bf16;
            fp32 elsewhere; ``COHERENCE_METRIC_DTYPE`` overrides the automatic choice), ``fp32``, ``bf16``
            (autocast; CPU or GPU) or ``fp16`` (GPU only). The signature names the dtype used.
        batch_size: most texts per forward pass.
        max_length: most tokens per text; None takes the checkpoint's. Longer texts follow ``truncation``.
        truncation: ``"window"`` (the default: overlapping sentence windows, scores averaged, so every sentence
            counts), ``"warn"`` (cut at ``max_length``, one warning per call, count in the result; what the paper's
            code does) or ``"error"``.
        revision: Hub revision when the model is a repo id.
        local_files_only: never touch the network (``HF_HUB_OFFLINE=1`` does the same).
        max_tokens_per_batch: padded tokens per forward pass, bounding memory for long texts.
        progress: progress bars on stderr, one per pass (the document model's batches, then the sentence encoder's
            for a checkpoint with a sentence-level term).

    Raises:
        InputError: a value of the wrong type (a flag that is not True or False, a revision that is not a string,
            a batch size or token budget that is not a positive integer), or an unknown truncation policy; one
            line naming the field and the value.
    """

    device: Optional[str] = None
    dtype: Optional[str] = "auto"
    batch_size: int = DEFAULT_BATCH_SIZE
    max_length: Optional[int] = None
    truncation: str = "window"
    revision: Optional[str] = None
    local_files_only: bool = False
    max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH
    progress: bool = False

    def __post_init__(self) -> None:
        if self.dtype is None:
            object.__setattr__(self, "dtype", "auto")  # one cache key for None and "auto"
        _check_types(self)
        if self.truncation not in TRUNCATION_POLICIES:
            raise InputError(f"unknown truncation {self.truncation!r}: choose one of {', '.join(TRUNCATION_POLICIES)}")

    @classmethod
    def names(cls) -> Tuple[str, ...]:
        """The settings' names, in declaration order."""
        return tuple(field.name for field in dataclasses.fields(cls))

    @classmethod
    def of(cls, settings: Optional["ScorerSettings"] = None, overrides: Optional[Mapping[str, Any]] = None,
           **defaults: Any) -> "ScorerSettings":
        """``settings`` (None: the defaults, with ``defaults`` in place of the class's) with ``overrides`` in
        place of its values: what a function taking ``settings=None, **overrides`` scores with.

        Raises:
            UnknownSettingError: an override or default that names no setting (one line, naming it and the
                settings there are; a ``TypeError`` too, as Python's own for an unknown keyword argument).
            InputError: ``settings`` is not a ScorerSettings, or a value is refused.
        """
        overrides = dict(overrides or {})
        for name in (*overrides, *defaults):
            cls._check_name(name)
        if settings is None:
            return cls(**{**defaults, **overrides})
        if not isinstance(settings, cls):
            raise InputError(f"settings must be a ScorerSettings, got {type(settings).__name__} (pass single "
                             "settings by name: dtype='fp32', batch_size=8)")
        return dataclasses.replace(settings, **overrides) if overrides else settings

    @classmethod
    def _check_name(cls, name: str) -> None:
        names = cls.names()
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UnknownSettingError(f"unknown setting {name!r}{hint}: the scorer's settings are {', '.join(names)}")

