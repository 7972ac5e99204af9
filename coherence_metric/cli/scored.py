"""Every system's scores on the same inputs, scored in this run or read back from saved results
(:mod:`.saved`): what each output format of ``compare`` and ``report`` renders from, so a run scores once however
many formats it writes, and a saved run renders again without the model.

Each system is scored on its own inside :func:`coherence_metric.scoring.progress.progress_scope`, so the progress
lines of a long comparison say whose texts they count (``coherence: system B (b.txt): documents: ...``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ..inputs.files import InputText
from ..inputs.lengths import length_note
from ..results import ScoreResult
from ..scoring.progress import progress_scope
from ..statistics.bootstrap import check_sample_size
from ..systems import comparison_notes
from .labels import display_name, errors_named_by_label, escape_label


@dataclass(frozen=True)
class LeftOut:
    """An input left out for every system (a pair needs both texts): each system's label of it, in the systems'
    order as far as known (a saved comparison of three or more keeps the first alone), and why (an empty text)."""

    labels: List[str]
    reason: str


@dataclass(frozen=True)
class ScoredSystems:
    """Two or more systems' scores on the same inputs, in input order; the lists follow the systems' order.

    Attributes:
        names: each system's name (one file compared with itself: the same name twice).
        results: each system's scores on the inputs compared (none left out among them).
        rows: each system's rows of ``-f tsv`` and ``-f json``: label and score of every input shown; under
            ``--on-empty nan`` the inputs left out stay, scored NaN.
        left_out: the inputs left out for an empty text (``--on-empty skip`` or ``nan``), in input order.
        on_empty: the ``--on-empty`` that left them out.
        notes: what a reader of the numbers must know (a length gap, the known limits), carried into every table.
        id_field: the JSONL field the labels are ids of (``--id-field``), or None for ``FILE:LINE`` labels.
        texts: each system's texts of the inputs compared, when known (the HTML report shows them).
    """

    names: List[str]
    results: List[ScoreResult]
    rows: List[List[Tuple[str, float]]]
    left_out: List[LeftOut]
    on_empty: str
    notes: Tuple[str, ...]
    id_field: Optional[str] = None
    texts: Optional[List[List[Any]]] = None

    @property
    def n_inputs(self) -> int:
        """Every input, those left out included."""
        return len(self.results[0].scores) + len(self.left_out)

    def by_name(self) -> Dict[str, ScoreResult]:
        """Each system's scores by its name, for a comparison of systems (which names each once).

        Raises:
            InputError: a name given twice (one file compared with itself).
        """
        if len(set(self.names)) != len(self.names):
            repeated = next(name for name in self.names if self.names.count(name) > 1)
            raise InputError(f"{escape_label(repeated)} is compared with itself: a table of systems names each "
                             "system once; give each a --label")
        return dict(zip(self.names, self.results))


def system_scope(name: str, source: Optional[str]) -> str:
    """How progress lines name a system: ``system B (b.txt)``, or ``system b.txt`` when the file is its name."""
    shown = f"system {escape_label(name)}"
    if source is None or display_name(source) == name:
        return shown
    return f"{shown} ({escape_label(display_name(source))})"


def score_inputs(scorer: Any, names: Sequence[str], kept: Sequence[List[InputText]],
                 every: Sequence[List[InputText]], left_out: Sequence[int], on_empty: str, id_field: Optional[str],
                 sources: Sequence[Optional[str]] = ()) -> ScoredSystems:
    """Score each system's kept texts on its own (its progress lines name it and its file in ``sources``; errors
    name ``file:line``) and keep what every output format needs. ``every``: each system's texts before the inputs
    at ``left_out`` (an empty text) were left out."""
    check_sample_size(len(kept[0]))
    results = []
    for position, (name, items) in enumerate(zip(names, kept)):
        source = sources[position] if position < len(sources) else None
        with progress_scope(system_scope(name, source)), errors_named_by_label([item.label for item in items]):
            results.append(scorer.score([item.text for item in items]))
    return scored_inputs(list(names), results, kept, every, left_out, on_empty, id_field)


def scored_inputs(names: List[str], results: List[ScoreResult], kept: Sequence[List[InputText]],
                  every: Sequence[List[InputText]], left_out: Sequence[int], on_empty: str,
                  id_field: Optional[str]) -> ScoredSystems:
    """The systems scored in this run: ``results`` of the ``kept`` texts, the rows and left-out inputs of
    ``every`` text, the length note of the kept ones."""
    gone = set(left_out)
    rows: List[List[Tuple[str, float]]] = []
    for result, kept_items, every_items in zip(results, kept, every):
        if on_empty == "nan" and gone:
            scores = iter(result.scores)
            rows.append([(item.label, math.nan if index in gone else next(scores))
                         for index, item in enumerate(every_items)])
        else:
            rows.append([(item.label, value) for item, value in zip(kept_items, result.scores)])
    dropped = [LeftOut([items[index].label for items in every],
                       next(str(items[index].empty) for items in every if items[index].empty is not None))
               for index in left_out]
    texts = [[item.text for item in items] for items in kept]
    # one file compared with itself is one system to the length note
    note = length_note(dict(zip(names, texts)))
    return ScoredSystems(names, results, rows, dropped, on_empty, comparison_notes(note), id_field, texts)


__all__ = ["LeftOut", "ScoredSystems", "score_inputs", "scored_inputs", "system_scope"]
