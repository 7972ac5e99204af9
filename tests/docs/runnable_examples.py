"""Run the examples the documentation marks as runnable, and check (or rewrite) the outputs it prints.

A fenced block right after the line ``<!-- runnable -->`` is an example:

- a ``console`` block: each ``$ command`` line runs in ``bash`` from the repository root, and the lines after it
  (up to the next ``$``) are its expected standard output;
- a ``python`` block: every python block of a page runs, in order, in one interpreter (a page reads like a
  notebook); a ``text`` block right after ``<!-- output -->`` following it is that block's expected stdout.

Every example runs with ``COHERENCE_METRIC_DTYPE=fp32`` (the docs show fp32 numbers, the ones every machine
reproduces). Outputs match when their words match, except that a number may differ by 2 in its last printed digit
(fp32 noise across machines) and the transformers and torch versions in a signature are not compared.

After a change that moves scores (a new default checkpoint), rewrite every expected output in place with::

    make docs-examples        # = .venv/bin/python -m tests.docs.runnable_examples --update
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = "<!-- runnable -->"
OUTPUT = "<!-- output -->"
_FENCE = re.compile(r"^```(\w*)\s*$")
_NUMBER = re.compile(r"^[<>(\[]*[+-]?\d+\.(\d+)[)\],;%]*$")
_VERSIONS = re.compile(r"(transformers|torch):[^|\s`'\"]+")
_PY_RUNNER = """
import contextlib, io, json, sys, traceback
blocks = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {"__name__": "__main__"}
outputs = []
for index, (line, code) in enumerate(blocks):
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, f"{sys.argv[3]}:{line}", "exec"), namespace)
    except BaseException:
        outputs.append({"stdout": buffer.getvalue(), "error": traceback.format_exc()})
        break
    outputs.append({"stdout": buffer.getvalue(), "error": None})
json.dump(outputs, open(sys.argv[2], "w", encoding="utf-8"))
"""


@dataclass
class Example:
    """One runnable block: where it is, what it runs and what it should print."""

    path: Path
    line: int  # 1-based line of the opening fence
    kind: str  # "console" or "python"
    code: List[str]  # console: the commands; python: one element, the source
    expected: List[str]  # console: one expected output per command; python: zero or one
    output_span: List[Tuple[int, int]] = field(default_factory=list)  # (first, last) 0-based lines of each output


@dataclass
class Failure:
    """An example whose run failed or whose output differs from the docs."""

    example: Example
    message: str


def _fence_end(lines: List[str], start: int) -> int:
    for index in range(start + 1, len(lines)):
        if lines[index].strip() == "```":
            return index
    raise ValueError(f"unclosed code fence at line {start + 1}")


def _next_non_blank(lines: List[str], index: int) -> int:
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index


def find_examples(path: Path) -> List[Example]:
    """The runnable examples of one Markdown file, in order."""
    lines = path.read_text(encoding="utf-8").split("\n")
    examples: List[Example] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() != RUNNABLE:
            index += 1
            continue
        start = _next_non_blank(lines, index + 1)
        match = _FENCE.match(lines[start]) if start < len(lines) else None
        if not match or match.group(1) not in ("console", "python"):
            raise ValueError(f"{path}:{index + 1}: {RUNNABLE} must precede a console or python code block")
        end = _fence_end(lines, start)
        body = lines[start + 1:end]
        if match.group(1) == "console":
            examples.append(_console_example(path, start, body))
        else:
            examples.append(_python_example(path, lines, start, end, body))
        index = end + 1
    return examples


def _console_example(path: Path, start: int, body: List[str]) -> Example:
    example = Example(path, start + 1, "console", [], [])
    position = 0
    while position < len(body):
        if not body[position].startswith("$ "):
            raise ValueError(f"{path}:{start + 2 + position}: a runnable console block starts each command with '$ '")
        command = body[position][2:]
        while command.endswith("\\") and position + 1 < len(body):
            position += 1
            command = command[:-1] + " " + body[position].strip()
        first = position + 1
        position = first
        while position < len(body) and not body[position].startswith("$ "):
            position += 1
        example.code.append(command)
        example.expected.append("\n".join(body[first:position]))
        example.output_span.append((start + 1 + first, start + 1 + position - 1))
    return example


def _python_example(path: Path, lines: List[str], start: int, end: int, body: List[str]) -> Example:
    example = Example(path, start + 1, "python", ["\n".join(body)], [])
    after = _next_non_blank(lines, end + 1)
    if after < len(lines) and lines[after].strip() == OUTPUT:
        fence = _next_non_blank(lines, after + 1)
        if fence >= len(lines) or not _FENCE.match(lines[fence]):
            raise ValueError(f"{path}:{after + 1}: {OUTPUT} must precede a code block")
        output_end = _fence_end(lines, fence)
        example.expected.append("\n".join(lines[fence + 1:output_end]))
        example.output_span.append((fence + 1, output_end - 1))
    return example


def example_environment() -> Dict[str, str]:
    """The environment examples run in: this interpreter's scripts first on PATH, fp32, no network, no bars."""
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment.update({"COHERENCE_METRIC_DTYPE": "fp32", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                        "TOKENIZERS_PARALLELISM": "false", "COLUMNS": "200"})
    return environment


def _words(text: str) -> List[str]:
    return _VERSIONS.sub(r"\1:*", text).split()


def outputs_match(expected: str, actual: str) -> bool:
    """Whether ``actual`` prints what ``expected`` says: the same words, numbers within 2 in their last digit,
    library versions in a signature ignored."""
    expected_words, actual_words = _words(expected), _words(actual)
    if len(expected_words) != len(actual_words):
        return False
    for want, got in zip(expected_words, actual_words):
        if want == got:
            continue
        want_number, got_number = _NUMBER.match(want), _NUMBER.match(got)
        if not (want_number and got_number) or len(want_number.group(1)) != len(got_number.group(1)):
            return False
        decimals = len(want_number.group(1))
        strip = re.compile(r"[^0-9.+-]")
        if abs(float(strip.sub("", want)) - float(strip.sub("", got))) > 2.01 * 10 ** -decimals:
            return False
    return True


def _run_console(example: Example, environment: Dict[str, str]) -> List[Tuple[str, Optional[str]]]:
    results = []
    for command in example.code:
        completed = subprocess.run(["bash", "-c", command], cwd=ROOT, env=environment, capture_output=True,
                                   text=True, timeout=600)
        error = None if completed.returncode == 0 else (f"exit status {completed.returncode}\n"
                                                       f"{completed.stderr.strip()[-2000:]}")
        results.append((completed.stdout.rstrip("\n"), error))
    return results


def _label(path: Path) -> str:
    """A page's name in messages: relative to the repository when it is in it."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def _run_python_page(examples: List[Example], environment: Dict[str, str]) -> List[Tuple[str, Optional[str]]]:
    with tempfile.TemporaryDirectory() as folder:
        blocks = Path(folder) / "blocks.json"
        results = Path(folder) / "results.json"
        blocks.write_text(json.dumps([[example.line, example.code[0]] for example in examples]), encoding="utf-8")
        completed = subprocess.run([sys.executable, "-c", _PY_RUNNER, str(blocks), str(results),
                                    _label(examples[0].path)], cwd=ROOT, env=environment,
                                   capture_output=True, text=True, timeout=900)
        if not results.exists():
            return [("", f"the interpreter failed: {completed.stderr.strip()[-2000:]}")] * len(examples)
        outputs = json.loads(results.read_text(encoding="utf-8"))
    missing = len(examples) - len(outputs)
    outputs += [{"stdout": "", "error": "not run: an earlier block of the page failed"}] * missing
    return [(output["stdout"].rstrip("\n"), output["error"]) for output in outputs]


def run_file(path: Path, update: bool = False) -> List[Failure]:
    """Run every runnable example of ``path``; with ``update``, rewrite its expected outputs with what ran."""
    examples = find_examples(path)
    environment = example_environment()
    python_examples = [example for example in examples if example.kind == "python"]
    python_results = iter(_run_python_page(python_examples, environment) if python_examples else [])
    failures: List[Failure] = []
    replacements: List[Tuple[Tuple[int, int], str]] = []
    for example in examples:
        results = _run_console(example, environment) if example.kind == "console" else [next(python_results)]
        for number, (stdout, error) in enumerate(results):
            where = example.code[number] if example.kind == "console" else "python block"
            if error:
                failures.append(Failure(example, f"{where}: {error}"))
                continue
            if number >= len(example.expected):
                continue  # a python block without an output block: it must only run
            if update:
                replacements.append((example.output_span[number], stdout))
            elif not outputs_match(example.expected[number], stdout):
                failures.append(Failure(example, f"{where}: output differs from the docs\n--- docs\n"
                                                 f"{example.expected[number]}\n--- now\n{stdout}"))
    if update and replacements:
        _rewrite(path, replacements)
    return failures


def _rewrite(path: Path, replacements: List[Tuple[Tuple[int, int], str]]) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    for (first, last), text in sorted(replacements, reverse=True):
        lines[first:last + 1] = text.split("\n") if text else []
    path.write_text("\n".join(lines), encoding="utf-8")


#: Marks an output block that cannot run in the tests (a GPU, a Ray cluster): ``<!-- not-runnable: why -->``.
NOT_RUNNABLE = "<!-- not-runnable:"


def unmarked_outputs(path: Path) -> List[str]:
    """The blocks of ``path`` that show a command's output but are no runnable example: a ``console`` or ``text``
    block, or a plain block whose first line is a ``$ command``, not right after ``<!-- runnable -->``,
    ``<!-- output -->`` or ``<!-- not-runnable: why -->``. Such a block goes stale when a score moves."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found = []
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        end = _fence_end(lines, index)
        body = [line for line in lines[index + 1:end] if line.strip()]
        shows_output = fence.group(1) in ("console", "text") or (not fence.group(1) and body
                                                                 and body[0].startswith("$ "))
        before = next((line.strip() for line in reversed(lines[:index]) if line.strip()), "")
        if shows_output and before not in (RUNNABLE, OUTPUT) and not before.startswith(NOT_RUNNABLE):
            found.append(f"{path.relative_to(ROOT).as_posix()}:{index + 1}")
        index = end + 1
    return found


def documented_files() -> List[Path]:
    """Every Markdown file whose examples are checked: README.md and the pages under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def main(argv: Optional[List[str]] = None) -> int:
    """Check (or, with --update, rewrite) the outputs of every runnable example; exit status 1 on a failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the expected outputs with what ran")
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files [default: README.md and docs/]")
    args = parser.parse_args(argv)
    failed = 0
    for path in [file.resolve() for file in args.files] or documented_files():
        for failure in run_file(path, update=args.update):
            failed += 1
            print(f"{_label(failure.example.path)}:{failure.example.line}: {failure.message}",
                  file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
