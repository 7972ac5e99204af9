"""Reading texts from files or stdin in the CLI's input formats, with errors that name file and line.

Formats: ``doc`` (the whole file is one text), ``lines`` (one text per line), ``paragraphs`` (texts
separated by blank lines) and ``jsonl`` (one JSON object per line; the text is in ``field``, as a string
or a list of sentences).

Lines end at ``\n`` (``\r\n`` is read as ``\n``) and nowhere else: ``str.splitlines()`` also breaks at form
feeds, vertical tabs, U+0085, U+2028 and U+2029, which rejected valid JSONL (U+2028 may stand unescaped in a JSON
string) and could shift one of two paired files by a line without a word.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Union

from .errors import InputError
from .texts import INVISIBLE, has_visible_characters

INPUT_FORMATS = ("doc", "lines", "paragraphs", "jsonl")
STDIN = "-"
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class InputText:
    """One text read from a file, with a label saying where it came from (``file``, ``file:line``)."""

    label: str
    text: Union[str, List[str]]


def _read_bytes(path: str) -> bytes:
    if path == STDIN:
        return sys.stdin.buffer.read()
    file = Path(path)
    if not file.exists():
        raise InputError(f"{path}: no such file")
    if file.is_dir():
        raise InputError(f"{path} is a directory, not a text file")
    try:
        return file.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{name} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start}): "
            "re-encode it as UTF-8, e.g. with `iconv -f latin1 -t utf-8`"
        ) from None


def _jsonl_texts(content: str, name: str, field: str) -> List[InputText]:
    texts: List[InputText] = []
    for number, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{name} line {number} is not valid JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise InputError(f"{name} line {number} is not a JSON object")
        if field not in record:
            raise InputError(f"{name} line {number} has no field {field!r} (use --field to pick another)")
        value = record[field]
        is_sentences = isinstance(value, list) and all(isinstance(item, str) for item in value)
        if not isinstance(value, str) and not is_sentences:
            raise InputError(f"{name} line {number}: field {field!r} must be a string or a list of strings")
        if not (value.strip() if isinstance(value, str) else any(item.strip() for item in value)):
            raise InputError(f"{name} line {number}: field {field!r} is empty")
        if not has_visible_characters(value if isinstance(value, str) else " ".join(value)):
            raise InputError(f"{name} line {number}: field {field!r} has {INVISIBLE}")
        texts.append(InputText(f"{name}:{number}", value))
    return texts


def _visible(text: InputText, where: str) -> InputText:
    """The text, or an error naming ``where`` it came from when nothing in it can be scored."""
    if not has_visible_characters(text.text if isinstance(text.text, str) else " ".join(text.text)):
        raise InputError(f"{where} has {INVISIBLE}")
    return text


def read_texts(path: str, input_format: str = "doc", field: str = "text") -> List[InputText]:
    """Read the texts of one file (or ``-`` for stdin) in the given format.

    Raises:
        InputError: missing file, directory, undecodable bytes, an empty text, bad JSON or a missing field;
            the message names the file and, where it applies, the line.
    """
    if input_format not in INPUT_FORMATS:
        raise InputError(f"unknown input format {input_format!r}: choose one of {', '.join(INPUT_FORMATS)}")
    name = "<stdin>" if path == STDIN else path
    content = _decode(_read_bytes(path), name).replace("\r\n", "\n")
    if not content.strip():
        raise InputError(f"{name} is empty: there is no text to score")
    if input_format == "doc":
        return [_visible(InputText(name, content.strip()), name)]
    if input_format == "jsonl":
        return _jsonl_texts(content, name, field)
    if input_format == "paragraphs":
        pieces = [piece.strip() for piece in _PARAGRAPH_BREAK.split(content.strip())]
        return [_visible(InputText(f"{name}:paragraph{number}", piece), f"{name} paragraph {number}")
                for number, piece in enumerate(pieces, start=1)]
    lines = content.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    texts: List[InputText] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise InputError(f"{name} line {number} is empty: with --input-format lines every line is one text")
        texts.append(_visible(InputText(f"{name}:{number}", line.strip()), f"{name} line {number}"))
    return texts


def read_grouped_texts(path: str, field: str, group_field: str) -> Dict[str, List[InputText]]:
    """Read a JSONL file whose lines say which system wrote them (``group_field``), as one list of texts per
    system, systems in order of first appearance and each system's texts in file order (its i-th text answers
    input i). One read, so ``-`` (stdin) works too.

    Raises:
        InputError: everything ``read_texts`` refuses, and a line without ``group_field`` or with a value that is
            not a string or a number.
    """
    name = "<stdin>" if path == STDIN else path
    content = _decode(_read_bytes(path), name).replace("\r\n", "\n")
    if not content.strip():
        raise InputError(f"{name} is empty: there is no text to score")
    texts = _jsonl_texts(content, name, field)
    lines = content.split("\n")
    groups: Dict[str, List[InputText]] = {}
    for text in texts:
        number = int(text.label.rsplit(":", 1)[1])
        value = json.loads(lines[number - 1]).get(group_field)
        if value is None:
            raise InputError(f"{name} line {number} has no field {group_field!r} (--group-by names the field that "
                             "says which system wrote the text)")
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InputError(f"{name} line {number}: field {group_field!r} must be a string or a number, "
                             f"got {type(value).__name__}")
        groups.setdefault(str(value), []).append(text)
    return groups
