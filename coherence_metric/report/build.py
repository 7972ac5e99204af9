"""Building a report: compare the systems, explain the inputs where they differ most, render, write to a file."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ..atomic_write import refuse_special_file, write_atomically
from ..errors import InputError
from .html import render_html
from .payload import build_payload, spread_order

#: Inputs whose texts get transition scores by default: the ones with the largest differences between systems.
DEFAULT_EXPLAIN_ROWS = 100


@dataclass
class SystemsReport:
    """A comparison of systems with their texts and the transition scores of the inputs where they differ most.

    Attributes:
        comparison: the ``SystemsComparison``.
        texts: each system's texts, in input order.
        explanations: per input index, per system, a ``TextExplanation``.
        labels: one label per input (``file:line``), or None.
        command: the command line that made the report, shown at its top.
        mechanism: what scored the transitions.
    """

    comparison: Any
    texts: Dict[str, List[Any]]
    explanations: Dict[int, Dict[str, Any]] = field(default_factory=dict)
    labels: Optional[List[str]] = None
    command: Optional[str] = None
    mechanism: Optional[str] = None

    def to_html(self, title: Optional[str] = None) -> str:
        """The self-contained HTML page."""
        return render_html(build_payload(self.comparison, self.texts, self.explanations, self.labels, self.command,
                                         self.mechanism, title))

    def write(self, path: Union[str, Path], title: Optional[str] = None) -> Path:
        """Write the page to ``path`` (UTF-8).

        Raises:
            InputError: the path cannot be written (no such folder, a directory, no permission).
        """
        check_writable(path)
        target = Path(path)
        write_atomically(target, self.to_html(title), what="the report")
        return target


def check_writable(path: Union[str, Path], inputs: Sequence[Union[str, Path]] = ()) -> None:
    """Refuse an output path that cannot be written, before any scoring: a missing folder, a directory, a FIFO, a
    device or a socket, a folder without write permission, or one of the command's ``inputs`` under any spelling
    (``./a.txt``, a link to it, a hard link): ``report a.txt b.txt -o a.txt`` replaced the input a.txt with HTML.

    Raises:
        InputError: naming the path and why.
    """
    target = Path(path)
    for source in inputs:
        if _same_file(target, Path(source)):
            raise InputError(f"{path} is one of the report's inputs ({source}): write the report to another file")
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise InputError(f"{path} is a directory: give a file name for the report, e.g. {target / 'report.html'}")
    refuse_special_file(target, "the report")  # before any scoring, as the write itself would
    if not parent.is_dir():
        raise InputError(f"{path}: cannot write the report: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InputError(f"{path}: cannot write the report: permission denied")


def _same_file(output: Path, source: Path) -> bool:
    """Whether writing ``output`` would replace ``source``: the same path once resolved, or the same inode."""
    if str(source) in ("", "-"):  # standard input
        return False
    try:
        if output.resolve() == source.resolve():
            return True
        return output.exists() and source.exists() and os.path.samefile(output, source)
    except (OSError, RuntimeError):  # a link loop or an unreadable path: the write itself will say what is wrong
        return False


def build_report(scorer: Any, systems: Mapping[str, Sequence[Any]], *, labels: Optional[Sequence[str]] = None,
                 explain_rows: int = DEFAULT_EXPLAIN_ROWS, bootstrap_resamples: int = 1000, seed: int = 12345,
                 randomization_trials: int = 10000, mechanism: str = "auto",
                 command: Optional[str] = None) -> SystemsReport:
    """Compare systems' outputs on the same inputs and explain the ``explain_rows`` inputs where they differ most.

    Args:
        scorer: a ``CoherenceScorer``.
        systems: ``{"name": [text for input 1, text for input 2, ...]}``, two or more systems.
        labels: one label per input; None numbers them.
        explain_rows: how many inputs (largest difference first) get per-transition scores; 0 for none. Every
            text of those inputs is scored once more per transition, so this bounds the report's extra cost.
        bootstrap_resamples, seed, randomization_trials: as ``CoherenceScorer.compare_systems``.
        mechanism: the transition mechanism (``auto``: see ``CoherenceScorer.explain``).
        command: the command line, shown at the top of the page.

    Raises:
        InputError: as ``compare_systems``; labels of the wrong length; a negative ``explain_rows``.
    """
    if isinstance(explain_rows, bool) or not isinstance(explain_rows, int) or explain_rows < 0:
        raise InputError(f"explain_rows must be a non-negative integer, got {explain_rows!r}")
    comparison = scorer.compare_systems(systems, bootstrap_resamples=bootstrap_resamples, seed=seed,
                                        randomization_trials=randomization_trials)
    return explain_systems(scorer, comparison, systems, labels=labels, explain_rows=explain_rows,
                           mechanism=mechanism, command=command)


def explain_systems(scorer: Any, comparison: Any, systems: Mapping[str, Sequence[Any]], *,
                    labels: Optional[Sequence[str]] = None, explain_rows: int = DEFAULT_EXPLAIN_ROWS,
                    mechanism: str = "auto", command: Optional[str] = None) -> SystemsReport:
    """The report of a comparison of ``systems`` made already (:func:`build_report`'s second half): the
    ``explain_rows`` inputs where they differ most get their transitions scored by ``scorer``.

    Raises:
        InputError: labels of the wrong length.
    """
    texts = {name: list(systems[name]) for name in comparison.systems}
    count = len(next(iter(texts.values())))
    if labels is not None and len(labels) != count:
        raise InputError(f"{len(labels)} labels for {count} inputs: give one label per input")
    chosen = spread_order({name: result.scores for name, result in comparison.systems.items()})[:explain_rows]
    explanations: Dict[int, Dict[str, Any]] = {}
    resolved = None
    if chosen:
        names = list(texts)
        result = scorer.explain([texts[name][index] for index in chosen for name in names], mechanism=mechanism)
        resolved = result.mechanism
        items = iter(result.texts)
        for index in chosen:
            explanations[index] = {name: next(items) for name in names}
    return SystemsReport(comparison, texts, explanations, list(labels) if labels is not None else None, command,
                         resolved)
