"""A suite report survives a full disk, and what a later run reads back from one is what a run wrote.

A disk that fills while a report is rewritten is simulated by making ``Path.write_text`` write its first 4,096 bytes
and then fail with ENOSPC, as a full disk does: the run must stop with one line naming the file and leave the
previous report whole, readable by ``--resume-from``. A report's cells edited by hand (a string, NaN, ``1e308``, an
interval out of order, no results at all) are refused in one line naming the file and the cell; a carried score
part whose scores were edited, or that has no digest, is scored again.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import pathlib
from pathlib import Path
from typing import Any, Callable, List

import pytest

from coherence_metric.benchmarks.harness.cached_scores import PART_KIND
from coherence_metric.benchmarks.harness.settings import RunSettings
from coherence_metric.benchmarks.paper.carried_parts import DIGEST_FIELD, CarriedPartsCache
from coherence_metric.benchmarks.paper.runner import run_suite
from coherence_metric.benchmarks.reporting.combine import read_run
from coherence_metric.benchmarks.reporting.files import write_script_output
from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache
from coherence_metric.training.state_files import write_output, write_text_atomically

from .test_suites import _toy_sets

FULL_AFTER = 4096


def _disk_full_after(monkeypatch: pytest.MonkeyPatch, armed: Callable[[Path], bool]) -> List[Path]:
    """From now on, ``Path.write_text`` to a path ``armed`` accepts writes only their first 4,096 bytes, then fails
    with ENOSPC, as a full disk does; returns the paths it failed on."""
    real = pathlib.Path.write_text
    failed: List[Path] = []

    def write_text(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        if not armed(self):
            return real(self, data, *args, **kwargs)
        with open(self, "w", encoding="utf-8") as handle:
            handle.write(data[:FULL_AFTER])
        failed.append(self)
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(pathlib.Path, "write_text", write_text)
    return failed


# ------------------------------------------------------------------------------------------- a full disk


def test_a_full_disk_while_the_report_is_rewritten_keeps_the_previous_report_for_resume(
        bert_checkpoint, tmp_path, monkeypatch):
    settings = RunSettings(model=str(bert_checkpoint), baselines=False, cache_dir=tmp_path / "cache",
                           out_dir=tmp_path / "out")
    out = tmp_path / "out"
    monkeypatch.setattr("coherence_metric.benchmarks.paper.runner.write_suite_reports",
                        _fail_from_second_write(monkeypatch))
    with pytest.raises(InputError) as raised:
        run_suite("toy", settings, test_sets=_toy_sets())
    message = str(raised.value)
    assert "\n" not in message and str(out / "toy.json") in message and "No space left on device" in message
    report = json.loads((out / "toy.json").read_text(encoding="utf-8"))  # the first set's report, whole
    assert report["partial"] is True and [row["name"] for row in report["test_sets"]] == ["TOY-PAIRS"]
    assert not [path for path in out.iterdir() if path.name.endswith(".tmp")], "no temporary file is left"

    monkeypatch.undo()
    resumed = run_suite("toy", dataclasses.replace(settings, out_dir=tmp_path / "again",
                                                   resume_from=(out / "toy.json",)), test_sets=_toy_sets())
    assert resumed["resumed"]["test_sets"] == ["TOY-PAIRS"] and resumed["partial"] is False


def _fail_from_second_write(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``write_suite_reports`` that writes the first report, then finds the disk full for every later ``toy.json``
    (the Markdown, written first, still fits)."""
    from coherence_metric.benchmarks.reporting import write_suite_reports

    calls: List[int] = []

    def write(result: Any, out_dir: Any, chart: bool = True) -> Any:
        calls.append(1)
        if len(calls) == 2:
            _disk_full_after(monkeypatch, lambda path: Path(out_dir) in path.parents and "toy.json" in path.name)
        return write_suite_reports(result, out_dir, chart=chart)

    return write


def test_a_full_disk_under_a_scripts_output_is_one_line_and_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    target = tmp_path / "result.json"
    for write in (lambda path: write_script_output(path, json.dumps({"new": "x" * 10_000})),
                  lambda path: write_output(json.dumps({"new": "x" * 10_000}), path)):
        target.write_text('{"old": true}\n', encoding="utf-8")
        with monkeypatch.context() as patch:
            _disk_full_after(patch, lambda path: path.parent == tmp_path and path != target)
            with pytest.raises(SystemExit) as exited:
                write(target)
        assert exited.value.code == 2
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1 and str(target) in lines[0] and "No space left on device" in lines[0], lines
        assert json.loads(target.read_text(encoding="utf-8")) == {"old": True}
        assert sorted(path.name for path in tmp_path.iterdir()) == ["result.json"]


def test_a_training_record_on_a_full_disk_is_one_line_naming_it(tmp_path, monkeypatch):
    record = tmp_path / "recipe.json"
    record.write_text("{}", encoding="utf-8")
    _disk_full_after(monkeypatch, lambda path: path != record)
    with pytest.raises(InputError, match=rf"^{record}: cannot write it \(No space left on device\)"):
        write_text_atomically(json.dumps({"steps": 1}), record)
    assert record.read_text(encoding="utf-8") == "{}"


# --------------------------------------------------------------------- hand-edited --resume-from reports


@pytest.fixture(scope="module")
def finished_report(bert_checkpoint, tmp_path_factory) -> tuple:
    """A finished toy suite report (no baselines) and the settings that wrote it."""
    folder = tmp_path_factory.mktemp("report")
    settings = RunSettings(model=str(bert_checkpoint), baselines=False, cache_dir=folder / "cache",
                           out_dir=folder / "out")
    run_suite("toy", settings, test_sets=_toy_sets())
    return settings, folder / "out" / "toy.json"


def _edited(report: Path, target: Path, edit: Callable[[dict, dict], None]) -> Path:
    """A copy of ``report`` with ``edit(pairs_cell, pairs_row)`` applied to TOY-PAIRS's model cell."""
    data = json.loads(report.read_text(encoding="utf-8"))
    row = data["test_sets"][0]
    edit(next(iter(row["results"].values())), row)
    target.write_text(json.dumps(data), encoding="utf-8")  # json writes NaN and Infinity as a report may hold them
    return target


@pytest.mark.parametrize("edit, problem", [
    (lambda cell, row: cell.update(accuracy="0.9"), "accuracy must be a number in [0, 1], got '0.9'"),
    (lambda cell, row: cell.update(accuracy=float("nan")), "accuracy must be a number in [0, 1], got nan"),
    (lambda cell, row: cell.update(accuracy=1e308), "accuracy must be a number in [0, 1], got 1e+308"),
    (lambda cell, row: cell.update(accuracy_interval=["0.5", "0.7"]), "accuracy_interval must be two numbers"),
    (lambda cell, row: cell.update(accuracy_interval=[-1e308, 1e308]), "accuracy_interval must be two numbers"),
    (lambda cell, row: cell.update(accuracy_interval=[0.9, 0.1]), "low before high, got [0.9, 0.1]"),
    (lambda cell, row: cell.update(seconds="slow"), "seconds must be a number"),
    (lambda cell, row: row.update(results={}), "has no results, so it is not finished"),
])
def test_a_resumed_cell_edited_by_hand_is_one_line_naming_the_file_and_the_cell(finished_report, tmp_path, edit,
                                                                                 problem):
    settings, report = finished_report
    edited = _edited(report, tmp_path / "edited.json", edit)
    with pytest.raises(InputError) as raised:
        run_suite("toy", dataclasses.replace(settings, out_dir=tmp_path / "out", resume_from=(edited,)),
                  test_sets=_toy_sets())
    message = str(raised.value)
    assert "\n" not in message and str(edited) in message and "'TOY-PAIRS'" in message and problem in message
    assert not (tmp_path / "out").exists(), "nothing is written from a refused report"
    with pytest.raises(InputError, match="TOY-PAIRS"):
        read_run(edited)  # combine reads reports the same way


def test_a_resumed_set_missing_one_of_this_runs_systems_is_not_finished(finished_report, tmp_path):
    settings, report = finished_report
    data = json.loads(report.read_text(encoding="utf-8"))
    model = data["systems"][0]["name"]
    data["test_sets"][0]["results"] = {"someone else": data["test_sets"][0]["results"][model]}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=rf"edited.json: its TOY-PAIRS has no result of system '{model}', so it is "
                                         "not finished"):
        run_suite("toy", dataclasses.replace(settings, out_dir=None, resume_from=(edited,)), test_sets=_toy_sets())


# ------------------------------------------------------------------------------ carried score parts


def _carried_part(tmp_path: Path, edit: Callable[[dict], None]) -> tuple:
    """A part written beside an earlier run's report (as that run writes it), then ``edit``-ed there."""
    report = tmp_path / "old" / "all.json"
    CarriedPartsCache(tmp_path / "old-cache", out_dir=report.parent).write(
        PART_KIND, "NEWS-PERMUTED", "0123456789abcdef",
        {"scores": [0.25, -1.5], "n_truncated": 0, "n_windowed": 0, "seconds": 3.0})
    path = JsonCache(report.parent).path(PART_KIND, "NEWS-PERMUTED", "0123456789abcdef")
    entry = json.loads(path.read_text(encoding="utf-8"))
    edit(entry["value"])
    path.write_text(json.dumps(entry), encoding="utf-8")
    return report, path


def test_an_intact_carried_part_is_taken(tmp_path):
    report, _ = _carried_part(tmp_path, lambda part: None)
    cache = CarriedPartsCache(tmp_path / "cache", resumed_reports=[report])
    assert cache.read(PART_KIND, "NEWS-PERMUTED", "0123456789abcdef") == {
        "scores": [0.25, -1.5], "n_truncated": 0, "n_windowed": 0, "seconds": 3.0}


@pytest.mark.parametrize("edit, reason", [
    (lambda part: part["scores"].__setitem__(0, 0.75), "does not match its digest"),
    (lambda part: part.update(n_truncated=1), "does not match its digest"),
    (lambda part: part.pop(DIGEST_FIELD), "has no digest"),
])
def test_a_well_formed_but_edited_or_unsealed_part_is_scored_again_with_a_warning(tmp_path, caplog, edit, reason):
    report, path = _carried_part(tmp_path, edit)
    cache = CarriedPartsCache(tmp_path / "cache", resumed_reports=[report])
    with caplog.at_level(logging.WARNING, logger="coherence_metric.benchmarks"):
        assert cache.read(PART_KIND, "NEWS-PERMUTED", "0123456789abcdef") is None
    assert any(str(path) in record.getMessage() and reason in record.getMessage() for record in caplog.records)
    assert cache.carried == {}
