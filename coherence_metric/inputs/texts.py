"""Validating what users pass as texts: a string, a list of strings, or a list of sentence lists."""

from __future__ import annotations

import unicodedata
from typing import List, Optional, Sequence, Union

from ..errors import InputError
from .units import Unit, given_units, split_units

Document = Union[str, Sequence[str]]
"""One text: a string, or its sentences in order (joined with one space, as in the paper)."""

INVISIBLE = "no visible characters (only whitespace, control, format or zero-width characters): nothing to score"
"""The end of the message refusing such a text; ``str.strip()`` keeps NULs and zero-width spaces, and the
tokenizer then drops them, so without this check the model scored the empty sequence (-4.8 with the default)."""


def printed_form(label: str) -> str:
    """What a name reads as once printed: without format characters (zero-width space, word joiner, BOM), in
    NFKC (a full-width letter or a ligature reads as the plain one), whitespace runs as one space, stripped. Two
    system names with one printed form look like one system in a table."""
    visible = "".join(character for character in label if unicodedata.category(character) != "Cf")
    return " ".join(unicodedata.normalize("NFKC", visible).split())


def has_visible_characters(text: str) -> bool:
    """Whether ``text`` has a letter, mark, digit, punctuation or symbol: anything outside Unicode's
    control/format/unassigned (C*) and separator (Z*) categories, which tokenizers drop or read as spaces."""
    return any(unicodedata.category(character)[0] not in "CZ" for character in text)


def lone_surrogate(text: str) -> Optional[str]:
    """Where ``text`` holds a lone UTF-16 surrogate (``"\\ud800"``, which JSON escapes and Python strings allow but
    Unicode text cannot hold, so tokenizers fail on it), as a short description; None for valid text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"a lone surrogate (U+{ord(text[error.start]):04X} at character {error.start})"
    return None


def _check_unicode(text: str, where: str) -> None:
    problem = lone_surrogate(text)
    if problem:
        raise InputError(f"{where} holds {problem}, which is not valid Unicode: fix the text's encoding")


def _as_text(document: object, position: int) -> str:
    if isinstance(document, str):
        _check_unicode(document, f"text {position}")
        if not document.strip():
            raise InputError(f"text {position} is empty")
        if not has_visible_characters(document):
            raise InputError(f"text {position} has {INVISIBLE}")
        return document
    if isinstance(document, (list, tuple)):
        if not document:
            raise InputError(f"text {position} is an empty sentence list")
        for index, sentence in enumerate(document):
            if not isinstance(sentence, str):
                raise InputError(f"text {position}, sentence {index} is {type(sentence).__name__}, expected str")
            _check_unicode(sentence, f"text {position}, sentence {index}")
            if sentence.strip() and not has_visible_characters(sentence):
                raise InputError(f"text {position}, sentence {index} has {INVISIBLE}")
        joined = " ".join(sentence.strip() for sentence in document if sentence.strip())
        if not joined:
            raise InputError(f"text {position} has only empty sentences")
        return joined
    raise InputError(f"text {position} is {type(document).__name__}, expected a string or a list of sentences")


def normalise_documents(texts: Union[str, Sequence[Document]], first_position: int = 0) -> List[str]:
    """Return each input as one string, after checking none is empty or of the wrong type.

    A bare string is one text. Otherwise each element is a text: a string, or a list of its sentences.
    ``first_position`` is the number errors give the first text (texts added in batches are counted across them).

    Raises:
        InputError: naming the position of the first bad text.
    """
    if isinstance(texts, str):
        return [_as_text(texts, first_position)]
    if not isinstance(texts, (list, tuple)):
        raise InputError(f"texts must be a string or a list of texts, got {type(texts).__name__}")
    if not texts:
        raise InputError("no texts to score: the list is empty")
    return [_as_text(document, position) for position, document in enumerate(texts, start=first_position)]


def units_of(document: Document) -> List[Unit]:
    """The units of one text, each with its kind (:mod:`.units`): a string cut by the structure-aware segmentation
    ``score`` and ``explain`` share; given sentences kept as they are (stripped, empty ones dropped)."""
    if isinstance(document, str):
        return split_units(document)
    return given_units([sentence.strip() for sentence in document if sentence.strip()])


def sentences_of(document: Document) -> List[str]:
    """The units of one text as strings (its sentences, for prose): given ones as they are, otherwise cut by the
    structure-aware segmentation (:func:`.units.split_units`; plain prose exactly as the project's splitter cuts it)."""
    if isinstance(document, str):
        return [unit.text for unit in split_units(document)]
    return [sentence.strip() for sentence in document if sentence.strip()]
