"""Progress bars over both passes of a score call, on request or on a terminal, and a quiet command line."""

from __future__ import annotations

import logging
import time
import warnings

import pytest
from click.testing import CliRunner

from coherence_metric import CoherenceScorer
from coherence_metric.cli import cli

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "The town held a meeting. Everyone agreed to build a wall. Work began the next day."]


def test_both_passes_show_a_bar_and_scores_do_not_change(capfd):
    """cm-minilm-2026.11 has a sentence-level term, so a call runs the document model and the sentence encoder."""
    quiet = CoherenceScorer("cm-minilm-2026.11").score(TEXTS).scores
    assert capfd.readouterr().err == ""
    shown = CoherenceScorer("cm-minilm-2026.11", progress=True).score(TEXTS).scores
    err = capfd.readouterr().err
    assert "coherence: documents: 100%" in err and "coherence: sentences: 100%" in err
    assert shown == pytest.approx(quiet, abs=1e-6)


@pytest.fixture
def lines_file(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    return str(path)


def _invoke(args):
    from coherence_metric.cli import score  # noqa: F401  (registers the command)

    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_the_cli_shows_bars_only_when_asked_off_a_terminal(bert_checkpoint, lines_file):
    plain = _invoke(["score", lines_file, "-i", "lines", "--model", str(bert_checkpoint)])
    assert plain.exit_code == 0 and "coherence: documents" not in plain.stderr  # CliRunner's stderr is no terminal
    shown = _invoke(["score", lines_file, "-i", "lines", "--model", str(bert_checkpoint), "--progress"])
    assert shown.exit_code == 0 and "coherence: documents: 100%" in shown.stderr
    assert shown.stdout == plain.stdout


def test_quiet_silences_warnings_for_the_command_only(bert_checkpoint, lines_file):
    args = ["score", lines_file, "-i", "lines", "--model", str(bert_checkpoint), "--max-length", "12",
            "--truncation", "warn"]
    logger = logging.getLogger("coherence_metric")
    level = logger.level
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet = _invoke([*args, "--quiet"])
        quiet_warnings = list(caught)
        loud = _invoke(args)
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet_warnings == []
    assert any("were longer than max_length=12" in str(warning.message) for warning in caught)
    assert quiet.stdout == loud.stdout
    assert logger.level == level


def _slow(count, seconds):
    for index in range(count):
        time.sleep(seconds)
        yield index


def test_the_line_clock_runs_across_passes(capsys):
    """Passes each shorter than the interval still print a line once the interval has passed since the last one:
    a compare scoring systems one after another printed nothing for minutes."""
    from coherence_metric.scoring.progress import DOCUMENTS, progress_lines, progress_scope, with_progress

    with progress_lines(interval=0.1):
        for name in ("A", "B", "C"):
            with progress_scope(f"system {name} ({name.lower()}.txt)"):
                assert list(with_progress(_slow(3, 0.04), False, DOCUMENTS, 3)) == [0, 1, 2]
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("coherence: system ") for line in lines)
    assert any(line.startswith("coherence: system B (b.txt): documents: 1/3 batches (33%), ") for line in lines)


def test_a_compare_names_the_system_each_progress_line_counts(tmp_path, bert_checkpoint, monkeypatch):
    from coherence_metric.cli import compare  # noqa: F401  (registers the command)
    from coherence_metric.scoring import progress

    files = []
    for name, texts in (("a.txt", TEXTS * 2), ("b.txt", TEXTS[::-1] * 2)):
        (tmp_path / name).write_text("\n".join(texts) + "\n", encoding="utf-8")
        files.append(str(tmp_path / name))
    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)  # every batch is "30 s later"
    result = _invoke(["compare", *files, "-i", "lines", "--label", "base", "--label", "tuned", "--batch-size", "1",
                      "--bootstrap", "100", "--trials", "100", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("coherence: ")]
    assert any(line.startswith(f"coherence: system base ({files[0]}): documents: 1/") for line in lines), lines
    assert any(line.startswith(f"coherence: system tuned ({files[1]}): documents: ") for line in lines), lines
