"""``log.jsonl`` of a training run: strict JSON records, cut back to the resumed step when a run resumes.

A record is one JSON object per line. Non-finite numbers are written as ``null``: ``json.dumps`` writes a bare
``NaN`` / ``Infinity``, which is not JSON (``jq``, JavaScript and strict parsers refuse the whole file). A run killed
after logging steps past its last saved state wrote those records again when it resumed from that state (37-45
duplicate step records were seen); :func:`cut_log_after_step` drops them before the resumed run writes its own.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List

from .state_files import write_text_atomically


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float (at any depth) replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def log_line(record: Dict[str, Any]) -> str:
    """One record as a strict JSON line (non-finite numbers as null), newline included."""
    return json.dumps(_finite(record), allow_nan=False) + "\n"


def append_record(path: Path, record: Dict[str, Any]) -> None:
    """Append ``record`` to the log at ``path``."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(log_line(record))


def cut_log_after_step(path: Path, step: int, key: str = "step") -> int:
    """Drop the records of steps after ``step`` (the step a run resumes from: they will be written again), keeping
    every other line as it is; returns how many were dropped. A torn last line (killed mid-write) is dropped too.
    ``key`` names the record's counter (``epoch`` for a run that saves its state per epoch).

    The file is replaced atomically, so a kill during the cut loses nothing.
    """
    if not path.is_file():
        return 0
    kept: List[str] = []
    dropped = 0
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            dropped += 1  # half a line written when the process died
            continue
        record_step = record.get(key) if isinstance(record, dict) else None
        if isinstance(record_step, (int, float)) and record_step > step:
            dropped += 1
            continue
        kept.append(line if line.endswith("\n") else line + "\n")
    if dropped:
        write_text_atomically("".join(kept), path)
    return dropped


__all__ = ["append_record", "cut_log_after_step", "log_line"]
