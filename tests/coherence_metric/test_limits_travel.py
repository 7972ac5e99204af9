"""The limits travel with the results: a length gap between systems and the metric's known limits are in the
comparison itself, so the JSON, the Markdown and LaTeX tables and the HTML report carry them, not only stderr."""

from __future__ import annotations

import json

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.cli.tables import render_latex, render_markdown
from coherence_metric.inputs.lengths import KNOWN_LIMITS_NOTE, length_note

SHORT = ["The council met.", "Rain fell.", "The shop opened.", "Prices rose."]
LONG = ["The council met on Tuesday. It approved three new bus lines for the north of the city.",
        "Rain fell all night. By morning the river had flooded the lower fields and the road.",
        "The shop opened at nine. A queue had formed outside long before the doors opened.",
        "Prices rose in March. The central bank said it would watch the figures closely."]


@pytest.fixture(scope="module")
def comparison(bert_checkpoint):
    return CoherenceScorer(str(bert_checkpoint)).compare_systems({"terse": SHORT, "wordy": LONG},
                                                                 bootstrap_resamples=100, randomization_trials=100)


def test_a_length_gap_and_the_known_limits_are_notes_of_the_comparison(comparison):
    gap = length_note({"terse": SHORT, "wordy": LONG})
    assert gap is not None and gap.startswith("the systems' mean lengths differ by ")
    assert comparison.notes == (gap[0].upper() + gap[1:] + ".", KNOWN_LIMITS_NOTE)
    assert json.loads(comparison.to_json())["notes"] == list(comparison.notes)


def test_systems_of_one_length_carry_the_known_limits_alone(bert_checkpoint):
    assert length_note({"a": SHORT, "b": list(reversed(SHORT))}) is None
    same = CoherenceScorer(str(bert_checkpoint)).compare_systems({"a": SHORT, "b": list(reversed(SHORT))},
                                                                 bootstrap_resamples=100, randomization_trials=100)
    assert same.notes == (KNOWN_LIMITS_NOTE,)


def test_the_tables_and_the_html_report_carry_the_notes(comparison):
    markdown = render_markdown(comparison)
    assert "mean lengths differ by" in markdown and "Known limits:" in markdown
    latex = render_latex(comparison)
    caption = next(line for line in latex.splitlines() if line.startswith(r"\caption{"))
    assert "mean lengths differ by" in caption and "Known limits:" in caption
    page = comparison.to_html()
    assert "id='limits'" in page and "mean lengths differ by" in page and "Known limits:" in page
