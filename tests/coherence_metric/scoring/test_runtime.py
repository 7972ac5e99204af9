"""dtype="auto": bf16 autocast where the CPU (or GPU) computes in bf16 natively, fp32 elsewhere, decided the same way
on every call, named in the signature, overridden by COHERENCE_METRIC_DTYPE or an explicit dtype."""

from __future__ import annotations

import pytest
import torch

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.scoring import runtime
from coherence_metric.scoring.runtime import DTYPE_ENV_VAR, auto_dtype, cpu_flags, resolve_dtype

CPU = torch.device("cpu")
PARAGRAPHS = ["The river rose in the night. By morning the fields were under water.",
              "Schools stayed open. The road was closed before noon. Buses took the long way round."]


@pytest.fixture
def native_bf16(monkeypatch):
    """Pretend this CPU does (True) or does not (False) report AMX-BF16/AVX512-BF16; no environment override."""
    monkeypatch.delenv(DTYPE_ENV_VAR, raising=False)

    def pretend(value: bool) -> None:
        monkeypatch.setattr(runtime, "cpu_prefers_bf16", lambda: value)

    return pretend


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu sse2 avx512f avx512_bf16 amx_tile\n\n"
                       "processor\t: 1\nflags\t\t: fpu\n")
    assert cpu_flags(cpuinfo) == {"fpu", "sse2", "avx512f", "avx512_bf16", "amx_tile"}
    assert cpu_flags(tmp_path / "absent") == frozenset()  # not Linux: no flags, so auto is fp32


@pytest.mark.parametrize("native, expected", [(True, "bf16"), (False, "fp32")])
def test_auto_follows_the_cpu_flags(native_bf16, native, expected):
    native_bf16(native)
    assert auto_dtype(CPU) == expected
    for spelling in (None, "auto", "AUTO"):
        assert resolve_dtype(spelling, CPU) == expected


def test_the_environment_variable_overrides_auto_but_not_an_explicit_dtype(native_bf16, monkeypatch):
    native_bf16(True)
    monkeypatch.setenv(DTYPE_ENV_VAR, "fp32")
    assert resolve_dtype("auto", CPU) == "fp32"
    assert resolve_dtype("bf16", CPU) == "bf16"
    monkeypatch.setenv(DTYPE_ENV_VAR, "auto")
    assert resolve_dtype(None, CPU) == "bf16"


@pytest.mark.parametrize("value, message", [
    ("int8", "unknown dtype 'int8': use auto, fp32, bf16 or fp16"),
    (3, "unknown dtype 3: use auto"),
])
def test_an_unknown_dtype_is_named(value, message):
    with pytest.raises(InputError, match=f"^{message}"):
        resolve_dtype(value, CPU)


def test_a_bad_environment_value_is_named_with_the_variable(native_bf16, monkeypatch):
    monkeypatch.setenv(DTYPE_ENV_VAR, "bf17")
    with pytest.raises(InputError, match=f"unknown dtype 'bf17' in {DTYPE_ENV_VAR}"):
        resolve_dtype("auto", CPU)
    monkeypatch.setenv(DTYPE_ENV_VAR, "fp16")
    with pytest.raises(InputError, match="fp16 is not supported on the CPU"):
        resolve_dtype(None, CPU)


@pytest.mark.parametrize("native, expected", [(True, "bf16"), (False, "fp32")])
def test_the_default_scorer_signs_with_the_dtype_auto_chose(native_bf16, bert_checkpoint, native, expected):
    native_bf16(native)
    scorer = CoherenceScorer(str(bert_checkpoint))
    assert scorer.dtype == expected
    assert f"|dtype:{expected}|" in str(scorer.score(PARAGRAPHS).signature)
    assert CoherenceScorer(str(bert_checkpoint), dtype="fp32").dtype == "fp32"  # fp32 stays selectable


def test_in_memory_models_default_to_fp32_so_training_does_not_depend_on_the_machine(native_bf16, bert_checkpoint):
    native_bf16(True)
    base = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    assert CoherenceScorer.from_model(base.model, base.tokenizer, label="x").dtype == "fp32"
    assert CoherenceScorer.from_model(base.model, base.tokenizer, label="x", dtype="auto").dtype == "bf16"


def test_the_cli_takes_auto_and_names_a_bad_dtype(native_bf16, bert_checkpoint):
    from click.testing import CliRunner

    from coherence_metric.cli import cli, score  # noqa: F401  (register the command)

    native_bf16(True)
    runner = CliRunner()
    result = runner.invoke(cli, ["score", "-", "--model", str(bert_checkpoint), "--dtype", "auto"],
                           input=PARAGRAPHS[0] + "\n")
    assert result.exit_code == 0, result.output
    assert "dtype:bf16" in result.output
    result = runner.invoke(cli, ["score", "-", "--model", str(bert_checkpoint), "--dtype", "int8"], input="x\n")
    assert result.exit_code == 2 and "'int8'" in result.stderr
