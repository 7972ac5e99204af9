"""Reports and score parts carried from another machine, taken as they may be: JSON nested a hundred thousand levels
deep or holding an integer of thousands of digits is one line naming the file (a ``--resume-from`` report) or a
warning naming it and a part scored again (a carried score part), never a traceback; and a report is never written
over something that is not a regular file."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from coherence_metric.benchmarks.harness.cached_scores import PART_KIND
from coherence_metric.benchmarks.paper.carried_parts import CarriedPartsCache
from coherence_metric.benchmarks.paper.resume import read_resumable
from coherence_metric.benchmarks.reporting.files import write_reports
from coherence_metric.errors import InputError
from coherence_metric.research.cache import JsonCache

DEEP = "[" * 100_000 + "]" * 100_000
LONG_INTEGER = "7" * 5_000
CONTENTS = [DEEP, f'{{"test_sets": [], "systems": [], "seed": {LONG_INTEGER}}}']


@pytest.mark.parametrize("content", CONTENTS)
def test_a_resumed_report_too_deep_or_with_too_long_an_integer_is_one_line_naming_it(tmp_path: Path,
                                                                                    content: str) -> None:
    report = tmp_path / "all.json"
    report.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=r"^benchmark report .*all.json is not valid JSON \((nested|Exceeds)"):
        read_resumable([report], {"signature": "s"}, [], None, 0)


@pytest.mark.parametrize("content", CONTENTS)
def test_a_carried_score_part_too_deep_or_with_too_long_an_integer_is_named_and_scored_again(
        tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture) -> None:
    report = tmp_path / "old" / "all.json"
    part = JsonCache(report.parent).path(PART_KIND, "NEWS-PERMUTED", "0123456789abcdef")
    part.parent.mkdir(parents=True)
    part.write_text(content, encoding="utf-8")
    cache = CarriedPartsCache(tmp_path / "cache", resumed_reports=[report])
    with caplog.at_level(logging.WARNING, logger="coherence_metric.benchmarks"):
        assert cache.read(PART_KIND, "NEWS-PERMUTED", "0123456789abcdef") is None
    assert any(str(part) in record.getMessage() for record in caplog.records)


def test_a_report_is_never_written_over_what_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "paper.md").mkdir()
    with pytest.raises(InputError, match=r"paper.md is a folder, not a regular file: cannot write the report"):
        write_reports({"test_sets": []}, tmp_path, "paper", render=lambda result: "# paper\n")
    assert (tmp_path / "paper.md").is_dir() and not (tmp_path / "paper.json").exists()
