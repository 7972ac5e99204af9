"""Load the released test-set pickles through an unpickler that refuses every class, so a pickle cannot run code.

The upstream test sets are pickles of plain lists, dicts and strings; anything that needs a class lookup
(an instance, a function, ``os.system`` smuggled in through ``__reduce__``) is refused.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any, NoReturn, Union

from coherence_metric.errors import InputError


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that loads only what pickle builds without a class lookup (containers, str, bytes, numbers)."""

    def find_class(self, module: str, name: str) -> NoReturn:
        """Refuse every global: builtin containers never need one, and every attack does."""
        raise pickle.UnpicklingError(f"refused to load global {module}.{name}: only builtin data is allowed")


def loads_restricted(data: bytes) -> Any:
    """Unpickle ``data`` with :class:`RestrictedUnpickler`; errors propagate as raised by pickle."""
    return RestrictedUnpickler(io.BytesIO(data)).load()


def load_pickle(path: Union[str, Path]) -> Any:
    """Load a pickle of builtin data only, so an untrusted test-set file cannot execute code.

    Args:
        path: the pickle file.

    Returns:
        The unpickled object (lists, dicts, tuples, sets, strings, bytes, numbers, booleans, None).

    Raises:
        InputError: the file is missing or unreadable, holds a class or function reference, or is corrupt.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read pickle {path}: {error.strerror or error}") from error
    try:
        return loads_restricted(data)
    except pickle.UnpicklingError as error:
        raise InputError(f"refused or corrupt pickle {path}: {error}") from error
    except Exception as error:  # a truncated or garbled pickle can fail with almost any exception type
        raise InputError(f"corrupt pickle {path}: {type(error).__name__}: {error}") from error
