"""The units a text is read in: sentences of prose, and the parts of text as LLMs write it (list items, headings, code).

``score`` and ``explain`` read a string through :func:`split_units` (``inputs.texts.sentences_of``), so both cut a
text the same way. Plain prose (no line that starts a list item, a heading or a code fence, and no emoji standing
alone) is cut by :func:`~coherence_metric.inputs.sentences.split_sentences` exactly as before: the same units, so
every prose score stays what it was (a test holds this on the examples and on real corpus documents). Markdown and
chat answers are read as units of their structure:

- a list item (``-``, ``*``, ``+``, ``•``, ``1.``, ``1)`` at the start of a line) starts a unit; an item holding
  several sentences is split into sentences as prose is (kind ``item`` for its first, ``sentence`` for the rest);
  indented lines after it that start nothing new continue it;
- a heading is its own unit (kind ``heading``): a line of ``#`` .. ``######`` and a space, a line of bold text alone
  (``**Benefits**``), and a short prose line ending with ":" followed by a list ("Key points:");
- a fenced code block (```` ``` ```` or ``~~~``, to its closing fence or the end of the text) is one unit, never
  split, kept with its line breaks (kind ``code``);
- a piece made only of emoji or other symbols, with or without punctuation ("😊", "🎉🎉", a ``---`` rule), joins the
  unit before it (the one after when it comes first), and an emoji the splitter put at the start of the next
  sentence ("I hope this helps! 😊 Let me know ...") goes back to the sentence it closes. A piece of punctuation alone
  (a stray "." or "...", which news corpora hold) is left as the splitter cut it, so prose segments as before;
- a line break inside a paragraph ends a unit where the next line starts a list item, a heading or a fence; anywhere
  else the splitter decides, as before;
- a chat opening or closing at the text's edges is a unit of kind ``frame`` (:mod:`.frames`).

**Markup is kept as written.** A unit's text is the text's own characters (whitespace runs as one space, outside
code): a list item keeps its marker and ``**bold**`` stays, so the units joined are the text the user gave, and a
checkpoint that reads sentences reads what the user wrote. Stripping would not make Markdown read like prose: with
the 0.8.0 default (`fast`, fp32) the Markdown example of docs/llm-outputs.md scores +0.89 as written and +0.03 with the
markers and bold stripped from its units (its plain prose: +0.72); cm-minilm-joint-boundary-2026.11 +0.85 and +1.41.
Stripping moves the score by more than the formatting does, and in opposite directions for two checkpoints.

One reading drops the marker: ``explain``'s evidence reads a list item as the sentence it holds
(:func:`evidence_text`), the form its thresholds were set on (CoheSentia's prose sentences). On the 120 LLM-shaped dev
texts of ``benchmarks/localisation/llm_shaped.py`` (default, fp32) that took the clean texts flagged from 37.5% to
27.5% (paired: 21 texts lost their flag, 9 gained one; McNemar p = 0.04) and left the inserted bullet's top-1 where it
was (87.5% and 89.2%, paired p = 0.77). Bold is kept there too (the dev texts have none to measure it on).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .frames import frame_positions
from .sentences import LANGUAGE, split_sentences

SENTENCE = "sentence"
ITEM = "item"
HEADING = "heading"
CODE = "code"
FRAME = "frame"
#: The kinds of unit: prose sentences and list items are what a text says; headings, code and frames are read by
#: ``score`` but never flagged by ``explain``.
KINDS = (SENTENCE, ITEM, HEADING, CODE, FRAME)
#: The kinds ``explain`` reads for breaks (the text's body); the others are never flagged, and no break is read
#: across them.
BODY = (SENTENCE, ITEM)
#: The longest prose line, in words, that reads as a heading when it ends with ":" and a list follows.
MAX_LEAD_WORDS = 10

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"^[ \t]*((?:[-*+\u2022]|\d{1,3}[.)]))[ \t]+(?=\S)")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+\S")
#: A line longer than this (in words, its markers included) is prose even where it starts like a heading: a story
#: that opens with "# # #" on one line is not a title.
MAX_HEADING_WORDS = 20
_BOLD_LINE = re.compile(r"^[ \t]*(\*\*|__)[^*_]+\1:?[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


@dataclass(frozen=True)
class Unit:
    """One unit of a text: its text (as written, whitespace runs as one space outside code) and its kind."""

    text: str
    kind: str


_PROSE = "prose"
_RULE_LINE = "rule"


@dataclass
class _Block:
    kind: str  # _PROSE, ITEM, HEADING, CODE or _RULE_LINE
    lines: List[str]


def _structural(line: str) -> Optional[str]:
    """What a line starts: CODE (a fence), _RULE_LINE, HEADING, ITEM, or None for a line of prose."""
    if _FENCE.match(line):
        return CODE
    if _RULE.match(line):
        return _RULE_LINE
    if (_HEADING.match(line) or _BOLD_LINE.match(line)) and len(line.split()) <= MAX_HEADING_WORDS:
        return HEADING
    if _ITEM.match(line):
        return ITEM
    return None


def _fence_end(lines: Sequence[str], start: int) -> int:
    """The index just past the fenced block opened at ``lines[start]`` (the end of the text if it is never closed)."""
    opener = _FENCE.match(lines[start])
    assert opener is not None
    fence = opener.group(1)
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for index in range(start + 1, len(lines)):
        if closing.match(lines[index]):
            return index + 1
    return len(lines)


def _continues(line: str) -> bool:
    """Whether a line after a list item's goes on with it: indented, not blank, and starting nothing new. (An
    unindented line after a list is the prose after it, as "I hope this helps!" is in a chat answer.)"""
    return line[:1] in (" ", "\t") and bool(line.strip()) and _structural(line) is None


def _blocks(text: str) -> List[_Block]:
    """The text's lines grouped into blocks: runs of prose lines, and each structural element."""
    lines = text.split("\n")
    blocks: List[_Block] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        kind = _structural(line)
        if kind == CODE:
            end = _fence_end(lines, index)
            blocks.append(_Block(CODE, lines[index:end]))
            index = end
            continue
        if kind in (_RULE_LINE, HEADING):
            blocks.append(_Block(kind, [line]))
        elif kind == ITEM:
            end = index + 1
            while end < len(lines) and _continues(lines[end]):
                end += 1
            blocks.append(_Block(ITEM, lines[index:end]))
            index = end
            continue
        elif blocks and blocks[-1].kind == _PROSE:
            blocks[-1].lines.append(line)
        else:
            blocks.append(_Block(_PROSE, [line]))
        index += 1
    return blocks


def _emoji(character: str) -> bool:
    """An emoji or another pictographic symbol, or what modifies or joins one (skin tones, ZWJ, variation marks).
    ASCII is never one: PTB-tokenised text opens quotes with backticks (``` `` ```), which belong to their sentence."""
    if character.isascii():
        return False
    return unicodedata.category(character) in ("So", "Sk") or character in "\u200d\ufe0e\ufe0f"


def symbols_only(text: str) -> bool:
    """No letter or digit, and at least one emoji or symbol: a piece that says nothing a sentence could."""
    return (not any(unicodedata.category(character)[0] in "LN" for character in text)
            and any(_emoji(character) for character in text))


def _leading_emoji(text: str) -> Tuple[str, str]:
    """``text`` cut after its leading emoji run and the space after it ("😊 Let me know" -> "😊", "Let me know");
    ("", text) when it does not start so."""
    end = 0
    while end < len(text) and (_emoji(text[end]) or (end and unicodedata.category(text[end]) == "Mn")):
        end += 1
    if not end or end == len(text) or not text[end].isspace():
        return "", text
    return text[:end], text[end:].lstrip()


def _pieces(lines: Sequence[str], language: str) -> List[str]:
    """The splitter's sentences of these lines, an emoji it put at the start of a sentence moved back to the one it
    closes."""
    pieces = split_sentences("\n".join(lines), language)
    for index in range(1, len(pieces)):
        head, rest = _leading_emoji(pieces[index])
        if head and rest:
            pieces[index - 1] = f"{pieces[index - 1]} {head}"
            pieces[index] = rest
    return pieces


def _prose_units(lines: Sequence[str], language: str) -> List[Unit]:
    return [Unit(piece, SENTENCE) for piece in _pieces(lines, language)]


def _item_units(lines: Sequence[str], language: str) -> List[Unit]:
    found = _ITEM.match(lines[0])
    assert found is not None
    marker = found.group(1)
    pieces = _pieces([lines[0][found.end():], *lines[1:]], language)
    if not pieces:
        return [Unit(marker, ITEM)]
    return [Unit(f"{marker} {pieces[0]}", ITEM)] + [Unit(piece, SENTENCE) for piece in pieces[1:]]


def _code_unit(lines: Sequence[str]) -> Unit:
    return Unit("\n".join(line.rstrip() for line in lines).strip("\n"), CODE)


def _leads_list(unit: Unit) -> bool:
    """A short prose line ending with ":" ("Key points:"), which heads the list after it."""
    return unit.kind == SENTENCE and unit.text.endswith(":") and len(unit.text.split()) <= MAX_LEAD_WORDS


def _structured_units(blocks: Sequence[_Block], language: str) -> List[Unit]:
    units: List[Unit] = []
    for position, block in enumerate(blocks):
        if block.kind == _PROSE:
            found = _prose_units(block.lines, language)
            following = next((later.kind for later in blocks[position + 1:] if later.kind != _RULE_LINE), None)
            if found and following == ITEM and _leads_list(found[-1]):
                found[-1] = Unit(found[-1].text, HEADING)
            units.extend(found)
        elif block.kind == ITEM:
            units.extend(_item_units(block.lines, language))
        elif block.kind == CODE:
            units.append(_code_unit(block.lines))
        else:  # a heading or a rule: one line
            units.append(Unit(" ".join(block.lines[0].split()), block.kind))
    return units


def _join_symbols(units: List[Unit]) -> List[Unit]:
    """Pieces of emoji or symbols alone (and ``---`` rules) joined to the unit before them, or after when first."""
    joined: List[Unit] = []
    pending = ""  # symbols met before any unit with words
    for unit in units:
        alone = unit.kind == _RULE_LINE or symbols_only(unit.text)
        if alone and joined:
            joined[-1] = Unit(f"{joined[-1].text} {unit.text}", joined[-1].kind)
        elif alone:
            pending = f"{pending} {unit.text}".strip()
        else:
            joined.append(Unit(f"{pending} {unit.text}" if pending else unit.text, unit.kind))
            pending = ""
    if pending:  # nothing but symbols: one unit
        joined.append(Unit(pending, SENTENCE))
    return joined


def with_frames(units: List[Unit]) -> List[Unit]:
    """The units, with the chat opening and closing at the text's edges marked ``frame`` (:mod:`.frames`; prose
    sentences and headings can be frames, list items and code never)."""
    framed = set(frame_positions([unit.text for unit in units], [unit.kind in (SENTENCE, HEADING) for unit in units]))
    return [Unit(unit.text, FRAME) if index in framed else unit for index, unit in enumerate(units)]


def split_units(text: str, language: str = LANGUAGE) -> List[Unit]:
    """The units of ``text`` in order (see the module's docstring); an empty list for blank text.

    Args:
        text: any text: prose, Markdown, a chat answer.
        language: an ISO 639 code understood by sentencex.
    """
    blocks = _blocks(text)
    if all(block.kind == _PROSE for block in blocks):  # prose: the splitter's sentences of the whole text
        units = _prose_units([text], language)
    else:
        units = _structured_units(blocks, language)
    return with_frames(_join_symbols(units))


def evidence_text(unit: Unit) -> str:
    """The text ``explain``'s evidence reads for a unit: a list item without its marker (``- ``, ``1. ``), the
    sentence it holds; any other unit as it is (the module's docstring says why)."""
    if unit.kind != ITEM:
        return unit.text
    found = _ITEM.match(unit.text)
    return unit.text[found.end():] if found else unit.text


def given_units(sentences: Sequence[str]) -> List[Unit]:
    """Units of a text given as its sentences: each kept as given (nothing split or joined), its kind read from it."""
    units = []
    for sentence in sentences:
        kind = _structural(sentence)
        if kind == CODE:
            units.append(Unit(sentence, CODE))
        elif kind == HEADING:
            units.append(Unit(sentence, HEADING))
        elif kind == ITEM:
            units.append(Unit(sentence, ITEM))
        else:
            units.append(Unit(sentence, SENTENCE))
    return with_frames(units)
