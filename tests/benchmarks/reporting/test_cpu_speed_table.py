"""The speed page's table of both tiers on every CPU measured: each row read from its report, each target judged
by the tier and the CPU it was measured on."""

from __future__ import annotations

import json
import shutil

import pytest

from coherence_metric.benchmarks.reporting import cpu_speed_table, landing, targets
from coherence_metric.benchmarks.reporting.report_reader import ACCURATE, FAST, tier_label

from ..report_copies import REPORTS

OWN = REPORTS / FAST / "speed.json"


def _reports_with(tmp_path, machine: str, cpu: str, ours: float, limit: float, paper: float, label: str = FAST):
    """A reports folder with the default's own speed run and one ``cpu-speed/`` run of ``label`` edited to these
    numbers."""
    reports = tmp_path / "reports"
    (reports / FAST).mkdir(parents=True)
    shutil.copy(OWN, reports / FAST / "speed.json")
    report = json.loads(OWN.read_text(encoding="utf-8"))
    report["cpu"], report["model"]["dtype"], report["model"]["label"] = cpu, "fp32", label
    row = next(row for row in report["sets"] if row["target_tokens"] == 256)
    row["runs"] = {"ours": {**row["runs"]["ours"], "docs_per_second": ours},
                   "paper": {**row["runs"]["paper"], "docs_per_second": paper}}
    row["forward_limit"] = {"fp32": {**row["forward_limit"]["fp32"], "docs_per_second": limit}}
    row["ratios"] = {"ours_speedup": ours / paper}
    (reports / cpu_speed_table.CPU_SPEED / machine).mkdir(parents=True)
    (reports / cpu_speed_table.CPU_SPEED / machine / "speed.json").write_text(json.dumps(report), encoding="utf-8")
    return landing.Reports(reports)


def test_every_machine_is_a_row_with_its_own_numbers_and_report():
    lines = cpu_speed_table.table(landing.Reports(REPORTS)).splitlines()
    own = json.loads(OWN.read_text(encoding="utf-8"))
    at_256 = next(row for row in own["sets"] if row["target_tokens"] == 256)
    assert lines[2].startswith(f"| {tier_label(FAST)} | {own['cpu']} | {own['model']['dtype']} | "
                               f"{at_256['runs']['ours']['docs_per_second']:.1f} | ")
    assert lines[2].endswith(f"| `{FAST}/speed.json` |")
    assert lines[3].startswith(f"| {tier_label(ACCURATE)} | ")
    assert lines[3].endswith(f"| `{ACCURATE}/speed_limit200.json` |")
    assert f"(≥ {targets.times(targets.load().speed.accurate_min_ratio)}×: " in lines[3]
    measured = sorted((REPORTS / cpu_speed_table.CPU_SPEED).glob("*/speed*.json"))
    assert len(lines) == 4 + len(measured) and measured


def test_the_reference_target_is_the_native_bf16_one_with_amx_or_avx512_bf16_and_the_other_elsewhere(tmp_path):
    # targets.toml's one speed rule: a ratio between the two targets misses where the CPU has native bf16 (AMX, or
    # AVX512-BF16 alone) and meets the target of a CPU without it.
    speed = targets.load().speed
    native, other = targets.times(speed.cpu_native_bf16_min_ratio), targets.times(speed.cpu_other_min_ratio)
    assert speed.cpu_other_min_ratio < 45.0 < speed.cpu_native_bf16_min_ratio
    table = cpu_speed_table.table(_reports_with(tmp_path, "intel-amx", "Intel Xeon (amx_bf16, avx512_bf16)",
                                                ours=45.0, limit=46.0, paper=1.0))
    assert f"| 98%: met | 45.0× (≥ {native}×: missed) |" in table
    table = cpu_speed_table.table(_reports_with(tmp_path / "d", "amd-bf16", "AMD EPYC (avx512_bf16)",
                                                ours=45.0, limit=46.0, paper=1.0))
    assert f"| 98%: met | 45.0× (≥ {native}×: missed) |" in table
    table = cpu_speed_table.table(_reports_with(tmp_path / "b", "amd-avx2", "AMD EPYC (no native bf16)",
                                                ours=45.0, limit=46.0, paper=1.0))
    assert f"| 98%: met | 45.0× (≥ {other}×: met) |" in table
    table = cpu_speed_table.table(_reports_with(tmp_path / "c", "amd-avx2", "AMD EPYC (no native bf16)",
                                                ours=13.0, limit=15.5, paper=0.53))
    assert (f"| {tier_label(FAST)} | AMD EPYC (no native bf16) | fp32 | 13.0 | 13.0 | 84%: missed "
            f"| 24.5× (≥ {other}×: missed) | 1,000 |") in table


def test_the_accurate_tier_is_held_to_8x_on_every_cpu(tmp_path):
    table = cpu_speed_table.table(_reports_with(tmp_path, "amd-avx2-accurate", "AMD EPYC (no native bf16)",
                                                ours=1.2, limit=1.3, paper=0.5, label=ACCURATE))
    accurate = targets.times(targets.load().speed.accurate_min_ratio)
    assert (f"| {tier_label(ACCURATE)} | AMD EPYC (no native bf16) | fp32 | 1.2 | 1.2 | 92%: met "
            f"| 2.4× (≥ {accurate}×: missed) |" in table)


def test_a_run_of_another_checkpoint_is_refused_in_one_line(tmp_path):
    reports = _reports_with(tmp_path, "amd-avx2", "AMD EPYC (no native bf16)", ours=13.0, limit=15.5, paper=0.53)
    path = reports.folder / cpu_speed_table.CPU_SPEED / "amd-avx2" / "speed.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    report["model"]["label"] = "cm-minilm-2026.11"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(landing.LandingError, match=r"amd-avx2/speed.json: measures cm-minilm-2026.11, not "
                                                   rf"{FAST} or {ACCURATE}"):
        cpu_speed_table.table(reports)


def test_no_speed_report_at_all_names_the_command(tmp_path):
    with pytest.raises(landing.LandingError, match=r"no CPU speed report of .* \(run coherence-metric benchmark "
                                                   r"speed\)"):
        cpu_speed_table.table(landing.Reports(tmp_path))
