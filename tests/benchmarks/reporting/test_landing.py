"""The README's and the site's home page numbers are the reports' numbers: generated, checked, never typed.

A number on the landing page comes from ``benchmarks/reports/<checkpoint>/*.json`` through
``benchmarks/reporting/landing.py``; these tests fail when the page and the reports disagree, and show that a
report that moves moves the page.
"""

from __future__ import annotations

import json
import shutil

import pytest

from coherence_metric.benchmarks.reporting import landing

from ...conftest import REPO_DIR
from ..report_copies import REPORTS, copy_reports, set_system_tau


@pytest.mark.parametrize("page", landing.PAGES, ids=str)
def test_the_landing_pages_hold_the_reports_numbers(page):
    text = (REPO_DIR / page).read_text(encoding="utf-8")
    assert landing.block_names(text), f"{page} has no generated block"
    assert landing.render(text, landing.Reports(REPORTS), landing.docs_prefix(page)) == text, (
        f"{page} differs from benchmarks/reports: run `make tables`")


def test_the_headline_row_of_the_default_is_its_measured_summeval_interval():
    """The `default` row is the tier aliases.json names (the accurate tier since 0.9.0), read from its own report."""
    readme = (REPO_DIR / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| **default**"))
    assert f"`{landing.DEFAULT_TIER}`" in row
    report = json.loads((REPORTS / landing.DEFAULT_TIER / "summeval-correlation.json").read_text(encoding="utf-8"))
    correlations = next(r for r in report["rows"] if r["name"] == landing.DEFAULT_TIER)["correlations"]
    summary = correlations["summary"]["spearman"]
    low, high = summary["interval"]
    assert f"**{summary['value']:.3f} [{low:.3f}, {high:.3f}]**" in row


def test_a_report_that_moves_fails_the_check_and_make_tables_moves_the_page(tmp_path, capsys):
    reports = copy_reports(tmp_path)
    page = tmp_path / "README.md"
    shutil.copy(REPO_DIR / "README.md", page)
    set_system_tau(reports, landing.DEFAULT_TIER, 0.6125)
    report = json.loads((reports / landing.DEFAULT_TIER / "summeval-correlation.json").read_text(encoding="utf-8"))
    row = next(r for r in report["rows"] if r["name"] == landing.DEFAULT_TIER)
    low, high = row["correlations"]["system"]["kendall"]["interval"]
    other = next(name for checkpoint, name in landing.TIER_NAMES.items() if checkpoint != landing.DEFAULT_TIER)

    assert landing.main(["--check", "--page", str(page), "--reports", str(reports)]) == 1
    assert "run `make tables`" in capsys.readouterr().err
    assert "τ 0.613" not in page.read_text(encoding="utf-8")  # --check changes nothing

    assert landing.main(["--page", str(page), "--reports", str(reports)]) == 0
    rewritten = page.read_text(encoding="utf-8")
    assert f"Kendall τ 0.613 ({other} tier" in rewritten
    assert f"**0.613 [{low:.3f}, {high:.3f}]**" in rewritten
    assert landing.main(["--check", "--page", str(page), "--reports", str(reports)]) == 0


def test_a_missing_report_is_named_in_one_line(tmp_path, capsys):
    reports = copy_reports(tmp_path)
    (reports / landing.ACCURATE / "human-dev.json").unlink()
    page = tmp_path / "README.md"
    shutil.copy(REPO_DIR / "README.md", page)
    assert landing.main(["--check", "--page", str(page), "--reports", str(reports)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0
    assert error.endswith(f"{landing.ACCURATE}/human-dev.json: report not found (run the benchmark that writes it)")


def test_an_unknown_block_is_refused():
    with pytest.raises(landing.LandingError, match="unknown generated block 'headline'"):
        landing.render("<!-- generated:headline -->\nx\n<!-- /generated:headline -->\n", landing.Reports(REPORTS))


#: The landing page is read in a minute (not a wall of figures of every checkpoint); history
#: belongs in MODELS.md and the changelog.
README_MAX_LINES = 140


def test_the_readme_stays_a_landing_page():
    readme = (REPO_DIR / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    assert readme.index("make demo") < readme.index("## Where it stands") < readme.index("## Known limits")
