"""Where ``score --ray`` reads and writes, checked on the driver before a single Ray task starts.

A location is a local path or a URI that Ray Data reads through a pyarrow filesystem (``file://``, ``s3://``,
``gs://``, ``hdfs://``...). Every row is checked here, one pass over the texts, so a row missing its field, a null
text, an empty one, a file in UTF-16 or a row that already has the output field is one line naming the file and line
(or row), not a Ray task traceback of hundreds of lines with a row number relative to its batch.

Object storage that does not answer (``gs://`` offline waited 400 s for credentials, printing nothing) is given
``COHERENCE_METRIC_STORAGE_TIMEOUT`` seconds (default 60) per metadata call, then refused in one line.

JSONL is read and written here too, line by line (:class:`JsonLinesDatasource`, :class:`JsonLinesDatasink`): each
output line is its input line's JSON object with the score added, so every other field keeps its JSON type. Ray's
JSON reader went through pandas, which wrote ``1`` back as ``1.0`` in a field with nulls and ``"1"`` in one mixing
numbers and strings.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from ..errors import InputError
from ..safe_json import parse_json
from .files import MAX_INPUT_BYTES, decode_input, json_object, jsonl_texts
from .texts import INVISIBLE, has_visible_characters, lone_surrogate

JSONL_SUFFIXES = (".json", ".jsonl")
PARQUET_SUFFIXES = (".parquet",)
OUTPUT_COLUMN = "coherence"
"""The field ``score --ray`` adds to every row; a dataset that already has one is refused, never overwritten."""
STORAGE_TIMEOUT_ENV = "COHERENCE_METRIC_STORAGE_TIMEOUT"
DEFAULT_STORAGE_TIMEOUT = 60.0
LINES_PER_BLOCK = 4096
"""JSONL lines per block read: a large file streams through the actors instead of arriving as one block."""


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


def storage_timeout() -> float:
    """Seconds one metadata call to object storage may take (``COHERENCE_METRIC_STORAGE_TIMEOUT``, default 60)."""
    value = os.environ.get(STORAGE_TIMEOUT_ENV, "").strip()
    if not value:
        return DEFAULT_STORAGE_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise InputError(f"{STORAGE_TIMEOUT_ENV}={value!r} must be a positive number of seconds")
    return seconds


def _answer(location: Location, call: Callable[[], Any]) -> Any:
    """``call()``, given at most ``storage_timeout()`` seconds when the location is remote.

    pyarrow's GCS client retried a credentials lookup for 400 s offline before its first answer; S3 and HDFS clients
    can wait on an unreachable endpoint too. The call runs in a daemon thread, left behind on a timeout (the process
    exits without waiting for it).

    Raises:
        InputError: no answer in time, or the storage's own error (first line).
    """
    if not location.is_uri or location.given.lower().startswith("file://"):
        return call()
    seconds = storage_timeout()
    outcome: List[Any] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as error:  # handed to the caller's thread
            outcome.append((False, error))

    worker = threading.Thread(target=run, name="coherence-metric-storage", daemon=True)
    worker.start()
    worker.join(seconds)
    if not outcome:
        raise InputError(f"{location.given}: no answer from the storage in {seconds:g} s (offline, an unreachable "
                         f"endpoint, or no credentials?); set {STORAGE_TIMEOUT_ENV} to wait longer")
    done, value = outcome[0]
    if done:
        return value
    raise value


def _info(location: Location) -> Any:
    try:
        return _answer(location, lambda: location.filesystem.get_file_info(location.path))
    except OSError as error:
        raise InputError(f"{location.given}: cannot read ({str(error).splitlines()[0]})") from None


def _listing(location: Location, recursive: bool) -> List[Any]:
    import pyarrow.fs

    selector = pyarrow.fs.FileSelector(location.path, recursive=recursive)
    try:
        return list(_answer(location, lambda: location.filesystem.get_file_info(selector)))
    except OSError as error:
        raise InputError(f"{location.given}: cannot list ({str(error).splitlines()[0]})") from None


def input_files(location: Location, suffixes: Tuple[str, ...]) -> List[str]:
    """The files a dataset location holds: itself, or the files under a folder ending in ``suffixes``."""
    import pyarrow.fs

    info = _info(location)
    if info.type == pyarrow.fs.FileType.NotFound:
        raise InputError(f"{location.given}: no such file or folder")
    if info.type == pyarrow.fs.FileType.File:
        return [location.path]
    entries = _listing(location, recursive=True)
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


def check_jsonl(location: Location, field: str, output_column: str = OUTPUT_COLUMN) -> int:
    """Check every line of every JSONL file; returns the number of rows.

    Raises:
        InputError: naming the file and line of the first bad row or of a row that already has ``output_column``, a
            file in another encoding than UTF-8 (UTF-16 and UTF-32 named, with the ``iconv`` command that converts
            them), or rows mixing strings and sentence lists in ``field`` (a column holds one type).
    """
    rows = 0
    first_kind = None
    for path in input_files(location, JSONL_SUFFIXES):
        name = _name(location, path)
        content = _decoded(_read_file(location, path, name), name)
        for text in jsonl_texts(content, name, field):
            kind = "a string" if isinstance(text.text, str) else "a list of sentences"
            first_kind = first_kind or (kind, text.label)
            if kind != first_kind[0]:
                raise InputError(f"{text.label}: field {field!r} is {kind} but {first_kind[1]} holds {first_kind[0]}"
                                 ": a dataset column holds one type")
            rows += 1
        _refuse_output_field(content, name, output_column)
    if not rows:
        raise InputError(f"{location.given} has no rows to score")
    return rows


def _read_file(location: Location, path: str, name: str) -> bytes:
    try:
        with location.filesystem.open_input_stream(path) as stream:
            data = stream.read(MAX_INPUT_BYTES + 1)
    except OSError as error:
        raise InputError(f"{name}: cannot read ({str(error).splitlines()[0]})") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{name} is larger than {MAX_INPUT_BYTES} bytes: split it into several files")
    return data


def _decoded(data: bytes, name: str) -> str:
    """A JSONL file's text, lines ending at ``\n``: the local reader's decoding (a UTF-8 byte order mark dropped;
    UTF-16 and UTF-32 named with the ``iconv`` command that converts them; other bytes with ``file -i``)."""
    return decode_input(data, name).replace("\r\n", "\n")


def _refuse_output_field(content: str, name: str, output_column: str) -> None:
    """Refuse a row that already has ``output_column``: its value would be overwritten (``score_dataframe`` refuses
    the same)."""
    quoted = json.dumps(output_column)
    for number, line in enumerate(content.split("\n"), start=1):
        if quoted in line or "\\u" in line:  # only these lines can hold the key; the rest are not parsed twice
            record = parse_json(line, f"{name} line {number}") if line.strip() else None
            if isinstance(record, dict) and output_column in record:
                raise InputError(_has_output_field(f"{name} line {number}", output_column))


def _has_output_field(where: str, output_column: str) -> str:
    return (f"{where} already has a field {output_column!r}: --ray adds the score under that name and would overwrite "
            "it; rename or drop that field first")


def check_parquet(location: Location, field: str, output_column: str = OUTPUT_COLUMN) -> int:
    """Check the ``field`` column of every Parquet file; returns the number of rows.

    Raises:
        InputError: a missing column, a column named ``output_column`` already, or the file and row (1-based) of the
            first null, non-text, empty or invisible value.
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
        if output_column in schema.names:
            raise InputError(_has_output_field(name, output_column))
        column = pyarrow.parquet.read_table(path, columns=[field], filesystem=location.filesystem).column(field)
        for number, value in enumerate(column.to_pylist(), start=1):
            _check_value(value, f"{name} row {number}", field)
        rows += len(column)
    if not rows:
        raise InputError(f"{location.given} has no rows to score")
    return rows


def _check_value(value: Any, where: str, field: str) -> None:
    """Refuse a text that cannot be scored, naming ``where`` it is."""
    if value is None:
        raise InputError(f"{where}: field {field!r} is null")
    is_sentences = isinstance(value, list) and all(isinstance(item, str) for item in value)
    if not isinstance(value, str) and not is_sentences:
        raise InputError(f"{where}: field {field!r} must be a string or a list of strings, got "
                         f"{type(value).__name__}")
    joined = value if isinstance(value, str) else " ".join(value)
    surrogate = lone_surrogate(joined)
    if surrogate:
        raise InputError(f"{where}: field {field!r} holds {surrogate}, which is not valid Unicode")
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
    if info.type != pyarrow.fs.FileType.Directory or _listing(location, recursive=False):
        raise InputError(f"{given} exists and is not an empty folder: Ray would add its files to what is there")
    return location


def file_states(location: Location, paths: List[str]) -> Dict[str, Tuple[int, Any]]:
    """Each file's size and modification time, to tell afterwards whether it changed after it was checked."""
    infos = _answer(location, lambda: location.filesystem.get_file_info(paths))
    return {info.path: (info.size, info.mtime_ns) for info in infos}


def changed_file(location: Location, before: Dict[str, Tuple[int, Any]]) -> Optional[str]:
    """The name (as the user spelled the dataset) of the first file that changed or went away since ``before``."""
    try:
        now = file_states(location, sorted(before))
    except (InputError, OSError):
        return location.given
    for path, state in sorted(before.items()):
        if now.get(path) != state:
            return _name(location, path)
    return None


def ray_filesystem(location: Location) -> Any:
    """The filesystem Ray reads and writes ``location`` through: the location's own, for a local path; for a URI a
    fresh one from the user's URI (its query string included), without the time limit of the checks here."""
    import pyarrow.fs

    if not location.is_uri:
        return pyarrow.fs.LocalFileSystem()
    return pyarrow.fs.FileSystem.from_uri(location.given)[0]


def _datasource_base() -> Any:
    from ray.data.datasource import FileBasedDatasource

    return FileBasedDatasource


def _datasink_base() -> Any:
    from ray.data.datasource import BlockBasedFileDatasink

    return BlockBasedFileDatasink


def json_lines_datasource(paths: List[str], names: Dict[str, str], filesystem: Any) -> Any:
    """A Ray datasource reading the JSONL files ``paths`` (checked already) as rows of ``line`` (the line's text),
    ``number`` (its 1-based line number) and ``file`` (the file's name in messages, from ``names``).

    Lines end at ``\n`` alone, as the local reader has it (Ray's text reader also broke lines at U+2028, which a JSON
    string may hold unescaped); blank lines are left out; a file is decoded as the driver's check decodes it."""

    class JsonLinesDatasource(_datasource_base()):  # type: ignore[misc]
        def _read_stream(self, f: Any, path: str) -> Iterator[Any]:
            import pyarrow

            name = names.get(path, path)
            content = _decoded(f.readall(), name)
            lines: List[str] = []
            numbers: List[int] = []
            for number, line in enumerate(content.split("\n"), start=1):
                if line.strip():
                    lines.append(line)
                    numbers.append(number)
            for start in range(0, len(lines), LINES_PER_BLOCK):
                chunk = slice(start, start + LINES_PER_BLOCK)
                yield pyarrow.table({"line": pyarrow.array(lines[chunk], pyarrow.string()),
                                     "number": pyarrow.array(numbers[chunk], pyarrow.int64()),
                                     "file": pyarrow.array([name] * len(numbers[chunk]), pyarrow.string())})

    return JsonLinesDatasource(paths, filesystem=filesystem)


def json_lines_datasink(path: str, filesystem: Any) -> Any:
    """A Ray datasink writing each row's ``line`` column as one line of ``.json`` files under ``path``."""

    class JsonLinesDatasink(_datasink_base()):  # type: ignore[misc]
        def write_block_to_file(self, block: Any, file: Any) -> None:
            lines = block.to_arrow().column("line").to_pylist()
            if lines:
                file.write(("\n".join(lines) + "\n").encode("utf-8"))

    return JsonLinesDatasink(path, filesystem=filesystem, file_format="json")


def scored_line(line: str, number: int, name: str, field: str, output_column: str) -> Tuple[Any, Dict[str, Any]]:
    """The text of one JSONL line and its parsed object, checked again on the worker: the file may have changed
    since the driver checked it (the message says so)."""
    where = f"{name} line {number}"
    record = json_object(line, where)
    if field not in record:
        raise InputError(f"{where} has no field {field!r} (use --field to pick another)")
    if output_column in record:
        raise InputError(_has_output_field(where, output_column))
    _check_value(record[field], where, field)
    return record[field], record


def json_line(record: Dict[str, Any], output_column: str, score: float) -> str:
    """``record`` with the score added, as one line of JSON: every other field as it was read (``1`` stays ``1``,
    ``1.0`` stays ``1.0``, ``"1"`` stays a string), non-ASCII characters as they were."""
    record = {**record, output_column: float(score)}
    try:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escape (\ud800) in another field: kept as an escape
        line = json.dumps(record, separators=(",", ":"))
    return line


__all__ = ["OUTPUT_COLUMN", "Location", "changed_file", "check_jsonl", "check_output", "check_parquet",
           "file_states", "input_files", "is_folder", "json_line", "json_lines_datasink", "json_lines_datasource",
           "locate", "ray_filesystem", "scored_line", "storage_timeout"]
