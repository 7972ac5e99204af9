"""JSON read from a file a user or another machine wrote, as a value or a one-line error naming the file.

``json.loads`` raises more than ``JSONDecodeError``: a document nested some thousand levels deep raises
RecursionError, an integer of more than 4,300 digits a plain ValueError (Python's limit on converting digits), and
bytes that are not UTF-8 a UnicodeDecodeError. Each reached the user as a traceback. Every reader of such a file
goes through :func:`parse_json`, which turns all of them into :class:`InvalidJson`, one line naming the file (a
JSONL input, a suite report, a checkpoint's config, a cache entry, a device call's record).

A value nested deeper than :data:`MAX_DEPTH` is refused as well, though json reads it: the code that walks it
afterwards (a copy, a comparison, ``json.dumps``) recurses too, and would fail there instead, with a traceback.
No file the project reads comes near that depth.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, List, Tuple, Union

from .errors import InputError

#: The deepest nesting of lists and objects a JSON input may have.
MAX_DEPTH = 100


class InvalidJson(InputError):
    """A JSON input that cannot be read; ``reason`` says why, for a caller that words its own error.
    ``past_limit``: the text is JSON, but nested too deeply or holding too long an integer for Python, so every
    reader of it (transformers' too) fails."""

    def __init__(self, where: str, reason: str, past_limit: bool = False) -> None:
        super().__init__(f"{where} is not valid JSON ({reason})")
        self.where = where
        self.reason = reason
        self.past_limit = past_limit


def parse_json(text: Union[str, bytes], where: str) -> Any:
    """``text`` parsed as JSON.

    Args:
        text: the document (bytes are decoded as UTF-8).
        where: the input named in the error (``FILE``, ``FILE line N``).

    Raises:
        InvalidJson: not JSON, not UTF-8, nested deeper than :data:`MAX_DEPTH`, or an integer too long to read.
    """
    try:
        value = json.loads(text)
    except UnicodeDecodeError as error:
        raise InvalidJson(where, f"not UTF-8 at byte {error.start}") from None
    except json.JSONDecodeError as error:
        raise InvalidJson(where, f"{error.msg}: line {error.lineno} column {error.colno}") from None
    except RecursionError:
        raise InvalidJson(where, f"nested deeper than {MAX_DEPTH} levels", past_limit=True) from None
    except ValueError as error:  # an integer over Python's digit limit; the message's first clause says so
        raise InvalidJson(where, str(error).split(";")[0], past_limit=True) from None
    if _may_nest_deeply(text) and nesting_depth(value) > MAX_DEPTH:
        raise InvalidJson(where, f"nested deeper than {MAX_DEPTH} levels", past_limit=True)
    return value


def _may_nest_deeply(text: Union[str, bytes]) -> bool:
    """Whether ``text`` has enough brackets to nest deeper than :data:`MAX_DEPTH` (a count in C: a JSONL line of
    a few fields is never walked)."""
    if isinstance(text, str):
        return text.count("[") + text.count("{") > MAX_DEPTH
    return text.count(b"[") + text.count(b"{") > MAX_DEPTH


def read_json(path: Path, what: str = "") -> Any:
    """The JSON file ``path`` (``what`` it is, e.g. ``"result.json"``, prefixes its name in errors).

    Raises:
        InvalidJson: as :func:`parse_json`.
        InputError: the file cannot be read (missing, a folder, no permission).
    """
    where = f"{what} {path}" if what else str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputError(f"{where}: cannot read it ({error.strerror or error})") from None
    return parse_json(data, where)


def nesting_depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (0 for a number or a string), walked without recursion."""
    deepest = 0
    pending: List[Tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (list, dict)):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
            pending.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


__all__ = ["MAX_DEPTH", "InvalidJson", "nesting_depth", "parse_json", "read_json"]
