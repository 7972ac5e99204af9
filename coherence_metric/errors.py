"""Exceptions a user can cause, and the warnings the scorer gives; the CLI prints an error's message as one line and
exits with status 2.

Every message names the input at fault and, where there is one, the fix.
"""

from __future__ import annotations


class CoherenceMetricError(Exception):
    """Base class for every error caused by user input, a model id, a checkpoint or the network."""


class InputError(CoherenceMetricError, ValueError):
    """A text, file or option that cannot be scored (empty, undecodable, missing field, bad value)."""


class UnknownSettingError(InputError, TypeError):
    """A scorer setting passed by a name that is no setting (``batch_sise=8``): an InputError (one line in the
    CLI) and a TypeError, as Python's own for an unknown keyword argument."""


class ModelNotFoundError(CoherenceMetricError, LookupError):
    """A model argument that names no local folder, packaged checkpoint or Hub repository."""


class CheckpointError(CoherenceMetricError):
    """A checkpoint folder that is incomplete, corrupt (sha256 mismatch) or of a newer format."""


class NetworkError(CoherenceMetricError, ConnectionError):
    """The Hugging Face Hub could not be reached (offline, firewalled, or HF_HUB_OFFLINE set)."""


class NonFiniteScoreError(CoherenceMetricError, ArithmeticError):
    """The model gave a text a NaN or infinite score (damaged weights, or an overflow in fp16): never reported."""


class TruncationWarning(UserWarning):
    """Some texts were longer than ``max_length`` tokens and were cut (one warning per call)."""


class EmptyTextWarning(UserWarning):
    """Some texts were empty and were left out or reported as NaN (``on_empty="skip"`` or ``"nan"``; one warning per
    call, saying how many)."""
