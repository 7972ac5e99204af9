"""Progress bars over both passes of a score call, on request or on a terminal, and a quiet command line."""

from __future__ import annotations

import logging
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
