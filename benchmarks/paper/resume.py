"""Finished test sets of an earlier run, taken as they are instead of scored again (``--resume-from``).

The score cache resumes a run killed on the same machine. It does not travel: the accurate tier's full suite
takes many hours of scoring on a 2-core CPU, longer than one machine has lasted here, and its cached parts have
been lost with a machine more than once. A suite report travels. The runner rewrites ``<suite>.json`` after
every test set, marked partial until the end, with every finished set's row. Copied or committed, it lets a run
on another machine score only the rest, and a finished run of a smaller suite (``probes``) gives its sets too::

    coherence-metric benchmark all --model accurate --resume-from old/all.json \
        --resume-from reports/probes.json --output new/

A row is taken only when it measured the same thing: the same model signature (checkpoint fingerprint, settings,
package, torch and transformers versions), the same systems, limit and seed, and a test set with the same name,
size, metric and notes as the one built here. Anything else is a one-line error naming what differs, because a
report that mixed two models or two sets of items would be a silent wrong number. The parts of a set the earlier run
had begun travel beside its report (:mod:`.carried_parts`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from coherence_metric.errors import InputError

from ..reporting.combine import read_run

#: The fields of a test set's row that say which items were scored (``source`` is a path on the machine that ran).
ITEM_FIELDS = ("n", "metric", "notes")


@dataclass(frozen=True)
class ResumedRows:
    """The finished rows of earlier runs, by test set name, the report each came from, and the names of this run's
    systems (a taken row must hold a cell of each)."""

    rows: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    systems: Sequence[str] = ()

    def take(self, row: Mapping[str, Any]) -> Optional[dict[str, Any]]:
        """``row`` (a test set's row as built by this run, results empty) with an earlier run's results, or None
        when no earlier run finished that set.

        Raises:
            InputError: the earlier run scored other items under that name, or has no cell for one of this run's
                systems (a set is finished when every system scored it).
        """
        earlier = self.rows.get(row["name"])
        if earlier is None:
            return None
        for key in ITEM_FIELDS:
            here, there = _plain(row.get(key)), _plain(earlier.get(key))
            if here != there:
                raise InputError(f"--resume-from {self.sources[row['name']]}: its {row['name']} was measured on "
                                 f"other items ({key} {_short(there)} there, {_short(here)} here)")
        missing = [name for name in self.systems if name not in earlier["results"]]
        if missing:
            raise InputError(f"--resume-from {self.sources[row['name']]}: its {row['name']} has no result of system "
                             f"{missing[0]!r}, so it is not finished (was it edited by hand?)")
        return {**row, "results": dict(earlier["results"])}

    def seconds(self, names: Sequence[str]) -> float:
        """The scoring time the earlier runs spent on the named sets (every system's cells)."""
        return round(sum(float(cell.get("seconds") or 0.0) for name in names
                         for cell in self.rows[name]["results"].values()), 2)


def read_resumable(paths: Sequence[Path], model: Mapping[str, Any], systems: Sequence[Mapping[str, Any]],
                   limit: Optional[int], seed: int) -> ResumedRows:
    """Read earlier suite reports (partial or finished) and check that each measured what this run measures; a set
    finished in more than one is taken from the first that lists it.

    Args:
        paths: the earlier runs' ``<suite>.json`` files (a killed ``all`` run's, a finished ``probes`` run's ...).
        model: this run's ``model`` entry (its ``signature`` must match).
        systems: this run's systems (``describe()`` dicts; their ids must match, in order).
        limit: this run's limit.
        seed: this run's seed.

    Raises:
        InputError: an unreadable file, not a suite report, a cell of the wrong type or out of range, or another
            model, systems, limit or seed.
    """
    rows: dict[str, Mapping[str, Any]] = {}
    sources: dict[str, str] = {}
    for path in paths:
        for row in _checked_rows(path, model, systems, limit, seed):
            if row["name"] not in rows:
                rows[row["name"]], sources[row["name"]] = row, str(path)
    return ResumedRows(rows, sources, tuple(str(system.get("name")) for system in systems))


def _checked_rows(path: Path, model: Mapping[str, Any], systems: Sequence[Mapping[str, Any]],
                  limit: Optional[int], seed: int) -> list[Mapping[str, Any]]:
    """One earlier report's test set rows, once it is known to have measured what this run measures."""
    earlier = read_run(path, allow_partial=True)
    where = f"--resume-from {path}"
    rows = earlier["test_sets"]
    if not (isinstance(earlier["systems"], list) and all(isinstance(system, dict) for system in earlier["systems"])
            and isinstance(earlier.get("model"), dict) and isinstance(rows, list)
            and all(isinstance(row, dict) and isinstance(row.get("name"), str)
                    and isinstance(row.get("results"), dict)
                    and all(isinstance(cell, dict) for cell in row["results"].values()) for row in rows)):
        raise InputError(f"{where}: its model, systems or test set rows are not those a suite report has "
                         "(was it edited by hand?)")
    theirs = earlier["model"].get("signature")
    if theirs != model["signature"]:
        raise InputError(f"{where}: it measured {theirs}, this run measures {model['signature']}")
    their_systems = [system.get("id") for system in earlier["systems"]]
    our_systems = [system.get("id") for system in systems]
    if their_systems != our_systems:
        raise InputError(f"{where}: it scored the systems {_names(earlier['systems'])}, this run scores "
                         f"{_names(systems)} (--baselines/--no-baselines and --seed must match)")
    for key, ours in (("limit", limit), ("seed", seed)):
        if earlier.get(key) != ours:
            raise InputError(f"{where}: it ran with {key} {earlier.get(key)}, this run with {key} {ours}")
    return rows


def _plain(value: Any) -> Any:
    """``value`` as JSON reads it back (tuples become lists), so a row built here compares with one read."""
    return json.loads(json.dumps(value, sort_keys=True))


def _short(value: Any, width: int = 80) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= width else text[:width - 3] + "..."


def _names(systems: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(str(system.get("name")) for system in systems) or "none"
