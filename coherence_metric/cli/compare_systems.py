"""Reading two or more systems' outputs on the same inputs, for ``compare`` and ``report``: one file per system, or
one JSONL file whose lines name their system (``--group-by``), every system with as many texts, ids aligned, the
inputs with an empty text left out for every system. :mod:`.comparison_output` prints the comparison.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ..inputs.files import EmptyTextError, InputText, read_grouped_texts
from .labels import display_name, refuse_repeated_files
from .options import ON_EMPTY_HINT, check_ids_aligned, paired_rows, read_all

PAIRED_FORMATS = ("lines", "paragraphs", "jsonl")


def _check_aligned(inputs: Dict[str, List[InputText]], counts: Dict[str, int], need: str,
                   id_field: Optional[str]) -> None:
    """Every system holds as many texts as the others (``counts``, by the name the error shows; ``need`` says why),
    and with ``id_field`` the i-th text of every system the same id."""
    if len(set(counts.values())) != 1:
        listed = ", ".join(f"{name} {count}" for name, count in counts.items())
        raise InputError(f"the systems have different numbers of texts ({listed}): {need}")
    check_ids_aligned(inputs, id_field)


def read_systems(files: List[str], input_format: str, field: str, needed_by: str = "a paired comparison",
                 names: Optional[Sequence[str]] = None, on_empty: Optional[str] = None,
                 id_field: Optional[str] = None, on_empty_choices: Optional[Sequence[str]] = None
                 ) -> Dict[str, List[InputText]]:
    """Each file's texts under its name (``names``, else its display name), read before any model loads: a file
    named twice is refused, every file must hold the same number of texts (``needed_by`` says what needs them in
    the error), and with ``id_field`` the i-th row of every file the same id."""
    refuse_repeated_files(files)
    names = list(names) if names else [display_name(path) for path in files]
    inputs = {name: read_all([path], input_format, field, on_empty, id_field, on_empty_choices)
              for name, path in zip(names, files)}
    counts = {display_name(path): len(items) for path, items in zip(files, inputs.values())}
    _check_aligned(inputs, counts, f"{needed_by} needs the same number, in the same order", id_field)
    return inputs


def read_grouped_systems(files: Sequence[str], input_format: str, field: str, group_by: str, on_empty: str,
                         id_field: Optional[str]) -> Dict[str, List[InputText]]:
    """Every system's texts from one JSONL file whose lines name their system in ``group_by`` (``compare`` and
    ``report --group-by``): at least two systems, the same number of texts each, aligned ids."""
    if len(files) != 1:
        raise InputError(f"--group-by reads every system from one JSONL file, got {len(files)} files")
    if input_format not in ("doc", "jsonl"):
        raise InputError(f"--group-by needs JSONL input (each line names its system), not -i {input_format}")
    try:
        groups = read_grouped_texts(files[0], field, group_by, on_empty, id_field)
    except EmptyTextError as error:
        raise EmptyTextError(f"{error} ({ON_EMPTY_HINT})") from None
    if len(groups) < 2:
        name = "<stdin>" if files[0] == "-" else files[0]
        raise InputError(f"{name} names {len(groups)} system in field {group_by!r}: a comparison needs at least 2")
    counts = {system: len(items) for system, items in groups.items()}
    _check_aligned(groups, counts, "a paired comparison needs the same number, the i-th text of every system "
                   "answering the same input", id_field)
    return groups


def drop_empty_inputs(inputs: Dict[str, List[InputText]], on_empty: str
                      ) -> Tuple[Dict[str, List[InputText]], List[int]]:
    """The systems' texts without the inputs where any system's text is empty (``--on-empty skip`` or ``nan``;
    said in one warning), and the positions left out."""
    sides, kept, _ = paired_rows(list(inputs.values()), on_empty)
    kept_set = set(kept)
    left_out = [index for index in range(len(next(iter(inputs.values())))) if index not in kept_set]
    return dict(zip(inputs, sides)), left_out
