"""``-o/--output FILE`` for a command that prints its result: the same bytes as stdout, in the ``-f`` format, written
to FILE all or nothing (:func:`coherence_metric.atomic_write.write_atomically`) instead of printed; and
``--also FORMAT=FILE``, repeatable: the same result in another format, written to FILE in the same run, so that one
scoring gives every format (text, JSON, the tables, the report).

The paths are checked before any model loads, so a typo or an input named as the output fails in milliseconds, not
after the scoring: ``score a.txt -o a.txt`` would otherwise replace the texts with their scores.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

import click

from ..atomic_write import write_atomically
from ..errors import InputError
from .labels import display_name

STDIN = "-"


def check_output_file(output: str, inputs: Sequence[str], what: str, folder_hint: str = "") -> None:
    """Refuse an output file that cannot be written, before any scoring: a folder, a path in a missing folder, or
    one of ``inputs`` under any spelling (a link to it, a hard link).

    Raises:
        InputError: one line naming ``output`` and why.
    """
    target = Path(output)
    for source in inputs:
        if _same_file(target, source):
            raise InputError(f"{output} is one of the inputs ({display_name(source)}): write {what} to another file")
    if target.is_dir():
        raise InputError(f"{output} is a folder: -o names the file to write {what} to{folder_hint}")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"{output}: cannot write {what}: folder {parent} does not exist")


def _same_file(output: Path, source: str) -> bool:
    """Whether writing ``output`` would replace ``source``: the same path once resolved, or the same inode."""
    if source == STDIN:
        return False
    try:
        return output.resolve() == Path(source).resolve() or (
            output.exists() and os.path.exists(source) and os.path.samefile(output, source))
    except (OSError, RuntimeError):  # a link loop or an unreadable path: the write itself will say what is wrong
        return False


def emit(text: str, output: Optional[str], what: str) -> None:
    """Print ``text`` (whole lines, each ending in a newline) to stdout, or write exactly those bytes to ``output``
    all or nothing.

    Raises:
        InputError: ``output`` cannot be written (one line naming it and the system's reason).
    """
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomically(Path(output), text, what=what)


def also_option(formats: Sequence[str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--also FORMAT=FILE``, repeatable (the command receives ``also``, a tuple of the values as given)."""
    return click.option("--also", "also", multiple=True, metavar="FORMAT=FILE",
                        help=f"Also write the result in FORMAT ({', '.join(formats)}) to FILE, from the same scores; "
                             "repeat it for more formats. Each FILE is written all or nothing, and checked before "
                             "any model loads, as -o is.")


def also_targets(values: Sequence[str], formats: Sequence[str], inputs: Sequence[str], output: Optional[str],
                 what: str) -> List[Tuple[str, str]]:
    """Each ``--also FORMAT=FILE`` as (format, file), every file checked as :func:`check_output_file` checks
    ``-o``'s, none named twice (``output``, the ``-o`` file, included).

    Raises:
        InputError: a value without ``=``, a format the command has not, a file it cannot or must not write.
    """
    targets: List[Tuple[str, str]] = []
    taken = [output] if output is not None else []
    for value in values:
        output_format, equals, path = value.partition("=")
        if not equals or not path:
            raise InputError(f"--also {value}: give FORMAT=FILE, e.g. --also latex=table.tex")
        if output_format not in formats:
            raise InputError(f"--also {value}: {output_format!r} is not a format here ({', '.join(formats)})")
        check_output_file(path, inputs, f"{what} ({output_format})")
        named = next((earlier for earlier in taken if _same_file(Path(path), earlier)), None)
        if named is not None:
            raise InputError(f"{path} is named twice (as {named} too): write each format to its own file")
        taken.append(path)
        targets.append((output_format, path))
    return targets


def write_also(targets: Sequence[Tuple[str, str]], render: Callable[[str], str], what: str) -> None:
    """Write each (format, file) of :func:`also_targets`: ``render(format)``, all or nothing.

    Raises:
        InputError: a file cannot be written (one line naming it and the system's reason).
    """
    for output_format, path in targets:
        write_atomically(Path(path), render(output_format), what=f"{what} ({output_format})")


__all__ = ["also_option", "also_targets", "check_output_file", "emit", "write_also"]
