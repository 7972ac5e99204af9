"""Where each text came from, as the CLI shows it: labels that cannot break a TSV row or a text line, errors that
name ``file:line`` instead of a position, and one file given twice caught however it is spelled."""

from __future__ import annotations

import os
import re
from typing import ContextManager, Dict, List, Sequence

from ..errors import InputError
from ..inputs.empty import errors_renamed, rename_positions
from ..inputs.files import STDIN
from ..inputs.texts import printed_form

STDIN_LABEL = "<stdin>"
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_TO_ESCAPE = re.compile(r"[\\\t\n\r]")


def escape_label(label: str) -> str:
    """``label`` with backslash, tab, newline and carriage return written as ``\\\\``, ``\\t``, ``\\n``, ``\\r`` (the
    escapes of PostgreSQL's text format): a file named ``a<TAB>b<NEWLINE>fake<TAB>9.9`` injected a row into the TSV
    output and a line into the text output."""
    return _TO_ESCAPE.sub(lambda match: _ESCAPES[match.group()], label)


def one_line(message: str) -> str:
    """``message`` with its line breaks written as ``\\n`` and ``\\r``: an error naming a file whose name holds a
    newline is still one line on stderr."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def display_name(path: str) -> str:
    """The name a file argument is shown under (stdin as ``<stdin>``)."""
    return STDIN_LABEL if path == STDIN else path


def _identity(path: str) -> str:
    """What makes two arguments one input: stdin, or the file they resolve to (``a.txt``, ``./a.txt``, an absolute
    path and a symlink to it are one file)."""
    return STDIN if path == STDIN else os.path.realpath(path)


def refuse_repeated_files(paths: Sequence[str], allow_same_file: bool = False) -> None:
    """Refuse stdin given twice (it can be read once; the second read found it empty), and, unless
    ``allow_same_file``, one file given twice under any spelling (it counted as two systems).

    Raises:
        InputError: naming both spellings.
    """
    seen: dict = {}
    for path in paths:
        identity = _identity(path)
        if identity in seen:
            if path == STDIN:
                raise InputError(f"{STDIN_LABEL} is given twice: stdin can be read once; save one side to a file")
            if not allow_same_file:
                first = seen[identity]
                which = f"{first} is given twice" if first == path else f"{first} and {path} are the same file"
                raise InputError(f"{which}: name each system's file once")
        seen.setdefault(identity, path)


def refuse_look_alike_labels(labels: Sequence[str], given_as: str) -> None:
    """Refuse two systems whose names print alike (``X``, ``X`` + a zero-width space, `` X ``): a table would show
    two rows no reader can tell apart. ``given_as`` says where the names came from (``--label``, ``files``). A name
    given twice as it is (one file against itself) is left to the callers' own rules.

    Raises:
        InputError: naming both, escaped (``ascii``) so that the difference shows.
    """
    seen: Dict[str, str] = {}
    for label in labels:
        key = printed_form(label)
        if key in seen and seen[key] != label:
            fix = "give each a --label" if given_as == "files" else "name each system"
            raise InputError(f"{given_as} {ascii(seen[key])} and {ascii(label)} print as the same system name: "
                             f"{fix} so that it reads differently")
        seen.setdefault(key, label)


def name_positions(message: str, labels: List[str]) -> str:
    """``message`` with each ``text N`` replaced by the label of text N (``file:line``)."""
    return rename_positions(message, labels, escape_label)


def errors_named_by_label(labels: List[str]) -> ContextManager[None]:
    """Re-raise the scorer's InputErrors and NonFiniteScoreErrors (same class) with ``text N`` replaced by the label
    of text N (``file:line``), as the reader's own errors name them; the scorer only knows positions in the list it
    was given."""
    return errors_renamed(labels, escape_label)
