"""Framing lines: a chat assistant's opening ("Sure!", "Here's a short overview:") and closing ("I hope this helps!").

They are how an assistant talks to the reader, not part of what it explains, so ``explain`` never flags them and
never reads a break across them (framing is not a coherence error; a reader trusts a flag only on a real break).
``score`` still reads them: they are part of the text as written.

The patterns are a small, closed list, matched case-insensitively against a whole unit (never a prefix of one: "Sure,
the panels work on cloudy days." is content), and only at the edges of a text: a run of openings from its first unit
on, a run of closings back from its last. A frame is short (``MAX_FRAME_WORDS``). Trailing emoji and symbols are
ignored ("Happy coding! 🚀"), and curly apostrophes read as straight ones.
"""

from __future__ import annotations

import re
import unicodedata
from typing import List, Sequence

#: The longest unit, in words, that can be a frame: framing is a line, not a paragraph.
MAX_FRAME_WORDS = 20

#: Openings: an interjection or greeting, a compliment on the question, an offer to help, an announcement of what
#: follows ("Here's ...", "Let me explain.", "Below is ...").
OPENINGS = (
    r"(sure|certainly|absolutely|of course|definitely|okay|ok|alright|all right|got it|no problem|gladly|great|"
    r"excellent|perfect)( thing)?[.!,]*",
    r"(what an? |that's an? |that is an? )?(great|good|excellent|interesting|fantastic) question[.!,]*",
    r"(hi|hello|hey)( there)?[.!,]*",
    r"(thanks|thank you) for (asking|your question|the question|reaching out)[^.!?]*[.!]*",
    r"(i'd|i would|i'm|i am|i'll|i will) (be )?(happy|glad|delighted) to (help|explain|assist)[^.!?]*[.!:]*",
    r"((sure|certainly|absolutely|of course)[,!.]? )?here(?:'s| is| are) (a|an|the|some|my|your|what|how|why|\d+)"
    r"\b[^.!?]*[.!:]",
    r"let(?:'s| me| us) (break (it|this|that) down|explain|walk you through|take a look|dive in)[^.!?]*[.!:]*",
    r"(below|the following) (is|are) [^.!?]*[.:]",
)

#: Closings: hoping it helped, offering more help, wishing the reader well.
CLOSINGS = (
    r"(i )?hope (this|that|it|these|the above) (helps|help|was helpful|is helpful|answers your question|clarifies)"
    r"[^.!?]*[.!]*",
    r"let me know if [^.!?]*[.!?]*",
    r"(please )?(feel free|don't hesitate|do not hesitate) to [^.!?]*[.!?]*",
    r"(is there )?anything else [^.!?]*\?",
    r"if you have any (other |more |further |additional |follow-up )?questions[^.!?]*[.!?]*",
    r"happy (coding|writing|reading|learning|cooking|baking|hacking|gardening|studying|travels|traveling|travelling)"
    r"[.!]*",
    r"(good luck|best of luck)[^.!?]*[.!]*",
    r"(cheers|best regards|enjoy)[.!]*",
    r"would you like (me to|more|a|an|to) [^.!?]*\?",
    r"(thanks|thank you) for (reading|asking)[^.!?]*[.!]*",
)

_OPENING = re.compile("|".join(f"(?:{pattern})" for pattern in OPENINGS), re.IGNORECASE)
_CLOSING = re.compile("|".join(f"(?:{pattern})" for pattern in CLOSINGS), re.IGNORECASE)


def _symbol(character: str) -> bool:
    """Emoji and other symbols, their modifiers and joiners: what ends a line such as "Happy coding! 🚀"."""
    return unicodedata.category(character) in ("So", "Sk", "Mn", "Cf") or character.isspace()


def normalised(unit: str) -> str:
    """The unit as the patterns read it: curly apostrophes straight, trailing emoji and symbols dropped, whitespace
    runs one space."""
    text = unit.replace("\u2019", "'").replace("\u2018", "'")
    end = len(text)
    while end and _symbol(text[end - 1]):
        end -= 1
    return " ".join(text[:end].split())


def _is(pattern: "re.Pattern[str]", unit: str) -> bool:
    text = normalised(unit)
    return bool(text) and len(text.split()) <= MAX_FRAME_WORDS and pattern.fullmatch(text) is not None


def is_opening(unit: str) -> bool:
    """Whether the whole unit is a chat opening (``OPENINGS``)."""
    return _is(_OPENING, unit)


def is_closing(unit: str) -> bool:
    """Whether the whole unit is a chat closing (``CLOSINGS``)."""
    return _is(_CLOSING, unit)


def frame_positions(units: Sequence[str], eligible: Sequence[bool]) -> List[int]:
    """The indices of the units that frame the text: the openings from the first unit on and the closings back from
    the last, each run stopping at the first unit that is not one (or not ``eligible``: list items and code are never
    frames)."""
    found: List[int] = []
    index = 0
    while index < len(units) and eligible[index] and is_opening(units[index]):
        found.append(index)
        index += 1
    last = len(units) - 1
    while last >= index and eligible[last] and is_closing(units[last]):
        found.append(last)
        last -= 1
    return sorted(found)
