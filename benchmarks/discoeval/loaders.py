"""Read the DiscoEval files in place (never copied) into :class:`TaskData`: examples per split plus the label set.

Row layouts are those of the upstream evaluator (github.com/ZeweiChu/DiscoEval, ``discoeval/so.py``, ``pdtb.py``,
``rst.py``), described in ``shared/data/discoeval/README.md``. BSO files hold only correctly ordered pairs; like the
upstream evaluator, each pair yields two examples, the original order (label 1) and the swapped one (label 0).
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from coherence_metric.errors import InputError
from coherence_metric.research.data_dir import how_to_get_data, shared_data_dir
from coherence_metric.research.pickles import load_pickle

from .tasks import SPLITS, DiscoEvalTask, Example

logger = logging.getLogger("coherence_metric.benchmarks")

RST_FILES: Dict[str, str] = {"train": "RST_TRAIN.pkl", "valid": "RST_DEV.pkl", "test": "RST_TEST.pkl"}
"""RST-DT pickles per split (upstream ``data/RST/py3``)."""

_FIELDS = {"sp": 6, "bso": 2, "dc": 7, "ssp": 2, "pdtb": 3}


@dataclass(frozen=True)
class TaskData:
    """The examples of one task, per split, with the names of its labels.

    Attributes:
        task: the task description.
        splits: examples per split name; ``train`` is absent when its file is missing upstream.
        label_names: label names in index order (label ``i`` is ``label_names[i]``).
        source_rows: rows read per split (file lines or pickle tuples) after ``limit``; BSO has 2 examples a row.
    """

    task: DiscoEvalTask
    splits: Dict[str, List[Example]]
    label_names: Tuple[str, ...]
    source_rows: Dict[str, int]

    @property
    def train_from_valid(self) -> bool:
        """True when there is no train split, so the classifier must be trained on valid (test stays untouched)."""
        return "train" not in self.splits


def discoeval_data_dir(data_dir: Union[str, Path, None] = None) -> Path:
    """Return the DiscoEval folder: ``data_dir`` if given, else ``<shared data>/discoeval``.

    Args:
        data_dir: a folder laid out like upstream ``data/`` (SP, BSO, DC, SSP, PDTB, RST), or None.

    Returns:
        The folder path.

    Raises:
        InputError: the folder does not exist (the message names it and the environment variable to set).
    """
    folder = Path(data_dir).expanduser() if data_dir is not None else shared_data_dir() / "discoeval"
    if not folder.is_dir():
        raise InputError(f"DiscoEval data folder not found: {folder} (pass data_dir, or) {how_to_get_data()}")
    return folder


def load_task(task: DiscoEvalTask, data_dir: Union[str, Path, None] = None, limit: Optional[int] = None,
              seed: int = 1111) -> TaskData:
    """Load every available split of ``task``.

    Args:
        task: the task to read.
        data_dir: the DiscoEval folder (default: the shared one, see :func:`discoeval_data_dir`).
        limit: keep at most this many rows per split, a seeded random subset in file order (for smoke runs).
        seed: seed of the ``limit`` subset; each (task, split) draws from its own stream so subsets are stable.

    Returns:
        The task's examples per split and its label names.

    Raises:
        InputError: a file is missing (other than a train file missing upstream) or a row is malformed.
    """
    if limit is not None and limit < 1:
        raise InputError(f"limit must be a positive number of rows per split, got {limit}")
    folder = discoeval_data_dir(data_dir) / task.folder
    if task.file_format == "rst":
        rows_per_split, label_names = _read_rst(folder, task)
    else:
        rows_per_split, label_names = _read_text_task(folder, task)
    splits: Dict[str, List[Example]] = {}
    source_rows: Dict[str, int] = {}
    for split, rows in rows_per_split.items():
        rows = _subset(rows, limit, seed, f"{task.name}/{split}")
        source_rows[split] = len(rows)
        splits[split] = [example for row in rows for example in _row_examples(task, row)]
    logger.info("loaded %s: %s", task.name, ", ".join(f"{s}={len(e)}" for s, e in splits.items()))
    return TaskData(task=task, splits=splits, label_names=label_names, source_rows=source_rows)


_Row = Tuple[int, Tuple[Tuple[str, ...], ...]]


def _missing(path: Path, task: DiscoEvalTask) -> InputError:
    """The error for a missing task file: LDC-derived tasks' files are placed by hand (``fetch`` prints how)."""
    hand = " (LDC-derived: placed by hand, never downloaded; `fetch` prints how)" if task.licence_note else ""
    return InputError(f"DiscoEval file missing: {path} (task {task.name}){hand}; {how_to_get_data()}")


def _read_text_task(folder: Path, task: DiscoEvalTask) -> Tuple[Dict[str, List[_Row]], Tuple[str, ...]]:
    if task.label_names is not None:
        label_names = task.label_names
    else:
        if not (folder / "labelset.txt").is_file():
            raise _missing(folder / "labelset.txt", task)
        label_names = _read_labelset(folder / "labelset.txt")
    parse = _TEXT_PARSERS[task.file_format]
    rows_per_split: Dict[str, List[_Row]] = {}
    for split in SPLITS:
        path = folder / f"{split}.txt"
        if not path.is_file():
            if split == "train" and task.train_missing_upstream:
                logger.info("%s: no train file upstream (%s); the classifier is trained on valid", task.name, path)
                continue
            raise _missing(path, task)
        rows_per_split[split] = _read_lines(path, task, parse, len(label_names))
    return rows_per_split, label_names


def _read_labelset(path: Path) -> Tuple[str, ...]:
    try:
        names = tuple(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    except OSError as error:
        raise InputError(f"cannot read PDTB label set {path}: {error.strerror or error}") from error
    if not names:
        raise InputError(f"empty PDTB label set {path}")
    return names


def _read_lines(path: Path, task: DiscoEvalTask, parse: Callable[[List[str]], _Row], num_labels: int) -> List[_Row]:
    expected = _FIELDS[task.file_format]
    rows: List[_Row] = []
    with path.open("r", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) != expected:
                raise InputError(f"{path}:{number}: expected {expected} tab-separated fields for {task.name}, "
                                 f"found {len(fields)}")
            try:
                label, segments = parse(fields)
            except ValueError as error:
                raise InputError(f"{path}:{number}: unreadable label {fields[0]!r} for {task.name}") from error
            if not 0 <= label < num_labels:
                raise InputError(f"{path}:{number}: label {label} outside 0..{num_labels - 1} for {task.name}")
            rows.append((label, segments))
    return rows


def _labelled(fields: List[str]) -> _Row:
    return int(fields[0]), tuple((unit.strip(),) for unit in fields[1:])


def _unlabelled_pair(fields: List[str]) -> _Row:
    # BSO rows carry no label: the file order is the correct one, and _row_examples adds the swapped copy.
    return 1, tuple((unit.strip(),) for unit in fields)


_TEXT_PARSERS: Dict[str, Callable[[List[str]], _Row]] = {
    "sp": _labelled, "dc": _labelled, "ssp": _labelled, "pdtb": _labelled, "bso": _unlabelled_pair,
}


def _read_rst(folder: Path, task: DiscoEvalTask) -> Tuple[Dict[str, List[_Row]], Tuple[str, ...]]:
    raw: Dict[str, list] = {}
    for split in SPLITS:
        path = folder / RST_FILES[split]
        if not path.is_file():
            raise _missing(path, task)
        data = load_pickle(path)
        if not isinstance(data, list):
            raise InputError(f"{path}: expected a list of (label, left EDUs, right EDUs) tuples")
        raw[split] = data
    # The label set is the sorted union over the three full files (as upstream, but ordered so indices are stable
    # and do not depend on ``limit``): nuclearity + relation, e.g. 'NS-Elaboration'.
    label_names = tuple(sorted({str(item[0]) for data in raw.values() for item in data if _is_rst_item(item)}))
    index = {name: i for i, name in enumerate(label_names)}
    rows_per_split: Dict[str, List[_Row]] = {}
    for split, data in raw.items():
        rows: List[_Row] = []
        for number, item in enumerate(data):
            if not _is_rst_item(item):
                raise InputError(f"{folder / RST_FILES[split]}: item {number} is not (label, left EDUs, right EDUs)")
            left = tuple(str(unit).strip() for unit in item[1])
            right = tuple(str(unit).strip() for unit in item[2])
            rows.append((index[str(item[0])], (left, right)))
        rows_per_split[split] = rows
    return rows_per_split, label_names


def _is_rst_item(item: object) -> bool:
    return (isinstance(item, (tuple, list)) and len(item) == 3 and isinstance(item[0], str)
            and isinstance(item[1], list) and isinstance(item[2], list) and len(item[1]) > 0 and len(item[2]) > 0)


def _subset(rows: List[_Row], limit: Optional[int], seed: int, key: str) -> List[_Row]:
    if limit is None or len(rows) <= limit:
        return rows
    rng = np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])
    keep = np.sort(rng.choice(len(rows), size=limit, replace=False))
    return [rows[i] for i in keep]


def _row_examples(task: DiscoEvalTask, row: _Row) -> Sequence[Example]:
    label, segments = row
    if task.file_format == "bso":
        first, second = segments
        return (Example((first, second), 1), Example((second, first), 0))
    return (Example(segments, label),)


def overlap_groups(examples: Sequence[Example], min_shared: float = 0.5) -> np.ndarray:
    """Group consecutive examples that share most of their text units (same chunk, different corruption).

    DC files list a coherent chunk next to its copy with one sentence swapped in (and DC/chat slides windows
    over a conversation); such rows must not straddle an inner train/tune split.

    Args:
        examples: examples in file order.
        min_shared: an example joins the previous one's group when at least this share of its units recur there.

    Returns:
        Integer group id per example.
    """
    groups = np.zeros(len(examples), dtype=np.int64)
    previous: set = set()
    for i, example in enumerate(examples):
        units = {unit for segment in example.segments for unit in segment}
        if i > 0 and units and len(units & previous) >= min_shared * len(units):
            groups[i] = groups[i - 1]
        elif i > 0:
            groups[i] = groups[i - 1] + 1
        previous = units
    return groups
