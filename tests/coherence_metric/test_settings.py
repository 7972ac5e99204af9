"""ScorerSettings: the scorer's options declared once, frozen, passed once."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys

import pytest

import coherence_metric
from coherence_metric import CoherenceScorer, InputError, ScorerSettings
from coherence_metric.errors import UnknownSettingError

from ..conftest import REPO_DIR

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "By morning the lower fields were under water. The river rose slowly through the night."]
NAMES = ("device", "dtype", "batch_size", "max_length", "truncation", "revision", "local_files_only",
         "max_tokens_per_batch", "progress")


def test_the_settings_are_frozen_hashable_and_equal_by_value():
    settings = ScorerSettings(dtype="fp32", batch_size=8)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.batch_size = 4  # type: ignore[misc]
    assert settings == ScorerSettings(batch_size=8, dtype="fp32") and hash(settings) == hash(
        ScorerSettings(batch_size=8, dtype="fp32"))
    assert ScorerSettings(dtype=None) == ScorerSettings()  # None is "auto", one cache key for both
    assert ScorerSettings.names() == NAMES


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size must be a positive integer, got 0"),
    ({"batch_size": True}, "batch_size must be a positive integer, got True"),
    ({"truncation": "drop"}, "unknown truncation 'drop': choose one of warn, error, window"),
    ({"max_tokens_per_batch": 1.5}, "max_tokens_per_batch must be a positive integer, got 1.5"),
])
def test_a_bad_value_is_refused_when_the_settings_are_built(kwargs, message):
    with pytest.raises(InputError) as caught:
        ScorerSettings(**kwargs)
    assert str(caught.value) == message


def test_overrides_replace_the_settings_values_and_an_unknown_name_is_one_line():
    base = ScorerSettings(batch_size=8)
    assert ScorerSettings.of(base, {"truncation": "warn"}) == ScorerSettings(batch_size=8, truncation="warn")
    assert ScorerSettings.of(base) is base and ScorerSettings.of() == ScorerSettings()
    with pytest.raises(UnknownSettingError) as caught:
        ScorerSettings.of(base, {"batch_sise": 4})
    message = str(caught.value)
    assert message == ("unknown setting 'batch_sise' (did you mean batch_size?): the scorer's settings are "
                       + ", ".join(NAMES))
    assert isinstance(caught.value, InputError) and isinstance(caught.value, TypeError)
    with pytest.raises(InputError, match="settings must be a ScorerSettings, got dict"):
        ScorerSettings.of({"batch_size": 4})  # type: ignore[arg-type]


@pytest.mark.parametrize("call", [
    lambda: coherence_metric.score(TEXTS, model="no/such-model", batch_sise=4),
    lambda: coherence_metric.compare(TEXTS[0], TEXTS[1], model="no/such-model", batch_sise=4),
    lambda: coherence_metric.get_scorer("no/such-model", batch_sise=4),
    lambda: CoherenceScorer("no/such-model", batch_sise=4),
    lambda: coherence_metric.diagnose(TEXTS, "no/such-model", batch_sise=4),
    lambda: coherence_metric.score_dataframe(__import__("pandas").DataFrame({"text": TEXTS}), model="no/such-model",
                                             batch_sise=4),
    lambda: __import__("coherence_metric.integrations.hf_evaluate", fromlist=["compute"]).compute(
        TEXTS, model="no/such-model", batch_sise=4),
    lambda: __import__("coherence_metric.distributed", fromlist=["score_dataset"]).score_dataset(
        object(), model="no/such-model", batch_sise=4),
], ids=["score", "compare", "get_scorer", "CoherenceScorer", "diagnose", "score_dataframe", "hf_evaluate",
        "score_dataset"])
def test_every_entry_point_names_an_unknown_setting_before_any_model_loads(call):
    with pytest.raises(UnknownSettingError, match=r"^unknown setting 'batch_sise' \(did you mean batch_size\?\)"):
        call()


def test_equal_settings_however_given_share_one_cached_scorer(bert_checkpoint):
    model = str(bert_checkpoint)
    settings = ScorerSettings(max_tokens_per_batch=4097)  # a cache key no other test uses
    first = coherence_metric.get_scorer(model, settings=settings)
    assert coherence_metric.get_scorer(model, max_tokens_per_batch=4097) is first
    assert coherence_metric.get_scorer(model, settings=ScorerSettings(), max_tokens_per_batch=4097, dtype=None) \
        is first
    assert coherence_metric.get_scorer(model, settings=settings, batch_size=2) is not first
    assert first.settings == settings and first.max_tokens_per_batch == 4097


def test_keyword_settings_score_as_before(bert_checkpoint):
    model = str(bert_checkpoint)
    by_name = coherence_metric.score(TEXTS, model=model, device="cpu", dtype="fp32", batch_size=1).scores
    scorer = CoherenceScorer(model, settings=ScorerSettings(device="cpu", dtype="fp32", batch_size=1))
    assert scorer.batch_size == 1 and scorer.dtype == "fp32" and scorer.truncation == "window"
    assert by_name == scorer.score(TEXTS).scores
    # batch_size=1 as above: padding two texts into one batch moves fp32 sums in the last bits on some CPUs (AVX2)
    result = coherence_metric.compare(TEXTS[0], TEXTS[1], model=model, dtype="fp32", truncation="warn", batch_size=1)
    assert (result.score_a, result.score_b) == tuple(scorer.score(TEXTS).scores)
    assert CoherenceScorer(model, settings=ScorerSettings(batch_size=2), batch_size=3).batch_size == 3  # names win


def test_the_torchmetrics_metric_passes_its_settings_to_the_cached_scorer(bert_checkpoint):
    pytest.importorskip("torchmetrics")
    from coherence_metric.integrations.torchmetrics_metric import CoherenceMetric

    model = str(bert_checkpoint)
    metric = CoherenceMetric(model, batch_size=5, sync_on_compute=False)
    assert metric._scorer() is coherence_metric.get_scorer(model, batch_size=5)
    assert CoherenceMetric(model, settings=ScorerSettings(batch_size=5))._scorer() is metric._scorer()


def test_importing_the_settings_loads_no_torch():
    code = ("import sys; from coherence_metric import ScorerSettings; ScorerSettings(batch_size=2); "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def _attributes_section(docstring: str) -> list:
    section = docstring.split("Attributes:", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^ {8}(\w+): ", section, flags=re.MULTILINE)


def test_the_docstring_describes_every_setting_in_order():
    assert _attributes_section(ScorerSettings.__doc__ or "") == list(NAMES)


def test_the_python_guide_lists_every_setting_with_its_default():
    page = (REPO_DIR / "docs" / "python.md").read_text(encoding="utf-8")
    table = page.split("| setting | default | meaning |", 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
    cells = [[cell.strip().strip("`") for cell in row.strip("|").split(" | ")] for row in table]
    assert [name for name, _, _ in cells] == [field.name for field in dataclasses.fields(ScorerSettings)]
    assert [ast.literal_eval(default) for _, default, _ in cells] == [
        field.default for field in dataclasses.fields(ScorerSettings)]
