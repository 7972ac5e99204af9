"""A teacher's scores of pool texts, kept as small JSON parts in one folder, keyed by text.

Why parts: scoring 50,000 texts with the accurate tier takes hours on a 2-core CPU, more than one machine lasts. Each
part is written all at once (a temporary file renamed into place) as soon as its texts are scored, so a killed run
loses at most one part, and the folder travels in git to the next machine, which scores only what is missing.

A part records who scored it: the teacher's checkpoint name and fingerprint, the dtype, the library versions (the
signature), the CPU and the wall and CPU seconds it took. Parts of another teacher or dtype in the folder are never
mixed in: they are skipped with a warning naming them. A part that does not read (cut short, edited into another
shape, a score that is not a finite number) is skipped the same way, and its texts are scored again.
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple

from coherence_metric.errors import InputError
from coherence_metric.toolkit import parse_json, write_atomically

from .pool import KEY_HEX

PART_GLOB = "part-*.json"
FORMAT = 1


@dataclass(frozen=True)
class Scorer:
    """Who scored a part; parts are mixed only when these agree."""

    model: str
    fingerprint: str
    dtype: str

    def matches(self, record: Mapping[str, Any]) -> bool:
        return (record.get("model"), record.get("fingerprint"), record.get("dtype")) == (
            self.model, self.fingerprint, self.dtype)


@dataclass
class TeacherScores:
    """Every readable part of one scorer in a folder: the scores by key, and what the parts cost."""

    scores: Dict[str, float] = field(default_factory=dict)
    parts: int = 0
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    machines: Dict[str, int] = field(default_factory=dict)
    skipped: List[str] = field(default_factory=list)

    def cost_line(self) -> str:
        """Texts scored, and wall and CPU seconds per 1,000 texts, per machine kind."""
        count = len(self.scores)
        if not count:
            return "no texts scored yet"
        per_thousand = 1000 / count
        machines = "; ".join(f"{name}: {texts:,} texts" for name, texts in sorted(self.machines.items()))
        return (f"{count:,} texts in {self.parts} parts; {self.wall_seconds * per_thousand:,.0f} s wall and "
                f"{self.cpu_seconds * per_thousand:,.0f} s CPU per 1,000 texts ({machines})")


def _valid_scores(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(key, str) and len(key) == KEY_HEX and all(c in "0123456789abcdef" for c in key)
        and isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score)
        for key, score in value.items())


def read_part(path: Path) -> Dict[str, Any]:
    """One part's record, checked for shape; InputError (one line naming it) when it is not a part."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path} does not read: {error.strerror or error}") from None
    record = parse_json(raw, str(path))
    if not isinstance(record, dict) or record.get("format") != FORMAT or not _valid_scores(record.get("scores")):
        raise InputError(f"{path} is not a teacher-score part (format {FORMAT}, scores keyed by "
                         f"{KEY_HEX}-hex-digit text keys, each a finite number)")
    if path.name != part_name(record["scores"]):
        raise InputError(f"{path}: its name is not the digest of its keys: edited after it was written")
    return record


def load_scores(folder: Path, scorer: Scorer) -> TeacherScores:
    """The scores of every part of ``scorer`` in ``folder`` (none when it does not exist)."""
    loaded = TeacherScores()
    for path in sorted(folder.glob(PART_GLOB)) if folder.is_dir() else []:
        try:
            record = read_part(path)
        except InputError as error:
            loaded.skipped.append(str(error))
            warnings.warn(f"{error}: skipped, its texts are scored again", UserWarning, stacklevel=2)
            continue
        if not scorer.matches(record):
            loaded.skipped.append(f"{path}: scored by {record.get('model')} in {record.get('dtype')}")
            warnings.warn(f"{path} was scored by {record.get('model')}@{record.get('fingerprint')} in "
                          f"{record.get('dtype')}, not {scorer.model}@{scorer.fingerprint} in {scorer.dtype}: "
                          "skipped", UserWarning, stacklevel=2)
            continue
        loaded.scores.update(record["scores"])
        loaded.parts += 1
        loaded.wall_seconds += float(record.get("wall_seconds", 0.0))
        loaded.cpu_seconds += float(record.get("cpu_seconds", 0.0))
        machine = str(record.get("cpu", "unknown CPU"))
        loaded.machines[machine] = loaded.machines.get(machine, 0) + len(record["scores"])
    return loaded


def part_name(scores: Mapping[str, float]) -> str:
    """A part's file name: the digest of its sorted keys, so the same texts always land in the same file."""
    digest = hashlib.sha256("\n".join(sorted(scores)).encode("ascii")).hexdigest()[:16]
    return f"part-{digest}.json"


def write_part(folder: Path, scorer: Scorer, scores: Mapping[str, float], meta: Mapping[str, Any]) -> Path:
    """Write one part (all or nothing) and return its path; ``meta`` adds the signature, CPU and seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    record: Dict[str, Any] = {"format": FORMAT, "model": scorer.model, "fingerprint": scorer.fingerprint,
                              "dtype": scorer.dtype, **meta,
                              "scores": {key: round(float(value), 6) for key, value in sorted(scores.items())}}
    path = folder / part_name(scores)
    write_atomically(path, json.dumps(record, indent=0, sort_keys=False) + "\n", "the teacher-score part")
    return path


def chunks(items: List[Tuple[str, str]], size: int) -> List[List[Tuple[str, str]]]:
    """``items`` in runs of ``size`` (the last shorter)."""
    return [items[start:start + size] for start in range(0, len(items), size)]


def load_folder(folder: Path) -> Tuple[Scorer, TeacherScores]:
    """Every part of ``folder``'s teacher: the scorer the first readable part (in name order) names, and the parts
    that agree with it (others are skipped with a warning).

    Raises:
        InputError: no readable part in ``folder``.
    """
    for path in sorted(folder.glob(PART_GLOB)) if folder.is_dir() else []:
        try:
            record = read_part(path)
        except InputError:
            continue
        scorer = Scorer(str(record.get("model")), str(record.get("fingerprint")), str(record.get("dtype")))
        return scorer, load_scores(folder, scorer)
    raise InputError(f"{folder}: no teacher-score part ({PART_GLOB}) to learn from; score the pool first "
                     "(python -m coherence_metric.training.pointwise.teacher.score_pool)")
