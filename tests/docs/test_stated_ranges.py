"""Ranges the docs state in prose are the ones the command line enforces: a docs line that drifts from the code
fails here (the ranges in ``--help`` come from the same constants)."""

from __future__ import annotations

from coherence_metric.statistics.bootstrap import MAX_RESAMPLES, MIN_CLI_RESAMPLES
from coherence_metric.statistics.significance import MAX_TRIALS, MIN_CLI_TRIALS

from ..conftest import REPO_DIR


def _flat(path: str) -> str:
    return " ".join((REPO_DIR / path).read_text(encoding="utf-8").split())


def test_reading_scores_states_the_clis_bootstrap_and_trials_ranges():
    text = _flat("docs/reading-scores.md")
    assert (f"`--bootstrap` takes {MIN_CLI_RESAMPLES:,} to {MAX_RESAMPLES:,} resamples and `--trials` "
            f"{MIN_CLI_TRIALS:,} to {MAX_TRIALS:,} trials") in text
    assert f"`score`'s `--bootstrap` takes 0 (no interval) to {MAX_RESAMPLES:,}" in text


def test_the_explain_page_states_the_sentence_limit_explain_enforces():
    from coherence_metric.analysis.explain import MAX_EXPLAIN_SENTENCES

    assert f"refuses a text of more than {MAX_EXPLAIN_SENTENCES} sentences" in _flat("docs/explain.md")


def test_the_command_line_page_states_the_input_cap_and_the_part_size():
    from coherence_metric.inputs.files import MAX_INPUT_BYTES
    from coherence_metric.scorer import PART_TEXTS

    text = _flat("docs/command-line.md")
    assert MAX_INPUT_BYTES == 1 << 30 and "read up to 1 GiB" in text
    assert f"scored {PART_TEXTS:,} at a time" in text
