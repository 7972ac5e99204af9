"""`dtype="auto"` on a CPU picks the faster exact-enough path by measurement, not by flags: AMX
takes bf16, no bf16 flag takes fp32, AVX512-BF16 alone asks a probe whose answer is cached per machine and torch."""

from __future__ import annotations

import json

import pytest

from coherence_metric.scoring import dtype_probe, runtime
from coherence_metric.scoring.dtype_probe import BF16_MARGIN, cached_probe, choose_cpu_dtype, probe_key

AVX512_ONLY = frozenset({"avx512f", "avx512_bf16"})


def _refuse() -> dict:
    raise AssertionError("the flags decide: no probe may run")


@pytest.mark.parametrize("flags, expected", [
    (frozenset({"avx512_bf16", "amx_bf16", "amx_tile"}), "bf16"),
    (frozenset({"avx2", "fma"}), "fp32"),
    (frozenset(), "fp32"),  # not Linux: no flags read
])
def test_the_flags_decide_without_a_probe_where_they_can(flags, expected):
    assert choose_cpu_dtype(flags, _refuse) == expected


@pytest.mark.parametrize("fp32, bf16, expected", [
    (31.5, 22.2, "fp32"),       # an Intel CPU measured without AMX: bf16 30% slower (times are 1/rate)
    (23.7, 40.6, "bf16"),       # the AMD EPYC of the speed report: bf16 1.7x faster
    (1.0, 1.0 / (BF16_MARGIN * 0.99), "fp32"),  # faster, but inside the margin: the exact path wins a tie
])
def test_avx512_bf16_alone_follows_the_probe(fp32, bf16, expected):
    timings = {"fp32": 1.0 / fp32, "bf16": 1.0 / bf16}
    assert choose_cpu_dtype(AVX512_ONLY, lambda: timings) == expected


def test_the_probe_runs_once_per_machine_and_torch_and_its_answer_is_read_back(tmp_path):
    cache = tmp_path / "dtype_probe.json"
    calls = []

    def measure():
        calls.append(1)
        return {"fp32": 0.04, "bf16": 0.02}

    assert choose_cpu_dtype(AVX512_ONLY, cached_probe(AVX512_ONLY, measure, cache)) == "bf16"
    assert choose_cpu_dtype(AVX512_ONLY, cached_probe(AVX512_ONLY, measure, cache)) == "bf16"
    assert len(calls) == 1
    stored = json.loads(cache.read_text())
    key = probe_key(AVX512_ONLY)
    assert stored == {key: {"fp32": 0.04, "bf16": 0.02}}
    assert "torch " in key and "avx512_bf16" in key and "avx512f" not in key

    stored[key] = {"fp32": 0.02, "bf16": 0.04}  # another torch measured the other way: its entry is its own
    cache.write_text(json.dumps(stored))
    assert choose_cpu_dtype(AVX512_ONLY, cached_probe(AVX512_ONLY, measure, cache)) == "fp32"
    assert len(calls) == 1


@pytest.mark.parametrize("content", [
    "{not json", "[1, 2]", '{"KEY": {"fp32": "fast"}}',
    "[" * 100_000 + "]" * 100_000,  # json raises RecursionError
    '{"KEY": {"fp32": ' + "7" * 5_000 + ', "bf16": 1}}',  # over Python's 4,300 digits: a ValueError
])
def test_an_unreadable_cache_is_measured_again_and_rewritten(tmp_path, content):
    cache = tmp_path / "dtype_probe.json"
    cache.write_text(content.replace("KEY", probe_key(AVX512_ONLY)))
    probe = cached_probe(AVX512_ONLY, lambda: {"fp32": 0.03, "bf16": 0.05}, cache)
    assert choose_cpu_dtype(AVX512_ONLY, probe) == "fp32"
    assert json.loads(cache.read_text())[probe_key(AVX512_ONLY)] == {"fp32": 0.03, "bf16": 0.05}


def test_a_cache_folder_that_cannot_be_written_costs_a_probe_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    probe = cached_probe(AVX512_ONLY, lambda: {"fp32": 0.05, "bf16": 0.02}, blocker / "sub" / "dtype_probe.json")
    assert choose_cpu_dtype(AVX512_ONLY, probe) == "bf16"


def test_the_real_probe_measures_both_dtypes_on_the_scorers_code():
    timings = dtype_probe.measure_forward_seconds(repeats=1, batch=2, tokens=16)
    assert set(timings) == {"fp32", "bf16"} and all(0 < value < 60 for value in timings.values())


def test_auto_on_the_cpu_is_the_measured_choice(monkeypatch, tmp_path):
    monkeypatch.delenv(runtime.DTYPE_ENV_VAR, raising=False)
    monkeypatch.setenv("COHERENCE_METRIC_CACHE", str(tmp_path))
    monkeypatch.setattr(runtime, "cpu_flags", lambda: AVX512_ONLY)
    monkeypatch.setattr(dtype_probe, "measure_forward_seconds", lambda: {"fp32": 0.03, "bf16": 0.04})
    runtime.cpu_prefers_bf16.cache_clear()
    try:
        assert runtime.resolve_dtype("auto", runtime.resolve_device("cpu")) == "fp32"
    finally:
        runtime.cpu_prefers_bf16.cache_clear()
    assert json.loads((tmp_path / "dtype_probe.json").read_text())[probe_key(AVX512_ONLY)]["bf16"] == 0.04
