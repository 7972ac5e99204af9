"""RunSettings: what every benchmark run takes, declared once and passed once."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from coherence_metric.benchmarks.agreement.human_dev import run_human_dev
from coherence_metric.benchmarks.agreement.summeval_correlation import run_summeval_correlation
from coherence_metric.benchmarks.harness.settings import RunSettings
from coherence_metric.benchmarks.localisation.cohesentia import run_cohesentia
from coherence_metric.benchmarks.localisation.corrupted_news import run_localisation
from coherence_metric.benchmarks.paper.runner import run_suite
from coherence_metric.benchmarks.speed.cpu_speed import run_speed
from coherence_metric.settings import ScorerSettings

RUNNERS = [run_suite, run_human_dev, run_summeval_correlation, run_localisation, run_cohesentia, run_speed]


def test_the_settings_are_frozen():
    settings = RunSettings(model="m", limit=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.limit = 4  # type: ignore[misc]
    assert dataclasses.replace(settings, limit=4) == RunSettings(model="m", limit=4)


@pytest.mark.parametrize("runner", RUNNERS, ids=lambda runner: runner.__name__)
def test_each_runner_takes_one_settings_and_spells_none_of_its_fields(runner):
    parameters = inspect.signature(runner).parameters
    assert parameters["settings"].annotation in (RunSettings, "RunSettings")
    assert parameters["settings"].default is inspect.Parameter.empty
    assert not set(parameters) & {field.name for field in dataclasses.fields(RunSettings)}


def test_the_scorer_settings_follow_the_run_with_the_runners_default_dtype():
    run = RunSettings(device="cpu", batch_size=4, progress=True)
    assert run.scorer_settings("fp32") == ScorerSettings(device="cpu", dtype="fp32", batch_size=4)
    assert run.scorer_settings(progress=True) == ScorerSettings(device="cpu", dtype="auto", batch_size=4,
                                                                progress=True)
    assert dataclasses.replace(run, dtype="bf16").scorer_settings("fp32").dtype == "bf16"


def test_the_docstring_describes_every_field_in_order():
    section = (RunSettings.__doc__ or "").split("Attributes:", 1)[1]
    assert re.findall(r"^ {8}(\w+): ", section, flags=re.MULTILINE) == [
        field.name for field in dataclasses.fields(RunSettings)]
