"""Empty texts, for the CLI and the Python API alike: what counts as one, and what a batch does with them.

An empty text is None (a null JSONL field), a missing value (pandas' and numpy's NaN or NA), a string or sentence list
of whitespace only, or one of invisible characters only. One such output in a batch of thousands stops the batch by
default (``on_empty="error"``, CLI ``--on-empty error``), naming every empty one and the option that lets the rest
through; ``"skip"`` leaves them out and ``"nan"`` reports them with a NaN score, left out of every mean; both say how
many in one warning, as BERTScore does for an empty candidate.
"""

from __future__ import annotations

import contextlib
import math
import re
import warnings
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence

from ..errors import EmptyTextWarning, InputError, NonFiniteScoreError
from .texts import INVISIBLE, has_visible_characters, lone_surrogate

ON_EMPTY = ("error", "skip", "nan")
"""What to do with an empty text: ``error`` refuses the batch (the default), ``skip`` leaves the text out and ``nan``
reports it with a NaN score; both say how many."""

NULL = "is null"
MISSING = "is a missing value (NaN/NA)"
BLANK = "is empty"
NO_VISIBLE = f"has {INVISIBLE}"

LISTED = 5
"""The most empty texts an API message names one by one (then ``and N more``)."""

_FATES = {"skip": "left out", "nan": "reported as NaN and left out of every mean"}
_API_OPTION = 'on_empty="{}"'
_TEXT_POSITION = re.compile(r"\btext (\d+)\b")


class EmptyTextError(InputError):
    """An empty text refused under ``on_empty="error"``: the API's message names the option that lets the rest
    through; the CLI adds ``--on-empty`` to its file readers' messages."""


def check_on_empty(on_empty: object, choices: Sequence[str] = ON_EMPTY) -> str:
    """``on_empty`` itself, or one line naming the choices."""
    if not isinstance(on_empty, str) or on_empty not in choices:
        raise InputError(f"unknown on_empty {on_empty!r}: choose one of {', '.join(choices)}")
    return on_empty


def is_missing(text: object) -> bool:
    """A float NaN (pandas' and numpy's missing text) or pandas' ``NA``."""
    if isinstance(text, float) and math.isnan(text):
        return True
    return type(text).__name__ == "NAType"


def empty_reason(text: object) -> Optional[str]:
    """Why ``text`` has nothing to score (:data:`NULL`, :data:`MISSING`, :data:`BLANK` or :data:`NO_VISIBLE`), or None
    when it has something, or is no text at all: a number or a text holding a lone surrogate is an error of its own,
    reported as such, never skipped as empty."""
    if text is None:
        return NULL
    if is_missing(text):
        return MISSING
    if isinstance(text, str):
        pieces = [text]
    elif isinstance(text, (list, tuple)) and all(isinstance(piece, str) for piece in text):
        pieces = list(text)
    else:
        return None
    if not any(piece.strip() for piece in pieces):
        return BLANK
    joined = " ".join(pieces)
    if not has_visible_characters(joined) and not lone_surrogate(joined):
        return NO_VISIBLE
    return None


def on_empty_hint(option: str, choices: Sequence[str] = ON_EMPTY) -> str:
    """The fix an ``error`` message names: ``option`` is how the option is spelled, with ``{}`` for its value
    (``--on-empty {}`` in the CLI, ``on_empty="{}"`` in Python)."""
    hint = f"pass {option.format('skip')} to leave empty texts out"
    if "nan" in choices:
        hint += f", or {option.format('nan')} to report them as NaN"
    return hint


def empty_summary(count: int, on_empty: str, option: str, named: str, shown: int = 1, what: str = "text") -> str:
    """The one-line warning under skip or nan: how many ``what`` were empty, what became of them (``option``
    spelled as in :func:`on_empty_hint`), and the ``shown`` first of them, ``named``."""
    return (f"{count} empty {what}{'s' if count != 1 else ''} {_FATES[on_empty]} ({option.format(on_empty)}): "
            f"{named}{_more(count, shown)}")


def empty_pairs_summary(count: int, on_empty: str, option: str, named: str, shown: int = 1) -> str:
    """:func:`empty_summary` for paired inputs, where an empty text on either side leaves the whole input out."""
    fate = {"skip": "left out", "nan": "reported as NaN and left out of every mean, win rate and p-value"}[on_empty]
    return (f"{count} input{'s' if count != 1 else ''} with an empty text {fate} ({option.format(on_empty)}; a pair "
            f"needs both texts): {named}{_more(count, shown)}")


def nothing_to_score(count: int, first: str) -> InputError:
    """The refusal of a batch whose texts are all empty, naming the first."""
    return InputError(f"every text is empty ({count}, the first: {first}): nothing to score")


def nothing_to_compare(count: int, first: str) -> InputError:
    """The refusal of paired inputs that all have an empty text, naming the first."""
    return InputError(f"every input has an empty text ({count}, the first: {first}): nothing to compare")


def _more(count: int, shown: int) -> str:
    return f"; and {count - shown} more" if count > shown else ""


def _described(position: int, reason: str, side: str = "") -> str:
    """One empty text as the Python API names it: ``text 3 is None`` (``text 3 of B is None`` for a side)."""
    short = {NULL: "is None", NO_VISIBLE: "has no visible characters"}.get(reason, reason)
    return f"text {position}{side} {short}"


@dataclass(frozen=True)
class EmptySplit:
    """A batch split by ``on_empty``: the input positions to score, the empty ones' positions, and each empty one
    named with its reason (``text 3 is None``)."""

    on_empty: str
    kept: List[int]
    empty: List[int]
    described: List[str]

    @property
    def named(self) -> str:
        """The first :data:`LISTED` empty texts, named by position and reason."""
        return ", ".join(self.described[:LISTED])


def split_empty_texts(documents: Sequence[object], on_empty: str, first_position: int = 0,
                      stacklevel: Optional[int] = 3, refuse_all_empty: bool = True) -> EmptySplit:
    """Find the empty texts among ``documents`` (positions numbered from ``first_position``) and apply ``on_empty``:
    refuse them (``error``), or return the split with one :class:`EmptyTextWarning` saying how many (``skip``,
    ``nan``; ``stacklevel`` points it at the user's call, counted from the caller of this function; None: no
    warning, for a check that a later call repeats). ``refuse_all_empty`` False: texts that are all empty are a
    split with nothing kept (a metric's update in a training loop, whose other batches are scored).

    Raises:
        InputError: an unknown ``on_empty``; under ``error`` an :class:`EmptyTextError` naming every empty text (the
            first :data:`LISTED`, then how many more) and the option; under skip or nan, texts that are all empty.
    """
    check_on_empty(on_empty)
    found = find_empty(documents, first_position)
    split = _split(on_empty, range(first_position, first_position + len(documents)), found)
    if split.empty:
        if on_empty == "error":
            raise empty_refusal(split.described)
        if not split.kept and refuse_all_empty:
            raise nothing_to_score(len(split.empty), split.described[0])
        if stacklevel is not None:
            warnings.warn(empty_summary(len(split.empty), on_empty, _API_OPTION, split.named,
                                        min(len(split.empty), LISTED)), EmptyTextWarning, stacklevel=stacklevel)
    return split


def split_empty_pairs(side_a: Sequence[object], side_b: Sequence[object], on_empty: str,
                      stacklevel: Optional[int] = 3) -> EmptySplit:
    """:func:`split_empty_texts` for two systems' texts on the same inputs (same length): an input is empty when
    either text is, since a pair needs both texts; its texts are named ``text N of A`` / ``of B``."""
    check_on_empty(on_empty)
    found: Dict[int, str] = {}
    for position, pair in enumerate(zip(side_a, side_b)):
        named = [_described(position, reason, f" of {side}") for side, text in zip("AB", pair)
                 for reason in [empty_reason(text)] if reason is not None]
        if named:
            found[position] = " and ".join(named)
    split = _split(on_empty, range(len(side_a)), found)
    if split.empty:
        if on_empty == "error":
            raise empty_refusal(split.described, "inputs have an empty text")
        if not split.kept:
            raise nothing_to_compare(len(split.empty), split.described[0])
        if stacklevel is not None:
            warnings.warn(empty_pairs_summary(len(split.empty), on_empty, _API_OPTION, split.named,
                                              min(len(split.empty), LISTED)), EmptyTextWarning, stacklevel=stacklevel)
    return split


def _split(on_empty: str, positions: Iterable[int], found: Dict[int, str]) -> EmptySplit:
    kept = [position for position in positions if position not in found]
    return EmptySplit(on_empty, kept, list(found), list(found.values()))


def find_empty(documents: Sequence[object], first_position: int = 0) -> Dict[int, str]:
    """The empty texts among ``documents``: position (numbered from ``first_position``) -> the text named with its
    reason (``text 3 is None``), in order."""
    found: Dict[int, str] = {}
    for position, document in enumerate(documents, start=first_position):
        reason = empty_reason(document)
        if reason is not None:
            found[position] = _described(position, reason)
    return found


def empty_refusal(described: Sequence[str], are_empty: str = "texts are empty", prefix: str = "") -> EmptyTextError:
    """The ``error`` refusal, one line: the one empty text, or how many (``are_empty`` says of what) with the first
    :data:`LISTED` named (``described``, as :func:`find_empty` names them) and how many more, then the fix."""
    count = len(described)
    named = ", ".join(described[:LISTED])
    hint = on_empty_hint(_API_OPTION)
    if count == 1:
        return EmptyTextError(f"{prefix}{named}: {hint}")
    return EmptyTextError(f"{prefix}{count} {are_empty} ({named}{_more(count, LISTED)}): {hint}")


def _as_is(name: str) -> str:
    return name


def rename_positions(message: str, names: Sequence[str], shown: Callable[[str], str] = _as_is) -> str:
    """``message`` with each ``text N`` replaced by ``shown(names[N])``; positions beyond ``names`` stay as they
    are."""
    def name(match: "re.Match[str]") -> str:
        position = int(match.group(1))
        return shown(names[position]) if position < len(names) else match.group()

    return _TEXT_POSITION.sub(name, message)


@contextlib.contextmanager
def errors_renamed(names: Sequence[str], shown: Callable[[str], str] = _as_is) -> Iterator[None]:
    """Re-raise InputErrors and NonFiniteScoreErrors (same class) with ``text N`` replaced by ``shown(names[N])``: the
    scorer numbers texts by their place in the list it was given, which is not the user's list once empty texts are
    left out, nor the user's ``file:line``."""
    try:
        yield
    except (InputError, NonFiniteScoreError) as error:
        message = rename_positions(str(error), names, shown)
        if message == str(error):
            raise
        raise type(error)(message) from None


def input_positions(positions: Sequence[int]) -> List[str]:
    """``text N`` for each position: the names :func:`errors_renamed` gives the kept texts of a split."""
    return [f"text {position}" for position in positions]


__all__ = [
    "BLANK",
    "EmptySplit",
    "EmptyTextError",
    "LISTED",
    "MISSING",
    "NO_VISIBLE",
    "NULL",
    "ON_EMPTY",
    "check_on_empty",
    "empty_pairs_summary",
    "empty_refusal",
    "empty_reason",
    "empty_summary",
    "is_missing",
    "errors_renamed",
    "find_empty",
    "input_positions",
    "nothing_to_compare",
    "nothing_to_score",
    "on_empty_hint",
    "rename_positions",
    "split_empty_pairs",
    "split_empty_texts",
]
