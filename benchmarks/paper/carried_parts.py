"""The score parts of a test set still being scored, kept beside the suite report so that they travel with it.

``--resume-from`` takes the sets an earlier run finished. A set of more than :data:`~..harness.cached_scores.PART_SIZE`
documents is scored in parts, each cached as it finishes, but the cache stays on its machine: the accurate tier's
permuted news takes longer in fp32 on a 2-core CPU than a session lasts, so where a machine does not outlive its
session that set could never finish. So, with ``--output DIR``, every part the run caches is also written to
``DIR/score-parts/``, and removed once its set is finished (the report's row then holds the set). A run given
``--resume-from DIR/<suite>.json`` reads a part it misses from ``DIR/score-parts/`` as well, and keeps it in its own
cache and output folder.

A part's file name is a digest of the system's signature (checkpoint fingerprint, settings, package, torch and
transformers versions), the set, the limit, the seed and the part's documents, the same key the cache uses, so a part
is only ever read by a run that would have computed those very scores. A part written beside a report carries a
sha256 of its content bound to that key (:data:`DIGEST_FIELD`), so a score edited in a well-formed part no longer
matches. A carried file that is not a part (cut short), whose content does not match its digest (edited), or that
has no digest (written by an older run: nothing shows it unedited) is ignored with a warning and scored again,
never read as scores.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from coherence_metric.research.cache import JsonCache

from ..harness.cached_scores import PART_KIND

LOGGER = logging.getLogger("coherence_metric.benchmarks")
#: The field of a part written beside a report that holds the sha256 binding its content to its set and key.
DIGEST_FIELD = "digest"


class CarriedPartsCache(JsonCache):
    """The score cache, which also writes each score part beside the run's report and reads a missing one from
    beside the reports it resumes from.

    Args:
        root: the cache folder (None: the default one).
        enabled: False: the cache itself reads and writes nothing (``--no-cache``); parts are still written beside
            the report and read from beside the resumed reports, which the user asked for by name.
        out_dir: the run's output folder, or None.
        resumed_reports: the ``--resume-from`` reports; the parts beside each are read in this order.

    Attributes:
        carried: parts taken from beside a resumed report, by test set name.
    """

    def __init__(self, root: Union[str, Path, None] = None, enabled: bool = True, out_dir: Optional[Path] = None,
                 resumed_reports: Sequence[Path] = ()) -> None:
        super().__init__(root, enabled)
        self.beside_report = JsonCache(Path(out_dir)) if out_dir is not None else None
        self.sources = [JsonCache(Path(report).parent) for report in resumed_reports]
        self.carried: dict[str, int] = {}

    def read(self, kind: str, name: str, key: str) -> Optional[Any]:
        """The cached value; a score part the cache misses is looked for beside the resumed reports."""
        value = super().read(kind, name, key)
        if kind != PART_KIND:
            return value
        if value is not None:
            self._keep_beside_report(name, key, value)  # a run resumed on its own machine carries them on too
            return value
        for source in self.sources:
            found = source.read(kind, name, key)
            if found is None:
                continue
            problem = carried_part_problem(name, key, found)
            if problem:
                LOGGER.warning("ignoring %s: %s (it is scored again)", source.path(kind, name, key), problem)
                continue
            LOGGER.info("%s: a score part taken from %s", name, source.path(kind, name, key))
            self.carried[name] = self.carried.get(name, 0) + 1
            part = _unsealed(found)
            self.write(kind, name, key, part)
            return part
        return None

    def write(self, kind: str, name: str, key: str, value: Any) -> Optional[Path]:
        """Store a value in the cache and, for a score part, beside the run's report too."""
        path = super().write(kind, name, key, value)
        if kind == PART_KIND and self.beside_report is not None:
            # a part scored again replaces a bad carried one
            self.beside_report.write(kind, name, key, sealed_part(name, key, value))
        return path

    def _keep_beside_report(self, name: str, key: str, value: Any) -> None:
        if self.beside_report is not None and not self.beside_report.path(PART_KIND, name, key).exists():
            self.beside_report.write(PART_KIND, name, key, sealed_part(name, key, value))


def part_digest(name: str, key: str, part: Any) -> str:
    """The sha256 of a part's content (its digest field left out) with its set's name and its key, over canonical
    JSON (sorted keys, no spaces): what a part written beside a report records, and what a carried one must match."""
    content = {field: value for field, value in part.items() if field != DIGEST_FIELD}
    text = json.dumps({"name": name, "key": key, "part": content}, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sealed_part(name: str, key: str, part: Any) -> Any:
    """``part`` with its :func:`part_digest` recorded (as written beside the report)."""
    content = _unsealed(part)
    return {**content, DIGEST_FIELD: part_digest(name, key, content)}


def carried_part_problem(name: str, key: str, found: Any) -> Optional[str]:
    """Why a part carried beside a resumed report is not taken as scores, or None."""
    if not is_score_part(found):
        return "not a score part"
    recorded = found.get(DIGEST_FIELD)
    if recorded is None:
        return "it has no digest of its scores (written by an older run), so nothing shows them unedited"
    if recorded != part_digest(name, key, found):
        return "its content does not match its digest: it was edited"
    return None


def _unsealed(part: Any) -> Any:
    return {field: value for field, value in part.items() if field != DIGEST_FIELD} if isinstance(part, dict) else part


def is_score_part(value: Any) -> bool:
    """Whether a value is what ``_score_in_parts`` caches: finite scores, counts and seconds."""
    if not isinstance(value, dict) or not isinstance(value.get("scores"), list):
        return False
    numbers_ok = all(_is_number(score) and math.isfinite(score) for score in value["scores"])
    windowed = value.get("n_windowed")
    return (numbers_ok and _is_count(value.get("n_truncated")) and _is_number(value.get("seconds"))
            and (windowed is None or _is_count(windowed)))


def drop_finished_parts(out_dir: Path, name: str) -> int:
    """Remove the parts of a finished set from beside the report (its row now holds it); return how many.

    The folder itself goes when it is left empty, so a finished run's output has no ``score-parts/``.
    """
    pattern = JsonCache(Path(out_dir)).path(PART_KIND, name, "*")
    folder = pattern.parent
    if not folder.is_dir():
        return 0
    own = re.compile(re.escape(pattern.name).replace(r"\*", "[0-9a-f]{16}") + "$")
    removed = 0
    for path in folder.iterdir():
        if own.match(path.name):
            path.unlink()
            removed += 1
    if not any(folder.iterdir()):
        folder.rmdir()
    return removed


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
