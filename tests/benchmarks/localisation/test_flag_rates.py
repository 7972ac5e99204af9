"""The rates ``explain`` prints under its flags are the ones the localisation suite measured on the check half of
CoheSentia's dev stories (never used to set a threshold): a re-run that moves them fails here until the constants
follow."""

from __future__ import annotations

import json

import pytest

from coherence_metric.analysis.sentence_breaks import CALIBRATIONS

from ...conftest import REPO_DIR


@pytest.mark.parametrize("calibration", list(CALIBRATIONS.values()), ids=lambda c: c.checkpoint)
def test_each_calibrations_printed_rates_are_its_reports_check_half(calibration):
    report = REPO_DIR / "benchmarks" / "reports" / calibration.checkpoint / "localisation_cohesentia-dev.json"
    check = json.loads(report.read_text(encoding="utf-8"))["flags"]["check"]
    rates = calibration.rates
    assert rates is not None
    assert (rates.stories, rates.coherent_stories) == (check["cap_1"]["n_stories"], check["cap_1"]["n_fully_coherent"])
    assert rates.found_capped == pytest.approx(check["cap_1"]["any"]["recall"], abs=5e-4)
    assert rates.found_uncapped == pytest.approx(check["no_cap"]["any"]["recall"], abs=5e-4)
    assert rates.coherent_flagged == pytest.approx(1 - check["cap_1"]["fully_coherent_stories_without_flag"], abs=5e-4)
