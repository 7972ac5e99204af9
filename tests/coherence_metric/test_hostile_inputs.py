"""Settings of the wrong type, system names that print alike or carry markup, and a dtype probe cache that is no
small regular file: each is refused in one line or ignored, never taken for what it pretends to be."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

import coherence_metric
from coherence_metric import InputError, ScorerSettings
from coherence_metric.cli.tables import markdown_label
from coherence_metric.scoring.dtype_probe import MAX_CACHE_BYTES, cached_probe, choose_cpu_dtype, probe_key

from .cli_helpers import assert_one_line_error, invoke

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Everyone agreed to build a wall. The town held a meeting.",
         "She trained for a year. In May she ran her first marathon."]
AVX512_ONLY = frozenset({"avx512f", "avx512_bf16"})


# ------------------------------------------------------------------------------------- settings' types


@pytest.mark.parametrize("kwargs, message", [
    ({"local_files_only": "no"}, "local_files_only must be True or False, got 'no'"),
    ({"local_files_only": None}, "local_files_only must be True or False, got None"),
    ({"progress": "no"}, "progress must be True or False, got 'no'"),
    ({"progress": 1}, "progress must be True or False, got 1"),
    ({"revision": ["main"]}, "revision must be a string (a branch, tag or commit) or None, got ['main']"),
    ({"max_length": "256"}, "max_length must be a positive integer, got '256'"),
    ({"max_length": True}, "max_length must be a positive integer, got True"),
    ({"device": ["cpu"]}, "device must be a string such as 'cpu', 'cuda' or 'cuda:1', got ['cpu']"),
    ({"dtype": 16}, "dtype must be one of auto, fp32, bf16, fp16 (a string), got 16"),
    ({"truncation": ["warn"]}, "truncation must be one of warn, error, window (a string), got ['warn']"),
])
def test_a_setting_of_the_wrong_type_is_one_line_naming_it(kwargs, message):
    with pytest.raises(InputError) as caught:
        ScorerSettings(**kwargs)
    assert str(caught.value) == message


def test_a_list_revision_through_score_is_an_input_error_not_a_type_error():
    with pytest.raises(InputError, match=r"^revision must be a string"):
        coherence_metric.score(TEXTS, model="acme/some-model", revision=["main"])


def test_well_typed_settings_are_still_accepted():
    import torch

    settings = ScorerSettings(device=torch.device("cpu"), dtype=torch.float32, max_length=64, revision="v1",
                              local_files_only=True, progress=False)
    assert settings.local_files_only is True and settings.max_length == 64


# ---------------------------------------------------------------------------------- system names


def _files(tmp_path: Path, names) -> list:
    paths = []
    for index, name in enumerate(names):
        path = tmp_path / name
        path.write_text("\n".join(TEXTS[index:] + TEXTS[:index]) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("command", ["compare", "report"])
def test_labels_that_print_alike_are_refused(runner, bert_checkpoint, tmp_path, command):
    files = _files(tmp_path, ["a.txt", "b.txt", "c.txt"])
    extra = ["-o", str(tmp_path / "report.html")] if command == "report" else []
    result = invoke(runner, [command, *files, "--label", "X", "--label", "X\u200b", "--label", " X ", "-i", "lines",
                             "--model", str(bert_checkpoint), *extra])
    assert_one_line_error(result, "--label 'X' and 'X\\u200b' print as the same system name")
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("command", ["compare", "report"])
def test_file_names_that_print_alike_are_refused(runner, bert_checkpoint, tmp_path, command):
    files = _files(tmp_path, ["X", "X\u200b", "\uff38"])  # X, X + zero-width space, full-width X
    extra = ["-o", str(tmp_path / "report.html")] if command == "report" else []
    result = invoke(runner, [command, *files, "-i", "lines", "--model", str(bert_checkpoint), *extra])
    assert_one_line_error(result, "print as the same system name: give each a --label")


def test_a_name_given_twice_as_it_is_keeps_the_compare_tie_check(runner, bert_checkpoint, tmp_path):
    files = _files(tmp_path, ["a.txt"])
    result = invoke(runner, ["compare", files[0], files[0], "-i", "lines", "--model", str(bert_checkpoint),
                             "--bootstrap", "100", "--trials", "100"])
    assert result.exit_code == 0, result.output


HOSTILE = "<b>bold</b> *em* _u_ `code` [link](x) | pipe"


def test_markdown_labels_show_markup_as_written():
    shown = markdown_label(HOSTILE)
    assert shown == ("\\<b\\>bold\\</b\\> \\*em\\* \\_u\\_ \\`code\\` \\[link\\](x) \\| pipe")


def test_score_markdown_escapes_html_and_emphasis_in_labels(runner, bert_checkpoint, tmp_path):
    path = tmp_path / "<b>x*y*"
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    result = invoke(runner, ["score", str(path), "-i", "lines", "-f", "markdown", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")][1:1 + len(TEXTS)]
    assert all("\\<b\\>x\\*y\\*:" in row and "<b>" not in row for row in rows), rows


def test_compare_markdown_escapes_markup_in_system_names(runner, bert_checkpoint, tmp_path):
    files = _files(tmp_path, ["a.txt", "b.txt", "c.txt"])
    result = invoke(runner, ["compare", *files, "--label", "<i>A</i>", "--label", "*B*", "--label", "C_1_",
                             "-i", "lines", "-f", "markdown", "--model", str(bert_checkpoint),
                             "--bootstrap", "100", "--trials", "100"])
    assert result.exit_code == 0, result.output
    table = result.stdout
    assert "<i>" not in table and "\\<i\\>A\\</i\\>" in table and "\\*B\\*" in table and "C\\_1\\_" in table


def test_latex_cells_hold_no_raw_line_breaks_or_tabs(runner, bert_checkpoint, tmp_path):
    path = tmp_path / "a\tb\nc%<d>"
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    result = invoke(runner, ["score", str(path), "-i", "lines", "-f", "latex", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line.endswith(r"\\") and "a b c" in line]
    assert len(rows) == len(TEXTS) and "\t" not in result.stdout, result.stdout
    assert all(r"a b c\%\textless{}d\textgreater{}:" in row for row in rows), rows


# ----------------------------------------------------------------------------- the dtype probe cache


def _measured(calls: list):
    def measure():
        calls.append(1)
        return {"fp32": 0.02, "bf16": 0.04}

    return measure


def test_a_cache_linked_to_dev_zero_is_not_read(tmp_path):
    cache = tmp_path / "dtype_probe.json"
    os.symlink("/dev/zero", cache)
    calls: list = []
    assert choose_cpu_dtype(AVX512_ONLY, cached_probe(AVX512_ONLY, _measured(calls), cache)) == "fp32"
    assert calls == [1]


def test_a_cache_larger_than_its_bound_is_not_read(tmp_path):
    cache = tmp_path / "dtype_probe.json"
    entries = {f"machine {index}": {"fp32": 1.0, "bf16": 1.0} for index in range(MAX_CACHE_BYTES // 20)}
    entries[probe_key(AVX512_ONLY)] = {"fp32": 0.04, "bf16": 0.01}
    cache.write_text(json.dumps(entries), encoding="utf-8")
    assert cache.stat().st_size > MAX_CACHE_BYTES
    calls: list = []
    assert choose_cpu_dtype(AVX512_ONLY, cached_probe(AVX512_ONLY, _measured(calls), cache)) == "fp32"
    assert calls == [1]


@pytest.mark.parametrize("timings", [
    {"fp32": 1.0, "bf16": -1.0}, {"fp32": math.inf, "bf16": 0.5}, {"fp32": 1.0, "bf16": 0.0},
    {"fp32": 1.0, "bf16": math.nan}, {"fp32": True, "bf16": 0.5},
])
def test_a_cached_timing_that_is_not_finite_and_positive_is_measured_again(tmp_path, timings):
    cache = tmp_path / "dtype_probe.json"
    cache.write_text(json.dumps({probe_key(AVX512_ONLY): timings}), encoding="utf-8")
    calls: list = []
    assert choose_cpu_dtype(AVX512_ONLY, cached_probe(AVX512_ONLY, _measured(calls), cache)) == "fp32"
    assert calls == [1]
    assert json.loads(cache.read_text(encoding="utf-8"))[probe_key(AVX512_ONLY)] == {"fp32": 0.02, "bf16": 0.04}
