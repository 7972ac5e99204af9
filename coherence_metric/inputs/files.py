"""Reading texts from files or stdin in the CLI's input formats, with errors that name file and line.

Formats: ``doc`` (the whole file is one text), ``lines`` (one text per line), ``paragraphs`` (texts
separated by blank lines) and ``jsonl`` (one JSON object per line; the text is in ``field``, as a string
or a list of sentences).

Lines end at ``\n`` (``\r\n`` is read as ``\n``) and nowhere else: ``str.splitlines()`` also breaks at form
feeds, vertical tabs, U+0085, U+2028 and U+2029, which rejected valid JSONL (U+2028 may stand unescaped in a JSON
string) and could shift one of two paired files by a line without a word.

Only regular files, pipes (a FIFO, as ``<(command)`` gives) and stdin are read, each up to ``MAX_INPUT_BYTES``:
``score /dev/zero`` read until memory ran out.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO, Dict, List, Optional, Tuple, Union

from ..errors import InputError
from ..safe_json import parse_json
from .empty import EmptyTextError, check_on_empty, empty_reason
from .texts import has_visible_characters, lone_surrogate, printed_form

INPUT_FORMATS = ("doc", "lines", "paragraphs", "jsonl")
STDIN = "-"
MAX_INPUT_BYTES = 1 << 30
"""The most bytes read from one input (1 GiB: days of scoring on a CPU); more is refused rather than read until
memory runs out. Larger datasets go through ``score --ray``, which streams them."""


@dataclass(frozen=True)
class InputText:
    """One text read from a file, with a label saying where it came from (``file``, ``file:line``, or a JSONL row's
    ``--id-field`` value). ``empty`` says why there is no text to score (``on_empty`` skip or nan; ``text`` is then
    ``""``); ``line`` is the JSONL line it came from."""

    label: str
    text: Union[str, List[str]]
    empty: Optional[str] = None
    line: Optional[int] = None


def _empty_or_refuse(label: str, where: str, reason: str, on_empty: str, line: Optional[int] = None) -> InputText:
    """The placeholder for an empty text (``on_empty`` skip or nan), or the error naming ``where`` it is."""
    if on_empty == "error":
        raise EmptyTextError(f"{where}{reason}")
    return InputText(label, "", empty=f"{where}{reason}", line=line)


def _row_id(record: dict, id_field: str, where: str) -> str:
    """The label a JSONL row's ``id_field`` gives it (a string or a number)."""
    if id_field not in record:
        raise InputError(f"{where} has no field {id_field!r} (--id-field names the field that labels each row)")
    value = record[id_field]
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
        shown = "null" if value is None else type(value).__name__
        raise InputError(f"{where}: field {id_field!r} is {shown}: --id-field needs a string or a number on every row")
    label = str(value)
    if not has_visible_characters(label):
        raise InputError(f"{where}: field {id_field!r} has no visible characters ({ascii(label)}): give the row an id")
    return label


def _read_capped(stream: BinaryIO, name: str) -> bytes:
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{name} is larger than {MAX_INPUT_BYTES} bytes: split it, or score it with --ray")
    return data


def _read_bytes(path: str) -> bytes:
    if path == STDIN:
        return _read_capped(sys.stdin.buffer, "<stdin>")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{path} is a directory, not a text file")
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise InputError(f"{path} is not a regular file (a device or socket): save the text to a file, or pipe it "
                         "to - (stdin)")
    try:
        with open(path, "rb") as stream:
            return _read_capped(stream, path)
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None


_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
              (b"\xfe\xff", "UTF-16"))
"""Byte order marks of the wide encodings, UTF-32's first (its little-endian mark starts with UTF-16's)."""


def _wide_encoding(data: bytes) -> Optional[str]:
    """``UTF-16``/``UTF-32`` (byte order mark) or ``UTF-16LE``/``UTF-16BE`` (none, but a NUL byte beside every
    ASCII character), else None.

    Why: a UTF-16 file failed as "not valid UTF-8" with advice to convert from latin1, which turns it into garbled
    text that then scores silently; without a byte order mark its NUL bytes are valid UTF-8 and nothing failed at
    all. A NUL byte never stands in text, so half the bytes being NUL at alternating positions is UTF-16.
    """
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            return encoding
    head = data[:4096]
    if len(head) < 4 or head.count(0) * 4 < len(head):
        return None
    odd, even = head[1::2].count(0), head[0::2].count(0)
    if odd * 4 >= len(head) * 3 // 2 and even * 4 < len(head) // 2:
        return "UTF-16LE"
    if even * 4 >= len(head) * 3 // 2 and odd * 4 < len(head) // 2:
        return "UTF-16BE"
    return None


def _file_argument(name: str) -> str:
    """``name`` as a shell argument, or nothing for stdin (the command then reads its own stdin)."""
    return "" if name == "<stdin>" else " " + shlex.quote(name)


def decode_input(data: bytes, name: str) -> str:
    """``data`` as text (UTF-8, a UTF-8 byte order mark dropped); other encodings refused with the command that
    converts them."""
    wide = _wide_encoding(data)
    if wide is not None:
        raise InputError(f"{name} is {wide}, not UTF-8: convert it with `iconv -f {wide} -t UTF-8"
                         f"{_file_argument(name)} > converted.txt` and score that")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{name} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start}): find its encoding "
            f"(`file -i{_file_argument(name)}`) and convert it with `iconv -f ENCODING -t UTF-8`"
        ) from None


def json_object(line: str, where: str) -> Dict[str, Any]:
    """One JSONL line parsed, which must be a JSON object; the error names ``where`` (``FILE line N``)."""
    record = parse_json(line, where)  # one line for bad JSON, deep nesting or an over-long integer alike
    if not isinstance(record, dict):
        raise InputError(f"{where} is not a JSON object")
    return record


def jsonl_texts(content: str, name: str, field: str, on_empty: str = "error", id_field: Optional[str] = None,
                unique_ids: bool = True) -> List[InputText]:
    """The texts of JSONL ``content`` (a file's decoded text), each labelled ``name:line`` (or by its ``id_field``,
    unique in the file unless ``unique_ids`` is False); errors name the line (and the row's id). An empty or null
    text, or one of invisible characters only, is refused under ``on_empty="error"`` and returned with ``empty``
    set otherwise."""
    texts: List[InputText] = []
    seen_ids: Dict[str, int] = {}
    for number, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        record = json_object(line, where)
        label = f"{name}:{number}"
        if id_field is not None:
            label = _row_id(record, id_field, where)
            if unique_ids and label in seen_ids:
                raise InputError(f"{name} lines {seen_ids[label]} and {number} have the same {id_field!r} "
                                 f"{ascii(label)}: --id-field labels rows, so each needs its own")
            seen_ids.setdefault(label, number)
            where = f"{where} ({id_field} {escape_id(label)})"
        if field not in record:
            raise InputError(f"{where} has no field {field!r} (use --field to pick another)")
        value = record[field]
        reason = empty_reason(value)  # the Python API's test too: null, blank, invisible characters only
        if reason is not None:
            texts.append(_empty_or_refuse(label, where, f": field {field!r} {reason}", on_empty, number))
            continue
        is_sentences = isinstance(value, list) and all(isinstance(item, str) for item in value)
        if not isinstance(value, str) and not is_sentences:
            raise InputError(f"{where}: field {field!r} must be a string or a list of strings")
        surrogate = lone_surrogate(value if isinstance(value, str) else "".join(value))
        if surrogate:  # a JSON "\ud800" escape: refused here, before any model loads
            raise InputError(f"{where}: field {field!r} holds {surrogate}, which is not valid Unicode")
        texts.append(InputText(label, value, line=number))
    return texts


def escape_id(label: str) -> str:
    """An id as an error message shows it: as it is when it is plain, else escaped (``ascii``)."""
    return label if label.isprintable() and label.strip() == label and label else ascii(label)


def _visible(text: InputText, where: str, on_empty: str = "error") -> InputText:
    """The text, or (when nothing in it can be scored) an error naming ``where`` it came from, or under ``on_empty``
    skip or nan the empty placeholder."""
    reason = empty_reason(text.text)
    if reason is not None:
        return _empty_or_refuse(text.label, where, f" {reason}", on_empty)
    return text


def _paragraphs(content: str) -> List[str]:
    """The blank-line separated paragraphs of ``content``. A blank line is one ``str.strip`` empties (spaces, tabs,
    no-break and other Unicode spaces), and any run of them is one break: a regex of ASCII blanks refused three
    blank lines as an empty paragraph and merged two paragraphs across a line holding a no-break space."""
    paragraphs: List[str] = []
    current: List[str] = []
    for line in content.split("\n"):
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append("\n".join(current).strip())
            current = []
    if current:
        paragraphs.append("\n".join(current).strip())
    return paragraphs


def read_texts(path: str, input_format: str = "doc", field: str = "text", on_empty: str = "error",
               id_field: Optional[str] = None) -> List[InputText]:
    """Read the texts of one file (or ``-`` for stdin) in the given format.

    ``on_empty`` (:data:`~coherence_metric.inputs.empty.ON_EMPTY`): an empty text (an empty or null JSONL field, an
    empty line among ``lines``, a text of invisible characters only, an empty ``doc`` file) is refused (``error``)
    or returned with ``empty`` set and ``text`` empty (``skip``, ``nan``: the caller leaves it out or reports NaN).
    ``id_field``: label JSONL rows by this field instead of ``file:line``.

    Raises:
        InputError: missing file, directory, undecodable bytes, an empty text (``EmptyTextError``), bad JSON or a
            missing field; the message names the file and, where it applies, the line.
    """
    if input_format not in INPUT_FORMATS:
        raise InputError(f"unknown input format {input_format!r}: choose one of {', '.join(INPUT_FORMATS)}")
    check_on_empty(on_empty)
    if id_field is not None and input_format != "jsonl":
        raise InputError(f"--id-field labels JSONL rows by a field: pass -i jsonl (not -i {input_format})")
    name = "<stdin>" if path == STDIN else path
    content = decode_input(_read_bytes(path), name).replace("\r\n", "\n")
    if not content.strip():
        if input_format == "doc" and on_empty != "error":
            return [_empty_or_refuse(name, name, " is empty", on_empty)]
        raise EmptyTextError(f"{name} is empty: there is no text to score")
    if input_format == "doc":
        return [_visible(InputText(name, content.strip()), name, on_empty)]
    if input_format == "jsonl":
        return jsonl_texts(content, name, field, on_empty, id_field)
    if input_format == "paragraphs":
        return [_visible(InputText(f"{name}:paragraph{number}", piece), f"{name} paragraph {number}", on_empty)
                for number, piece in enumerate(_paragraphs(content), start=1)]
    lines = content.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    texts: List[InputText] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            texts.append(_empty_or_refuse(f"{name}:{number}", f"{name} line {number}",
                                          " is empty: with --input-format lines every line is one text", on_empty))
            continue
        texts.append(_visible(InputText(f"{name}:{number}", line.strip()), f"{name} line {number}", on_empty))
    return texts


def _kind_shown(value: object) -> str:
    """A --group-by value with its JSON type: ``1 (a number)``, ``'1' (a string)``."""
    return f"{value!r} (a string)" if isinstance(value, str) else f"{value!r} (a number)"


def _printed_as(system: str) -> str:
    """What a system name looks like printed (:func:`~coherence_metric.inputs.texts.printed_form`)."""
    return printed_form(system)


def _check_group_name(system: str, name: str, number: int, group_field: str,
                      looks: Dict[str, Tuple[str, int]]) -> None:
    """Refuse a system name with nothing visible, or one that prints like an earlier, different name ("A" and
    "A\u200b" printed as two identical-looking systems, each with half the texts). ``looks`` records the names seen.

    Raises:
        InputError: naming both lines and both names, escaped (``ascii``) so the difference shows.
    """
    if not has_visible_characters(system):
        raise InputError(f"{name} line {number}: field {group_field!r} has no visible characters "
                         f"({ascii(system)}): name the system")
    printed = _printed_as(system)
    if printed in looks:
        other, line = looks[printed]
        raise InputError(f"{name} lines {line} and {number} name systems {ascii(other)} and {ascii(system)} in field "
                         f"{group_field!r}, which print the same: spell each system's name one way")
    looks[printed] = (system, number)


def read_grouped_texts(path: str, field: str, group_field: str, on_empty: str = "error",
                       id_field: Optional[str] = None) -> Dict[str, List[InputText]]:
    """Read a JSONL file whose lines say which system wrote them (``group_field``), as one list of texts per
    system, systems in order of first appearance and each system's texts in file order (its i-th text answers
    input i). One read, so ``-`` (stdin) works too.

    Raises:
        InputError: everything ``read_texts`` refuses, and a line without ``group_field``, with null or a value
            that is not a string or a number, with a name that has nothing visible or prints like another name,
            or with a number where another line has the same digits as a string.
    """
    name = "<stdin>" if path == STDIN else path
    content = decode_input(_read_bytes(path), name).replace("\r\n", "\n")
    if not content.strip():
        raise InputError(f"{name} is empty: there is no text to score")
    texts = jsonl_texts(content, name, field, on_empty, id_field, unique_ids=False)
    lines = content.split("\n")
    groups: Dict[str, List[InputText]] = {}
    first_seen: Dict[str, Tuple[object, int]] = {}  # system name -> (the JSON value, its first line)
    looks: Dict[str, Tuple[str, int]] = {}  # what a name prints as -> (the name, its first line)
    ids_seen: Dict[str, Dict[str, int]] = {}  # system -> its --id-field values -> their lines
    for text in texts:
        number = text.line or 0
        row = json.loads(lines[number - 1])
        if group_field not in row:
            raise InputError(f"{name} line {number} has no field {group_field!r} (--group-by names the field that "
                             "says which system wrote the text)")
        value = row[group_field]
        if value is None:
            raise InputError(f"{name} line {number}: field {group_field!r} is null: every line must name the system "
                             "that wrote it")
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InputError(f"{name} line {number}: field {group_field!r} must be a string or a number, "
                             f"got {type(value).__name__}")
        system = str(value)
        if system not in first_seen:
            _check_group_name(system, name, number, group_field, looks)
            first_seen[system] = (value, number)
        elif type(first_seen[system][0]) is not type(value):  # 1 and "1" are two values, one name
            raise InputError(f"{name} lines {first_seen[system][1]} and {number} name systems "
                             f"{_kind_shown(first_seen[system][0])} and {_kind_shown(value)} in field "
                             f"{group_field!r}: one name, two JSON values; write each system's name one way")
        if id_field is not None:
            if text.label in ids_seen.setdefault(system, {}):
                raise InputError(f"{name} lines {ids_seen[system][text.label]} and {number} give system "
                                 f"{ascii(system)} the same {id_field!r} {ascii(text.label)}: each input once per "
                                 "system")
            ids_seen[system][text.label] = number
        groups.setdefault(system, []).append(text)
    return groups
