"""Split files on disk: one gzipped JSON Lines file per split plus ``manifest.json``, never pickle.

JSON Lines can be streamed, read by any language, diffed and inspected with ``zcat | head``; pickle
can run code on load. Files are gzipped with a zero timestamp so the same inputs and seed give
byte-identical files.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, Optional, TextIO

from coherence_metric.errors import InputError
from coherence_metric.toolkit import write_atomically

from .examples import TrainingItem

MANIFEST = "manifest.json"
SPLIT_SUFFIX = ".jsonl.gz"
FORMAT_VERSION = 1


def split_path(out_dir: Path, split: str) -> Path:
    """Return ``<out_dir>/<split>.jsonl.gz``."""
    return Path(out_dir) / f"{split}{SPLIT_SUFFIX}"


class SplitWriter:
    """Writes TrainingItems to a ``.jsonl.gz`` file, one JSON object per line; use as a context manager.

    Args:
        path: the file to create (its folder must exist); an existing file is replaced.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.count = 0
        self._raw = open(self.path, "wb")
        self._gzip = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0, compresslevel=6)
        self._text: TextIO = io.TextIOWrapper(self._gzip, encoding="utf-8", newline="\n")

    def write(self, item: TrainingItem) -> None:
        """Append one item as a line."""
        self._text.write(json.dumps(item.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n")
        self.count += 1

    def close(self) -> None:
        """Flush and close the file."""
        self._text.close()
        self._raw.close()

    def __enter__(self) -> "SplitWriter":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def write_split(items: Iterable[TrainingItem], path: Path) -> int:
    """Write items to a ``.jsonl.gz`` split file.

    Args:
        items: the items, written in the given order.
        path: the file to create.

    Returns:
        How many items were written.
    """
    with SplitWriter(path) as writer:
        for item in items:
            writer.write(item)
        return writer.count


def read_split(path: Path) -> Iterator[TrainingItem]:
    """Stream the items of a split file written by ``train prepare``.

    Args:
        path: a ``train.jsonl.gz``/``dev.jsonl.gz``/``test.jsonl.gz`` file (plain ``.jsonl`` also works).

    Returns:
        An iterator of TrainingItems in file order; ``item.negative_documents()`` gives the negatives
        as sentence lists.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"split file not found: {path} (run `coherence-metric train prepare -o DIR` first)")
    return _read_lines(path)


def _read_lines(path: Path) -> Iterator[TrainingItem]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield TrainingItem.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError) as error:
                raise InputError(f"{path}, line {number}: not a training item ({error})") from error


def write_manifest(out_dir: Path, manifest: Dict[str, Any]) -> Path:
    """Write ``manifest.json`` (sorted keys, indented) into ``out_dir`` and return its path."""
    path = Path(out_dir) / MANIFEST
    write_atomically(path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", what="the manifest")
    return path


def read_manifest(out_dir: Path) -> Optional[Dict[str, Any]]:
    """Return the parsed ``manifest.json`` of a prepared folder, or ``None`` when there is none."""
    path = Path(out_dir) / MANIFEST
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))
