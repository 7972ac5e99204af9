"""File names that a record (a ``result.json``, a ``parts.json``, an export's ``inputs.json``) gives for files in
its own folder or in a folder the command chose.

A command joins such a name to a folder and then reads, writes or deletes that path, so a name that is absolute
(``/etc/passwd``), climbs out (``../notes.txt``) or holds a separator would let a record written by hand or on
another machine reach any file the user can. Every name read from a record is checked here first: a plain name,
the same on every system.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List, Union

from .errors import InputError

#: Separators of every system the files may come from (a Windows name ``..\\x`` climbs out there).
SEPARATORS = ("/", "\\")


def plain_name(value: Any, record: Union[str, Path], field: str) -> str:
    """``value``, when it is a plain file name: a non-empty string without a folder separator or a NUL, not ``.``
    or ``..`` (and so never absolute).

    Args:
        value: the name as the record holds it.
        record: the record's file, named in the error.
        field: the field that holds the name (``archive.name``, ``parts[2].name``).

    Raises:
        InputError: one line naming the record, the field and the value.
    """
    if (not isinstance(value, str) or value in ("", ".", "..") or "\0" in value
            or any(separator in value for separator in SEPARATORS) or os.path.isabs(value)):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise InputError(f"{record}: {field} is {shown}, which is not a plain file name (no folder, no '..'): the "
                         "record was edited or is not one this command wrote")
    return value


def plain_names(values: Any, record: Union[str, Path], field: str) -> List[str]:
    """``values``, a list of plain file names (each checked as :func:`plain_name`, ``field[i]`` in errors).

    Raises:
        InputError: not a list, or a name that is not plain.
    """
    if not isinstance(values, list):
        raise InputError(f"{record}: {field} must be a list of file names, not {type(values).__name__}")
    return [plain_name(value, record, f"{field}[{index}]") for index, value in enumerate(values)]


__all__ = ["SEPARATORS", "plain_name", "plain_names"]
