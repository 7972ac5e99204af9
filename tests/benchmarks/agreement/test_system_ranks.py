"""The per-system view of SummEval: each system's place under the experts and under a metric, and
each one's lean on length, on the real ratings and the published RoBERTa-large predictions."""

from __future__ import annotations

import pytest

from coherence_metric.benchmarks.agreement.correlation import correlate
from coherence_metric.benchmarks.agreement.summeval_correlation import SUMMARIZER_IDS, published_scores, rating_table
from coherence_metric.benchmarks.agreement.system_ranks import SUMMEVAL_EXTRACTIVE, system_table
from coherence_metric.benchmarks.harness.baselines import WordCountBaseline
from coherence_metric.benchmarks.reporting.correlation_markdown import REFERENCE_ROW, render_correlation_markdown
from coherence_metric.research.datasets.ratings import load_summeval_ratings


@pytest.fixture(scope="module")
def summeval(shared_data):
    return load_summeval_ratings(shared_data)


@pytest.fixture(scope="module")
def table(summeval, shared_data):
    roberta = published_scores(summeval, shared_data)[REFERENCE_ROW]
    words = WordCountBaseline().score([list(text.sentences) for text in summeval.texts])
    names = {model_id: name for name, model_id in SUMMARIZER_IDS.items()}
    return system_table(summeval, {REFERENCE_ROW: roberta, "word count": words}, names, SUMMEVAL_EXTRACTIVE)


def test_systems_come_in_the_experts_order_with_their_names_and_kind(table):
    rows = table["systems"]
    assert [row["experts"]["rank"] for row in rows] == list(range(1, 17))
    means = [row["experts"]["mean"] for row in rows]
    assert means == sorted(means, reverse=True) and all(row["texts"] == 100 for row in rows)
    lead = next(row for row in rows if row["system"] == "M0")
    assert lead["name"] == "LEAD-3" and lead["extractive"]
    # The reading: people rank the extractive systems well (three of them 5th, 11th and 12th of 16).
    assert {5, 11, 12} <= {row["experts"]["rank"] for row in rows if row["extractive"]}


def test_length_leans_are_measured_on_the_system_means(table, summeval, shared_data):
    lean = table["length_kendall"]
    assert lean["word count"] == pytest.approx(1.0)  # word count ranks systems by length, by construction
    assert lean["experts"] == pytest.approx(0.0, abs=0.05)  # the experts' means do not follow length
    # The ranks are those of the system level: RoBERTa-large's Kendall τ with the experts over these means is the
    # correlation table's system τ.
    roberta = published_scores(summeval, shared_data)[REFERENCE_ROW]
    system = correlate(rating_table(summeval.texts, roberta), levels=("system",), correlations=("kendall",),
                       resamples=0)["system"]["kendall"].value
    rows = table["systems"]
    agree = sum((a["experts"]["rank"] - b["experts"]["rank"]) * (a[REFERENCE_ROW]["rank"] - b[REFERENCE_ROW]["rank"])
                > 0 for index, a in enumerate(rows) for b in rows[index + 1:])
    assert system == pytest.approx((2 * agree - 120) / 120)  # 16 systems: 120 pairs, no ties


def test_the_markdown_lists_each_system_beside_the_reference(table):
    result = {"model": {"label": "m", "signature": "s"}, "data": {"texts": 1600, "articles": 100, "systems": 16,
                                                                "pairs": 1, "rating": "r"},
              "protocol": {key: "p" for key in ("summary", "kendall", "system", "dataset", "intra_system",
                                                "interval", "pairwise")},
              "rows": [{"name": REFERENCE_ROW, "kind": "published predictions", "correlations": {}}],
              "per_system": table}
    markdown = render_correlation_markdown(result)
    assert "### Per system" in markdown and f"{REFERENCE_ROW}: mean (rank)" in markdown
    lead = next(line for line in markdown.splitlines() if line.startswith("| M0 LEAD-3 |"))
    assert "| yes |" in lead
    assert f"experts {table['length_kendall']['experts']:+.3f}" in markdown
