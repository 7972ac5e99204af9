"""Saved results read back: ``compare --from-scores`` and ``report --from-scores`` render every table and the HTML
page from the ``-f json`` output of ``score`` (one file per system) or of ``compare`` (one saved comparison), without
texts or a model.

Refused, each in one line naming the file: a file that is no saved score or comparison, score files whose
signatures differ in anything but the counts of one result (model, fingerprint, dtype, max length, truncation,
versions), different numbers of texts, ids (``--id-field``) in another order, and a score file that left its empty
texts out (``--on-empty skip``: its rows no longer line up with the other systems'; ``--on-empty nan`` keeps them).
"""

from __future__ import annotations

import functools
import math
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

import click
from click.core import ParameterSource

from ..errors import InputError
from ..inputs.empty import empty_pairs_summary, nothing_to_compare
from ..inputs.lengths import KNOWN_LIMITS_NOTE, length_note_of_words, word_count
from ..results import ScoreResult
from ..safe_json import parse_json, read_json
from ..signature import Signature, parse_signature
from ..systems import comparison_notes
from .labels import display_name, escape_label, refuse_repeated_files
from .options import CLI_OPTION, ON_EMPTY_HINT, system_labels
from .scored import LeftOut, ScoredSystems

FROM_SCORES_HELP = ("Read FILES as saved results instead of texts: the -f json output of 'coherence-metric score', "
                    "one file per system, or one saved comparison ('compare -f json'). Nothing is scored again.")

#: The options of a command that read texts or load a model: nothing to do with --from-scores.
SCORING_OPTIONS = ("input_format", "field", "group_by", "id_field", "explain_rows", "model", "revision", "device",
                   "dtype", "batch_size", "max_length", "truncation", "local_files_only")

_NOT_SAVED = ("is not a saved result: give the -f json output of coherence-metric score (one file per system) or "
              "of coherence-metric compare")


@dataclass(frozen=True)
class Saved:
    """Systems read back: their scores, and for a saved comparison its own bootstrap resamples, randomization trials
    and seed (``stats``; None for score files, which the command's options compare)."""

    scored: ScoredSystems
    stats: Optional[Tuple[int, int, int]] = None


@dataclass(frozen=True)
class _ScoreFile:
    """One ``score -f json`` file: every input's label and score (None: an empty text under ``--on-empty nan``)."""

    name: str
    source: str
    scores: List[Optional[float]]
    labels: List[str]
    signature: Signature
    n_truncated: int
    n_windowed: int
    words: Optional[List[int]]
    texts: Optional[List[Any]]
    id_field: Optional[str]
    reasons: Dict[str, str]


def refuse_scoring_options(command: str) -> None:
    """Refuse, with ``--from-scores``, an option given on the command line that reads texts or loads a model: it
    would do nothing, silently."""
    context = click.get_current_context()
    given = [parameter.opts[0] for parameter in context.command.params
             if parameter.name in SCORING_OPTIONS and context.get_parameter_source(str(parameter.name))
             == ParameterSource.COMMANDLINE]
    if given:
        raise InputError(f"{', '.join(given)}: {command} --from-scores reads scores saved already, so it reads no "
                         f"texts and loads no model; leave {'it' if len(given) == 1 else 'them'} out")


def given_or_saved(saved: Optional[Tuple[int, int, int]], options: Tuple[int, int, int]) -> Tuple[int, int, int]:
    """The bootstrap resamples, randomization trials and seed to compare with: a saved comparison's own, unless
    ``--bootstrap``, ``--trials`` or ``--seed`` is given on the command line."""
    context = click.get_current_context()
    names = ("bootstrap_resamples", "randomization_trials", "seed")
    if saved is None or any(context.get_parameter_source(name) == ParameterSource.COMMANDLINE for name in names):
        return options
    return saved


def read_saved(paths: Sequence[str], labels: Sequence[str], on_empty: str, shorten: bool = False) -> Saved:
    """The systems that ``paths`` hold: two or more score files, or one saved comparison (``labels``: the
    systems' names, one per score file; else each is named by the file it scored, ``shorten``: by base name).

    Raises:
        InputError: one line naming the file and what is wrong with it.
    """
    refuse_repeated_files(list(paths))
    documents = [(display_name(path), _load(path)) for path in paths]
    kinds = [_kind(data) for _, data in documents]
    for (name, _), kind in zip(documents, kinds):
        if kind is None:
            raise InputError(f"{name} {_NOT_SAVED}")
    if any(kind != "score" for kind in kinds):
        if len(documents) != 1:
            raise InputError("a saved comparison is read alone: give one comparison file, or one score file per "
                             "system")
        if labels:
            raise InputError("--label names the systems of score files: a saved comparison keeps its names")
        name, data = documents[0]
        return _parsed(name, functools.partial(_comparison if kinds[0] == "systems" else _pair, data))
    if len(documents) < 2:
        raise InputError("--from-scores needs two or more score files (one per system), or one saved comparison")
    files = []
    for name, data in documents:
        files.append(_parsed(name, functools.partial(_score_file, name, data)))
    return Saved(_scored_files(files, labels, on_empty, shorten))


def _load(path: str) -> Any:
    if path == "-":
        return parse_json(sys.stdin.buffer.read(), "<stdin>")
    return read_json(Path(path))


def _kind(data: Any) -> Optional[str]:
    """``score``, ``systems`` (three or more systems, or the tables' form), ``pair`` (two systems' ``compare -f
    json``), or None for anything else."""
    if not isinstance(data, dict):
        return None
    if {"scores", "labels", "signature", "system_score"} <= data.keys():
        return "score"
    if {"systems", "pairs", "ranking", "signature"} <= data.keys():
        return "systems"
    if {"a", "b", "scores_a", "scores_b", "labels_a", "labels_b", "signature"} <= data.keys():
        return "pair"
    return None


def _parsed(name: str, parse: Callable[[], Any]) -> Any:
    """``parse()``, its errors (a missing key, a wrong type, a bad signature or score) as one line naming ``name``."""
    try:
        return parse()
    except InputError as error:
        raise InputError(f"{name}: {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InputError(f"{name} {_NOT_SAVED} ({type(error).__name__}: {error})") from None


def _score_file(name: str, data: Dict[str, Any]) -> _ScoreFile:
    scores = [None if value is None else float(value) for value in data["scores"]]
    labels = [str(label) for label in data["labels"]]
    if len(labels) != len(scores):
        raise InputError(f"{len(scores)} scores for {len(labels)} labels")
    if data.get("on_empty") == "skip" and data.get("empty"):
        raise InputError(f"its {len(data['empty'])} empty texts were left out (score --on-empty skip), so its rows no "
                         "longer line up with the other systems': score it again with --on-empty nan")
    files = data.get("files") or []
    texts = data.get("texts")
    words = [word_count(text) for text in texts] if texts is not None else data.get("words")
    if words is not None and len(words) != len(scores) or texts is not None and len(texts) != len(scores):
        raise InputError(f"its texts or word counts are not one per score ({len(scores)})")
    return _ScoreFile(name, str(files[0]) if len(files) == 1 else name, scores, labels,
                      parse_signature(data["signature"]), int(data.get("n_truncated", 0)),
                      int(data.get("n_windowed", 0)), None if words is None else [int(count) for count in words],
                      texts, data.get("id_field"),
                      {str(item["label"]): str(item["reason"]) for item in data.get("empty", [])
                       if isinstance(item, dict)})


def _check_alike(files: Sequence[_ScoreFile]) -> None:
    """Every file scored with the same settings, on as many inputs, labelled alike (ids in the same order)."""
    first = files[0]
    for other in files[1:]:
        if other.signature.settings() != first.signature.settings():
            raise InputError(f"{first.name} and {other.name} were scored with different settings "
                             f"({first.signature.settings().differences(other.signature.settings())}): compare "
                             "scores made with one model and the same settings")
        if len(other.scores) != len(first.scores):
            raise InputError(f"{first.name} has {len(first.scores)} texts and {other.name} has {len(other.scores)}: "
                             "compare needs every system's scores on the same inputs, in the same order")
        if other.id_field != first.id_field:
            raise InputError(f"{first.name} labels its rows by {_labelled_by(first)} and {other.name} by "
                             f"{_labelled_by(other)}: score every system the same way")
        if first.id_field is not None:
            for row, (mine, theirs) in enumerate(zip(first.labels, other.labels), start=1):
                if mine != theirs:
                    raise InputError(f"{first.name} row {row} has {first.id_field} {ascii(mine)} but {other.name} "
                                     f"row {row} has {ascii(theirs)}: paired rows must answer the same input, in "
                                     "the same order")


def _labelled_by(file: _ScoreFile) -> str:
    return f"--id-field {file.id_field!r}" if file.id_field is not None else "FILE:LINE"


def _names(files: Sequence[_ScoreFile], labels: Sequence[str], shorten: bool) -> List[str]:
    """Each system's name: its ``--label``, else the file it scored (or the score file, when it scored several)."""
    if not labels:
        seen: Dict[str, str] = {}
        for file in files:
            if file.source in seen:
                raise InputError(f"{seen[file.source]} and {file.name} both hold the scores of {file.source}: give "
                                 "each a --label")
            seen[file.source] = file.name
    return system_labels([file.source for file in files], labels, shorten=shorten)


def _left_out_positions(files: Sequence[_ScoreFile], on_empty: str) -> Dict[int, str]:
    """The inputs with no score in some file (an empty text under ``--on-empty nan``) and why, refused under
    ``--on-empty error``, else said in one warning."""
    gone: Dict[int, str] = {}
    for position in range(len(files[0].scores)):
        for file in files:
            if file.scores[position] is None:
                label = file.labels[position]
                if on_empty == "error":
                    raise InputError(f"{file.name}: {escape_label(label)} has no score (an empty text; "
                                     f"{ON_EMPTY_HINT})")
                gone[position] = file.reasons.get(label, f"{label}: empty")
                break
    if len(gone) == len(files[0].scores):
        raise nothing_to_compare(len(gone), next(iter(gone.values())))
    if gone:
        warnings.warn(empty_pairs_summary(len(gone), on_empty, CLI_OPTION, next(iter(gone.values()))), stacklevel=2)
    return gone


def _scored_files(files: List[_ScoreFile], labels: Sequence[str], on_empty: str, shorten: bool) -> ScoredSystems:
    _check_alike(files)
    names = _names(files, labels, shorten)
    gone = _left_out_positions(files, on_empty)
    kept = [position for position in range(len(files[0].scores)) if position not in gone]
    results: List[ScoreResult] = []
    rows: List[List[Tuple[str, float]]] = []
    for file in files:
        signature = file.signature.settings().with_truncated(file.n_truncated, file.n_windowed)
        every = [math.nan if value is None else value for value in file.scores]
        results.append(ScoreResult([every[position] for position in kept], file.n_truncated, signature,
                                   file.n_windowed))
        shown = range(len(every)) if on_empty == "nan" else kept
        rows.append([(file.labels[position], math.nan if position in gone else every[position]) for position in shown])
    left_out = [LeftOut([file.labels[position] for file in files], reason) for position, reason in gone.items()]
    texts = None
    if all(file.texts is not None for file in files):
        texts = [[(file.texts or [])[position] for position in kept] for file in files]
    return ScoredSystems(names, results, rows, left_out, on_empty, _notes(files, names, kept), files[0].id_field,
                         texts)


def _notes(files: Sequence[_ScoreFile], names: Sequence[str], kept: Sequence[int]) -> Tuple[str, ...]:
    """The comparison's notes: the length gap of the kept texts, as the files' word counts say, and the known
    limits; a file without word counts leaves the length gap unknown, said in one warning."""
    missing = [file.name for file in files if file.words is None]
    if missing:
        warnings.warn(f"{missing[0]} holds no word counts (saved by an older coherence-metric): the tables carry no "
                      "note on the systems' lengths", stacklevel=3)
        return comparison_notes(None)
    words = {name: [file.words[position] for position in kept] for name, file in zip(names, files)
             if file.words is not None}
    return comparison_notes(length_note_of_words(words))


def _rows_of(labels: Sequence[Any], values: Sequence[Any]) -> Tuple[List[float], List[Tuple[str, float]]]:
    """A saved system's scores kept (no null) and its rows: every label with its score, NaN for null."""
    if len(labels) != len(values):
        raise InputError(f"{len(values)} scores for {len(labels)} labels")
    every = [math.nan if value is None else float(value) for value in values]
    return [value for value in every if not math.isnan(value)], list(zip([str(label) for label in labels], every))


def _comparison(data: Dict[str, Any]) -> Saved:
    """A saved comparison of three or more systems (``compare -f json``), as it was."""
    names = [str(name) for name in data["systems"]]
    results: List[ScoreResult] = []
    rows: List[List[Tuple[str, float]]] = []
    for system in data["systems"].values():
        kept, shown = _rows_of(system["labels"], system["scores"])
        signature = parse_signature(str(system["signature"]))
        counts = int(system.get("n_truncated", 0)), int(system.get("n_windowed", 0))
        results.append(ScoreResult(kept, counts[0], signature.settings().with_truncated(*counts), counts[1]))
        rows.append(shown)
    left_out = [LeftOut([str(item["label"])], str(item["reason"])) for item in data.get("left_out", [])]
    scored = ScoredSystems(names, results, rows, left_out, str(data.get("on_empty", "error")), _saved_notes(data),
                           data.get("id_field"))
    return Saved(scored, (int(data["bootstrap_resamples"]), int(data["randomization_trials"]), int(data["seed"])))


def _pair(data: Dict[str, Any]) -> Saved:
    """A saved comparison of two systems (``compare A B -f json``). Its signature counts the truncated texts of both
    sides together; they are given to A here, which changes nothing shown (two systems' outputs show the total)."""
    signature = parse_signature(str(data["signature"]))
    counts = [(signature.n_truncated, signature.n_windowed), (0, 0)]
    results: List[ScoreResult] = []
    rows: List[List[Tuple[str, float]]] = []
    for side, (truncated, windowed) in zip("ab", counts):
        kept, shown = _rows_of(data[f"labels_{side}"], data[f"scores_{side}"])
        results.append(ScoreResult(kept, truncated, signature.settings().with_truncated(truncated, windowed),
                                   windowed))
        rows.append(shown)
    left_out = [LeftOut([str(item["a"]), str(item["b"])], str(item["reason"])) for item in data.get("left_out", [])]
    scored = ScoredSystems([str(data["a"]), str(data["b"])], results, rows, left_out,
                           str(data.get("on_empty", "error")), _saved_notes(data), data.get("id_field"))
    stats = (signature.bootstrap_resamples, signature.randomization_trials, signature.bootstrap_seed)
    if any(value is None for value in stats):
        raise InputError("its signature names no bootstrap, seed or randomization trials")
    return Saved(scored, cast(Tuple[int, int, int], stats))


def _saved_notes(data: Dict[str, Any]) -> Tuple[str, ...]:
    """A saved comparison's notes, as it was written (the known limits alone when it holds none)."""
    notes = data.get("notes")
    return tuple(str(note) for note in notes) if notes else (KNOWN_LIMITS_NOTE,)


__all__ = ["FROM_SCORES_HELP", "Saved", "given_or_saved", "read_saved", "refuse_scoring_options"]
