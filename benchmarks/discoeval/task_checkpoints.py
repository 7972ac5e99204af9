"""Per-task results kept in the report folder while a DiscoEval run is in progress, so an interrupted run resumes.

A full DiscoEval of a slow encoder takes hours on a laptop CPU (the RST-DT and DC probes dominate), and a killed
run used to lose every finished task. Each finished task's row is now written to ``<out>/partial/<task>.json``
with the key it was computed under: the encoder signature, seed, limit, data folder and classifier settings. A
later run into the same folder reuses a row only when the whole key matches, logs it as resumed and lists it
under ``resumed`` in the result; the folder is removed once the full report is written. ``--no-cache`` (
``use_cache=False``) neither reads nor writes it.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path
from typing import Any, Dict, Optional

from coherence_metric.toolkit import InvalidJson, parse_json

logger = logging.getLogger("coherence_metric.benchmarks")

PARTIAL_FOLDER = "partial"


class TaskCheckpoints:
    """Finished task rows of one run under one key, stored as one JSON file per task.

    Args:
        out_dir: the report folder of the run; None (no report folder) disables checkpoints.
        key: everything a task row depends on besides the task itself; a stored row with another key is ignored.
    """

    def __init__(self, out_dir: Optional[Path], key: Dict[str, Any]) -> None:
        self.folder = Path(out_dir) / PARTIAL_FOLDER if out_dir is not None else None
        self.key = key

    def load(self, task_name: str) -> Optional[Dict[str, Any]]:
        """The stored row of ``task_name`` when it was computed under this key, else None."""
        path = self._path(task_name)
        if path is None or not path.is_file():
            return None
        try:
            stored = parse_json(path.read_bytes(), str(path))
        except (OSError, InvalidJson):
            logger.warning("%s: ignoring an unreadable partial result %s", task_name, path)
            return None
        if not isinstance(stored, dict) or stored.get("key") != self.key or not isinstance(stored.get("row"), dict):
            logger.info("%s: a partial result in %s was computed with other settings; running afresh", task_name,
                        path)
            return None
        return stored["row"]

    def save(self, task_name: str, row: Dict[str, Any]) -> None:
        """Store a finished row (written to a temporary file first, so a kill mid-write leaves no torn file)."""
        path = self._path(task_name)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"task": task_name, "key": self.key, "row": row}, indent=1),
                             encoding="utf-8")
        temporary.replace(path)

    def clear(self) -> None:
        """Remove the partial results once the full report exists."""
        if self.folder is not None and self.folder.is_dir():
            shutil.rmtree(self.folder)

    def _path(self, task_name: str) -> Optional[Path]:
        if self.folder is None:
            return None
        return self.folder / (re.sub(r"[^A-Za-z0-9_-]+", "_", task_name) + ".json")
