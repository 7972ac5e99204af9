"""The rates ``explain`` prints under its flags are the ones the localisation suite measured on the check half of
CoheSentia's dev stories and of the clean dev texts (never used to set a threshold): a re-run that moves them fails
here until the constants follow."""

from __future__ import annotations

import json

import pytest

from coherence_metric.analysis.sentence_breaks import CALIBRATIONS

from ...conftest import REPO_DIR


@pytest.mark.parametrize("calibration", list(CALIBRATIONS.values()), ids=lambda c: c.checkpoint)
def test_each_calibrations_printed_rates_are_its_reports_check_half(calibration):
    report = json.loads((REPO_DIR / "benchmarks" / "reports" / calibration.checkpoint
                         / "localisation_cohesentia-dev.json").read_text(encoding="utf-8"))
    check = report["flags"]["check"]
    rates = calibration.rates
    assert rates is not None
    assert (rates.stories, rates.coherent_stories) == (check["cap_1"]["n_stories"], check["cap_1"]["n_fully_coherent"])
    assert rates.found_capped == pytest.approx(check["cap_1"]["any"]["recall"], abs=5e-4)
    assert rates.found_uncapped == pytest.approx(check["no_cap"]["any"]["recall"], abs=5e-4)
    assert rates.coherent_flagged == pytest.approx(1 - check["cap_1"]["fully_coherent_stories_without_flag"], abs=5e-4)
    if "clean" not in report:  # a report from before the clean-text check: no clean-text rate to print
        assert rates.clean_texts is None and rates.clean_flagged is None
        return
    clean = report["clean"]["check"]
    assert rates.clean_texts == clean["n_texts"] and clean["by_source"]["news"]["n_texts"] > 0
    assert rates.clean_flagged == pytest.approx(clean["flagged"], abs=5e-4)


def test_the_printed_line_names_the_calibration_and_the_clean_text_rate():
    calibration = next(iter(CALIBRATIONS.values()))
    rates = calibration.rates
    assert rates is not None and rates.clean_flagged is not None
    line = rates.line(1, calibration.checkpoint)
    assert line.startswith(f"flags ({calibration.checkpoint}'s calibration)") and "\n" not in line
    assert f"a flag on {rates.clean_flagged:.0%} of {rates.clean_texts} clean texts" in line
    assert f"they found {rates.found_capped:.0%} of the sentences people marked" in line and "at --flag 1" in line
    assert f"they found {rates.found_uncapped:.0%}" in rates.line(3, calibration.checkpoint)
