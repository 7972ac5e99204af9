"""The twelve DiscoEval tasks (seven groups, per-domain rows) and the facts the loaders and runner share about them.

One frozen record per task says where its files live, how a row is laid out, which features and classifier the
paper (Chen, Chu & Gimpel 2019, section 3) prescribes, and whether upstream lacks its training file. Everything
else in the package looks tasks up here, so a new task or domain is one entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from coherence_metric.errors import InputError

SPLITS: Tuple[str, ...] = ("train", "valid", "test")
"""Split names as the upstream files name them (valid = the paper's development set)."""

GROUPS: Tuple[str, ...] = ("SP", "BSO", "DC", "SSP", "PDTB-E", "PDTB-I", "RST-DT")
"""The seven task groups in the column order of the paper's Table 2."""


@dataclass(frozen=True)
class Example:
    """One classification instance: segments of text units and an integer label.

    Each segment is a tuple of text units (sentences, chat turns or RST EDUs) whose encodings are averaged into one
    vector before the task's features are built; every task but RST-DT has exactly one unit per segment.
    """

    segments: Tuple[Tuple[str, ...], ...]
    label: int


@dataclass(frozen=True)
class DiscoEvalTask:
    """Static description of one DiscoEval task (a group in one domain).

    Attributes:
        name: unique id, ``GROUP/domain`` (e.g. ``SP/wiki``, ``PDTB-E``, ``RST-DT``).
        group: one of :data:`GROUPS`; per-group scores average the group's domains.
        domain: corpus domain (wiki, arxiv, rocstory, chat, abs, wsj).
        folder: path of the task's files relative to the discoeval data folder.
        file_format: row layout understood by the loaders (``sp``, ``bso``, ``dc``, ``ssp``, ``pdtb``, ``rst``).
        feature_kind: feature recipe from the paper (``sp``, ``bso``, ``concat``, ``single``, ``pair``).
        classifier: ``logreg`` everywhere except DC, which the paper trains with a 2000-unit sigmoid MLP.
        num_segments: segments per example (5 for SP, 2 for BSO, 6 for DC, 1 for SSP, 2 for PDTB and RST-DT).
        label_names: names of the labels in index order; None where they are read from the data (PDTB, RST-DT).
        train_missing_upstream: upstream never shipped this task's train file (over GitHub's size limit); the
            runner then trains on the valid split with an inner seeded split for tuning, and every report flags it.
        licence_note: set for LDC-derived tasks whose files and derived data must never be shipped.
    """

    name: str
    group: str
    domain: str
    folder: str
    file_format: str
    feature_kind: str
    classifier: str
    num_segments: int
    label_names: Optional[Tuple[str, ...]] = None
    train_missing_upstream: bool = False
    licence_note: Optional[str] = field(default=None, compare=False)


_SP_LABELS = ("position 1", "position 2", "position 3", "position 4", "position 5")
_BSO_LABELS = ("swapped order", "original order")
_DC_LABELS = ("incoherent (one unit swapped in)", "coherent")
_SSP_LABELS = ("not abstract", "abstract")
_LDC = "derived from LDC-licensed data (PDTB / RST-DT over WSJ): never ship the files or anything derived from them"


def _sp(domain: str, missing: bool = False) -> DiscoEvalTask:
    return DiscoEvalTask(f"SP/{domain}", "SP", domain, f"SP/{domain}", "sp", "sp", "logreg", 5, _SP_LABELS, missing)


def _bso(domain: str) -> DiscoEvalTask:
    return DiscoEvalTask(f"BSO/{domain}", "BSO", domain, f"BSO/{domain}", "bso", "bso", "logreg", 2, _BSO_LABELS)


def _dc(domain: str, missing: bool = False) -> DiscoEvalTask:
    return DiscoEvalTask(f"DC/{domain}", "DC", domain, f"DC/{domain}", "dc", "concat", "mlp", 6, _DC_LABELS, missing)


TASKS: Tuple[DiscoEvalTask, ...] = (
    _sp("wiki", missing=True),
    _sp("arxiv", missing=True),
    _sp("rocstory"),
    _bso("wiki"),
    _bso("arxiv"),
    _bso("rocstory"),
    _dc("wiki", missing=True),
    _dc("chat"),
    DiscoEvalTask("SSP", "SSP", "abs", "SSP/abs", "ssp", "single", "logreg", 1, _SSP_LABELS),
    DiscoEvalTask("PDTB-E", "PDTB-E", "wsj", "PDTB/Explicit", "pdtb", "pair", "logreg", 2, None, False, _LDC),
    DiscoEvalTask("PDTB-I", "PDTB-I", "wsj", "PDTB/Implicit", "pdtb", "pair", "logreg", 2, None, False, _LDC),
    DiscoEvalTask("RST-DT", "RST-DT", "wsj", "RST", "rst", "pair", "logreg", 2, None, False, _LDC),
)
"""All tasks in report order."""

_BY_NAME: Dict[str, DiscoEvalTask] = {task.name.lower(): task for task in TASKS}


def get_task(name: str) -> DiscoEvalTask:
    """Return the task called ``name`` (case-insensitive), or raise an InputError listing the valid names."""
    task = _BY_NAME.get(name.strip().lower())
    if task is None:
        raise InputError(f"unknown DiscoEval task {name!r}: choose from {', '.join(t.name for t in TASKS)} "
                         f"or a group ({', '.join(GROUPS)})")
    return task


def select_tasks(names: Optional[Iterable[str]] = None) -> List[DiscoEvalTask]:
    """Resolve task or group names to tasks in report order, so ``["SP", "PDTB-E"]`` means all SP domains + PDTB-E.

    Args:
        names: task names (``SP/wiki``), group names (``SP``, also ``RST`` for RST-DT) or None for every task.
            A single comma-separated string is accepted too, as a CLI passes it.

    Returns:
        The selected tasks, without duplicates, in the order of :data:`TASKS`.

    Raises:
        InputError: a name matches no task or group, or the selection is empty.
    """
    if names is None:
        return list(TASKS)
    if isinstance(names, str):
        names = [names]
    wanted: List[str] = [part.strip() for name in names for part in str(name).split(",") if part.strip()]
    if not wanted:
        raise InputError("empty DiscoEval task selection: name at least one task or group, or pass None for all")
    chosen: Set[str] = set()
    for name in wanted:
        group = _group_alias(name)
        if group is not None:
            chosen.update(task.name for task in TASKS if task.group == group)
        else:
            chosen.add(get_task(name).name)
    return [task for task in TASKS if task.name in chosen]


def _group_alias(name: str) -> Optional[str]:
    lowered = name.lower()
    if lowered == "rst":
        return "RST-DT"
    for group in GROUPS:
        if group.lower() == lowered:
            return group
    return None


def tasks_in_group(group: str, tasks: Sequence[DiscoEvalTask] = TASKS) -> List[DiscoEvalTask]:
    """Return the tasks of ``group`` among ``tasks``, in report order."""
    return [task for task in tasks if task.group == group]
