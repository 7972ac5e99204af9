"""Where ``score --ray`` reads and writes, checked on the driver before a single Ray task starts.

A location is a local path or a URI that Ray Data reads through a pyarrow filesystem (``file://``, ``s3://``,
``gs://``, ``hdfs://``...). Every row is checked here, one pass over the texts, so a row missing its field, a null
text, an empty one or a UTF-8 byte order mark (which pyarrow's JSON reader refuses) is one line naming the file and
line (or row), not a Ray task traceback of hundreds of lines with a row number relative to its batch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, List, Tuple

from .errors import InputError
from .texts import INVISIBLE, has_visible_characters

JSONL_SUFFIXES = (".json", ".jsonl")
PARQUET_SUFFIXES = (".parquet",)
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Location:
    """A path on a pyarrow filesystem, with the spelling the user gave (for messages and for Ray)."""

    given: str
    filesystem: Any
    path: str

    @property
    def is_uri(self) -> bool:
        """Whether the user gave a URI (``scheme://...``) rather than a local path."""
        return "://" in self.given


def locate(given: str) -> Location:
    """The filesystem and path ``given`` names: a URI through ``pyarrow.fs.FileSystem.from_uri``, else a local path.

    Raises:
        InputError: a URI pyarrow cannot open (unknown scheme, missing support for it, bad credentials).
    """
    import pyarrow.fs

    if "://" not in given:
        return Location(given, pyarrow.fs.LocalFileSystem(), os.path.abspath(given))
    try:
        filesystem, path = pyarrow.fs.FileSystem.from_uri(given)
    except (ValueError, OSError, TypeError) as error:  # pyarrow.ArrowInvalid is a ValueError
        raise InputError(f"{given}: cannot open this location ({str(error).splitlines()[0]})") from None
    return Location(given, filesystem, path)


def _info(location: Location) -> Any:
    try:
        return location.filesystem.get_file_info(location.path)
    except OSError as error:
        raise InputError(f"{location.given}: cannot read ({str(error).splitlines()[0]})") from None


def input_files(location: Location, suffixes: Tuple[str, ...]) -> List[str]:
    """The files a dataset location holds: itself, or the files under a folder ending in ``suffixes``."""
    import pyarrow.fs

    info = _info(location)
    if info.type == pyarrow.fs.FileType.NotFound:
        raise InputError(f"{location.given}: no such file or folder")
    if info.type == pyarrow.fs.FileType.File:
        return [location.path]
    entries = location.filesystem.get_file_info(pyarrow.fs.FileSelector(location.path, recursive=True))
    files = sorted(entry.path for entry in entries
                   if entry.type == pyarrow.fs.FileType.File and entry.path.lower().endswith(suffixes)
                   and not os.path.basename(entry.path).startswith((".", "_")))
    if not files:
        raise InputError(f"{location.given} holds no {' or '.join(suffixes)} files")
    return files


def is_folder(location: Location) -> bool:
    """Whether the location is an existing folder (or an object-store prefix with objects under it)."""
    import pyarrow.fs

    return bool(_info(location).type == pyarrow.fs.FileType.Directory)


def _name(location: Location, path: str) -> str:
    """How a file is named in messages: as the user spelled the dataset, plus the file's place inside it.

    In a URI the file's place goes into the path, before any query string (``s3://b/in/bad.jsonl?scheme=http``, not
    ``s3://b/in/?scheme=http/bad.jsonl``), so the name printed is a URI the user can paste back to read that file.
    """
    if path == location.path:
        return location.given
    base, query = location.given, ""
    if location.is_uri and "?" in base:
        base, query = base.split("?", 1)
        query = "?" + query
    return base.rstrip("/") + "/" + os.path.relpath(path, location.path) + query


def check_jsonl(location: Location, field: str) -> int:
    """Check every line of every JSONL file; returns the number of rows.

    Raises:
        InputError: naming the file and line of the first bad row, or a byte order mark, or rows mixing strings and
            sentence lists in ``field`` (a column holds one type).
    """
    from .inputs import MAX_INPUT_BYTES, jsonl_texts

    rows = 0
    first_kind = None
    for path in input_files(location, JSONL_SUFFIXES):
        name = _name(location, path)
        with location.filesystem.open_input_stream(path) as stream:
            data = stream.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise InputError(f"{name} is larger than {MAX_INPUT_BYTES} bytes: split it into several files")
        if data.startswith(_BOM):
            raise InputError(f"{name} starts with a UTF-8 byte order mark, which Ray's JSON reader refuses: remove "
                             "it (sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)")
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"{name} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})") \
                from None
        for text in jsonl_texts(content.replace("\r\n", "\n"), name, field):
            kind = "a string" if isinstance(text.text, str) else "a list of sentences"
            first_kind = first_kind or (kind, text.label)
            if kind != first_kind[0]:
                raise InputError(f"{text.label}: field {field!r} is {kind} but {first_kind[1]} holds {first_kind[0]}"
                                 ": a dataset column holds one type")
            rows += 1
    if not rows:
        raise InputError(f"{location.given} has no rows to score")
    return rows


def check_parquet(location: Location, field: str) -> int:
    """Check the ``field`` column of every Parquet file; returns the number of rows.

    Raises:
        InputError: a missing column, or the file and row (1-based) of the first null, non-text, empty or
            invisible value.
    """
    import pyarrow.parquet

    rows = 0
    for path in input_files(location, PARQUET_SUFFIXES):
        name = _name(location, path)
        try:
            schema = pyarrow.parquet.read_schema(path, filesystem=location.filesystem)
        except (OSError, ValueError) as error:
            raise InputError(f"{name} is not a readable Parquet file ({str(error).splitlines()[0]})") from None
        if field not in schema.names:
            raise InputError(f"{name} has no field {field!r} (its fields: {', '.join(schema.names)}; use --field)")
        column = pyarrow.parquet.read_table(path, columns=[field], filesystem=location.filesystem).column(field)
        for number, value in enumerate(column.to_pylist(), start=1):
            _check_value(value, f"{name} row {number}", field)
        rows += len(column)
    if not rows:
        raise InputError(f"{location.given} has no rows to score")
    return rows


def _check_value(value: Any, where: str, field: str) -> None:
    if value is None:
        raise InputError(f"{where}: field {field!r} is null")
    is_sentences = isinstance(value, list) and all(isinstance(item, str) for item in value)
    if not isinstance(value, str) and not is_sentences:
        raise InputError(f"{where}: field {field!r} must be a string or a list of strings, got "
                         f"{type(value).__name__}")
    joined = value if isinstance(value, str) else " ".join(value)
    if not joined.strip():
        raise InputError(f"{where}: field {field!r} is empty")
    if not has_visible_characters(joined):
        raise InputError(f"{where}: field {field!r} has {INVISIBLE}")


def check_output(given: str) -> Location:
    """The output location, refused when it exists and is not an empty folder (Ray would add its files to what is
    there)."""
    import pyarrow.fs

    location = locate(given)
    info = _info(location)
    if info.type == pyarrow.fs.FileType.NotFound:
        return location
    if info.type != pyarrow.fs.FileType.Directory or location.filesystem.get_file_info(
            pyarrow.fs.FileSelector(location.path, recursive=False)):
        raise InputError(f"{given} exists and is not an empty folder: Ray would add its files to what is there")
    return location


__all__ = ["Location", "check_jsonl", "check_output", "check_parquet", "input_files", "is_folder", "locate"]
