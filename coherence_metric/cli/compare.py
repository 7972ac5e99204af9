"""``coherence-metric compare A B [C ...]``: which of two texts is more coherent, or how two or more systems rank.

Systems come one file each (``-i lines|paragraphs|jsonl``: item i of every file is the same input) or from one
JSONL file whose lines name their system (``--group-by system``), or as saved results (``--from-scores``,
:mod:`.saved`). A run scores each system once, whatever it writes: stdout or ``-o FILE`` in the ``-f`` format, and
each ``--also FORMAT=FILE`` (:mod:`.comparison_output` renders them all).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

import click

from ..errors import InputError
from ..inputs.files import InputText
from ..settings import ScorerSettings
from ..statistics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, MAX_SEED, MIN_CLI_RESAMPLES
from ..statistics.significance import DEFAULT_TRIALS, MAX_TRIALS, MIN_CLI_TRIALS
from .compare_systems import PAIRED_FORMATS, read_grouped_systems, read_systems
from .comparison_output import SystemsOutput, single_lines
from .group import cli
from .labels import errors_named_by_label, escape_label, refuse_repeated_files
from .options import (
    OUTPUT_FORMATS,
    batch_options,
    build_scorer,
    check_ids_aligned,
    input_options,
    label_option,
    length_warning,
    model_options,
    paired_rows,
    read_all,
    system_labels,
)
from .output import also_option, also_targets, check_output_file, emit, write_also
from .saved import FROM_SCORES_HELP, given_or_saved, read_saved, refuse_scoring_options
from .scored import score_inputs
from .tables import TABLE_FORMATS

COMPARISON = "the comparison"
"""What ``compare -o FILE`` writes, as its messages name it."""

ON_EMPTY_HELP = ("An empty text (an empty or null JSONL field, an empty line, one of invisible characters only) in "
                 "a paired comparison: error = stop before scoring, naming it; skip = leave that input out for every "
                 "system (a pair needs both texts); nan = leave it out of every mean, win rate and p-value too, but "
                 "keep its rows in -f tsv/json with NaN (null) scores. skip and nan say how many.")


@dataclass(frozen=True)
class CompareRequest:
    """What one ``compare`` run was asked for, built once from its options (the output paths already checked):
    each step below reads the fields it needs rather than a long list of arguments that can drift apart."""

    files: Tuple[str, ...]
    input_format: str
    field: str
    group_by: Optional[str]
    labels: Tuple[str, ...]
    on_empty: str
    id_field: Optional[str]
    output_format: str
    output: Optional[str]
    targets: Tuple[Tuple[str, str], ...]
    """Each ``--also FORMAT=FILE`` as (format, file)."""
    stats: Tuple[int, int, int]
    """Bootstrap resamples, randomization trials, seed."""

    @property
    def formats(self) -> List[str]:
        """Every format this run renders: ``-f``'s, then each ``--also``'s."""
        return [self.output_format, *(fmt for fmt, _ in self.targets)]

    @property
    def two_texts(self) -> bool:
        """Two files each read whole (``-i doc``): a comparison of two texts, not of systems."""
        return self.group_by is None and self.input_format == "doc"


def _request(files: Tuple[str, ...], input_format: str, field: str, output_format: str, group_by: Optional[str],
             stats: Tuple[int, int, int], labels: Tuple[str, ...], on_empty: str, id_field: Optional[str],
             output: Optional[str], also: Tuple[str, ...]) -> CompareRequest:
    """The run's request, ``-o`` and every ``--also`` file checked first (before any model loads)."""
    if output is not None:
        check_output_file(output, list(files), COMPARISON)
    targets = also_targets(also, OUTPUT_FORMATS, list(files), output, COMPARISON)
    return CompareRequest(files=files, input_format=input_format, field=field, group_by=group_by, labels=labels,
                          on_empty=on_empty, id_field=id_field, output_format=output_format, output=output,
                          targets=tuple(targets), stats=stats)


def _multi_line_hint(files: List[str], sides: List[List[InputText]]) -> None:
    """Two files read whole (``-i doc``) that each hold several lines are often two systems' outputs, one per
    line: say so in one line (silenced by --quiet) rather than compare two concatenations silently."""
    counts = [sum(1 for line in str(side[0].text).split("\n") if line.strip()) for side in sides]
    if min(counts) > 1:
        names = ["<stdin>" if path == "-" else path for path in files]
        warnings.warn(f"{names[0]} has {counts[0]} lines and {names[1]} has {counts[1]}, each compared as one text "
                      "(-i doc): one text per line? pass -i lines", stacklevel=2)


def _single_json(result: Any, names: List[str]) -> str:
    data = result.to_dict()
    data.update({"a": names[0], "b": names[1]})
    return json.dumps(data, indent=2) + "\n"


def _single_tsv(result: Any, names: List[str], sides: List[List[InputText]], id_field: Optional[str]) -> str:
    """One row per text, headed as the systems' TSV is (``system``, the label or ``id_field``, ``score``)."""
    header = escape_label(id_field) if id_field is not None else "label"
    rows = [f"{escape_label(name)}\t{escape_label(side[0].label)}\t{value:.6f}"
            for name, side, value in zip(names, sides, (result.score_a, result.score_b))]
    return "".join(line + "\n" for line in [f"system\t{header}\tscore", *rows])


def _single_text(result: Any, names: List[str]) -> str:
    lines = single_lines(result, escape_label(names[0]), escape_label(names[1])) + [f"signature: {result.signature}"]
    return "".join(line + "\n" for line in lines)


def _render_single(result: Any, names: List[str], sides: List[List[InputText]], output_format: str,
                   id_field: Optional[str]) -> str:
    """What ``compare`` prints for two single texts (``-i doc``) in ``output_format`` (text, json or tsv)."""
    if output_format == "json":
        return _single_json(result, names)
    if output_format == "tsv":
        return _single_tsv(result, names, sides, id_field)
    return _single_text(result, names)


def _refuse_tables_for_two_texts(formats: Sequence[str]) -> None:
    """The table formats rank systems: two single texts have no table."""
    for output_format in formats:
        if output_format in TABLE_FORMATS:
            raise InputError(f"-f {output_format} prints a table of systems: compare two systems' outputs on the same "
                             "inputs (-i lines, -i paragraphs or -i jsonl)")


def _compare_single(request: CompareRequest, names: List[str], sides: List[List[InputText]],
                    make_scorer: Callable[[], Any]) -> Tuple[Callable[[str], str], str]:
    """Two single texts: how to render each format, and the signature."""
    _refuse_tables_for_two_texts(request.formats)
    with errors_named_by_label([item.label for side in sides for item in side]):
        result = make_scorer().compare(sides[0][0].text, sides[1][0].text)
    return (lambda output_format: _render_single(result, names, sides, output_format, request.id_field),
            str(result.signature))


def _check_two(label_a: str, side_a: List[InputText], label_b: str, side_b: List[InputText],
               id_field: Optional[str]) -> None:
    """Two systems' outputs on the same inputs: the same number, and with ``id_field`` the same ids in order."""
    if len(side_a) != len(side_b):
        raise InputError(f"{label_a} has {len(side_a)} texts and {label_b} has {len(side_b)}: "
                         "a paired comparison needs the same number, in the same order")
    check_ids_aligned({label_a: side_a, label_b: side_b}, id_field)  # one file twice: one entry, aligned


def _without_empty(every: List[List[InputText]], on_empty: str) -> Tuple[List[List[InputText]], List[int]]:
    """Each system's texts without the inputs where any system's text is empty (said in one warning), and the
    positions left out."""
    kept_sides, kept, _ = paired_rows(every, on_empty)
    kept_set = set(kept)
    return kept_sides, [index for index in range(len(every[0])) if index not in kept_set]


#: Every system's name, its texts, and the files they came from (none with ``--group-by``).
Compared = Tuple[List[str], List[List[InputText]], List[str]]


def _read_grouped(request: CompareRequest, group_by: str) -> Compared:
    """One JSONL file whose lines name their system in the field ``group_by``."""
    if request.labels:
        raise InputError(f"--label names the systems of separate files: with --group-by the field {group_by!r} "
                         "names them")
    groups = read_grouped_systems(request.files, request.input_format, request.field, group_by, request.on_empty,
                                  request.id_field)
    return list(groups), list(groups.values()), []


def _read_many(request: CompareRequest, names: List[str]) -> Compared:
    """Three or more files, one system's outputs each (paired: item i of every file is the same input)."""
    if request.input_format not in PAIRED_FORMATS:
        raise InputError(f"comparing {len(request.files)} files needs one system's outputs per file: pass -i lines, "
                         "-i paragraphs or -i jsonl")
    inputs = read_systems(list(request.files), request.input_format, request.field, names=names,
                          on_empty=request.on_empty, id_field=request.id_field)
    return names, list(inputs.values()), list(request.files)


def _read_two(request: CompareRequest, names: List[str]) -> Compared:
    """Two files: two systems' outputs (paired, the same count and ids) or, with ``-i doc``, two texts."""
    files = list(request.files)
    refuse_repeated_files(files, allow_same_file=True)  # a file against itself is a tie check
    paired = not request.two_texts
    every = [read_all([path], request.input_format, request.field, request.on_empty if paired else None,
                      request.id_field) for path in files]
    if paired:
        _check_two(names[0], every[0], names[1], every[1], request.id_field)
    else:
        _multi_line_hint(files, every)
    return names, every, files


def _read_compared(request: CompareRequest) -> Compared:
    """Every system's name and texts (before any model loads), and the file each came from (none with
    ``--group-by``): two files, three or more (paired), or one JSONL file split by ``--group-by``."""
    if request.group_by is not None:
        return _read_grouped(request, request.group_by)
    if len(request.files) < 2:
        raise InputError("compare needs two files (or one JSONL file with --group-by FIELD)")
    names = system_labels(request.files, request.labels)
    return _read_many(request, names) if len(request.files) > 2 else _read_two(request, names)


def _write(render: Callable[[str], str], signature: Callable[[str], str], request: CompareRequest) -> None:
    """Print (or write to ``-o``) the ``-f`` format, write every ``--also``; a TSV's signature goes to stderr."""
    emit(render(request.output_format), request.output, COMPARISON)
    write_also(request.targets, render, COMPARISON)
    if "tsv" in request.formats:
        click.echo(f"signature: {signature('tsv')}", err=True)  # stdout (or the file) stays a clean table


def _from_scores(request: CompareRequest) -> None:
    """Render the comparison of systems saved already (score files, or a saved comparison): nothing is scored."""
    refuse_scoring_options("compare")
    saved = read_saved(request.files, request.labels, request.on_empty)
    result = SystemsOutput(saved.scored, *given_or_saved(saved.stats, request.stats))
    _write(result.render, result.signature, request)


def _compare_texts(request: CompareRequest, model: str, settings: ScorerSettings) -> None:
    """Score and render the comparison the files hold: two texts, or two or more systems (paired)."""

    def make_scorer() -> Any:
        return build_scorer(model, settings)

    names, every, sources = _read_compared(request)
    if request.two_texts:
        render, signature = _compare_single(request, names, every, make_scorer)
        _write(render, lambda _: signature, request)
        return
    kept, left_out = _without_empty(every, request.on_empty)
    length_warning(dict(zip(names, kept)))
    scored = score_inputs(make_scorer(), names, kept, every, left_out, request.on_empty, request.id_field, sources)
    result = SystemsOutput(scored, *request.stats)
    _write(result.render, result.signature, request)


@cli.command("compare", short_help="Which text is more coherent, or rank 2+ systems with p-values.")
@click.argument("files", nargs=-1, required=True)
@input_options
@click.option("--group-by", default=None, metavar="FIELD",
              help="Read every system from one JSONL file: FIELD names the system that wrote each line (the i-th "
                   "line of each system answers input i).")
@click.option("--bootstrap", "bootstrap_resamples", type=click.IntRange(MIN_CLI_RESAMPLES, MAX_RESAMPLES),
              default=DEFAULT_RESAMPLES, show_default=True,
              help=f"Paired-bootstrap resamples (paired comparisons), {MIN_CLI_RESAMPLES} to {MAX_RESAMPLES}.")
@click.option("--trials", "randomization_trials", type=click.IntRange(MIN_CLI_TRIALS, MAX_TRIALS),
              default=DEFAULT_TRIALS, show_default=True,
              help=f"Approximate-randomization trials (paired comparisons), {MIN_CLI_TRIALS} to {MAX_TRIALS}.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=DEFAULT_SEED, show_default=True,
              help="Seed of the paired bootstrap and the randomization test (0 to 2**63 - 1).")
@label_option
@batch_options(ON_EMPTY_HELP)
@click.option("--from-scores", is_flag=True, help=FROM_SCORES_HELP)
@click.option("--output", "-o", default=None, metavar="FILE",
              help="Write what would print (the same bytes, in the -f format) to FILE, all or nothing; TSV's "
                   "signature still goes to stderr.")
@also_option(OUTPUT_FORMATS)
@model_options
def compare_command(files: Tuple[str, ...], input_format: str, field: str, output_format: str,
                    group_by: Optional[str], bootstrap_resamples: int, randomization_trials: int, seed: int,
                    labels: Tuple[str, ...], on_empty: str, id_field: Optional[str], from_scores: bool,
                    output: Optional[str], also: Tuple[str, ...], model: str, settings: ScorerSettings) -> None:
    """Compare FILES: two texts (default: each file is one text), or two or more systems' outputs on the same
    inputs (--input-format lines/paragraphs/jsonl: item i of every file is the same input; or one JSONL file with
    --group-by FIELD), with paired-bootstrap intervals and p-values (paired bootstrap, approximate randomization)
    for every pair. With --from-scores, FILES are saved scores: nothing is scored again."""
    request = _request(files, input_format, field, output_format, group_by,
                       (bootstrap_resamples, randomization_trials, seed), labels, on_empty, id_field, output, also)
    if from_scores:
        _from_scores(request)
    else:
        _compare_texts(request, model, settings)
