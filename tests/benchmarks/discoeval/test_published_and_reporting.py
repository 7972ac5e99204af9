"""Published rows as transcribed, group averaging, and the Markdown/JSON/PNG reports with their flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import pytest

from coherence_metric.benchmarks.discoeval import (
    GROUPS,
    PUBLISHED_ROWS,
    group_scores,
    render_markdown,
    select_tasks,
    write_reports,
)
from coherence_metric.benchmarks.discoeval.combine import select_published
from coherence_metric.benchmarks.discoeval.published import SOURCE_CHEN_2019, SOURCE_ITER_2020, published_row
from coherence_metric.benchmarks.discoeval.reporting import published_lines
from coherence_metric.errors import InputError


def test_published_rows_from_both_papers() -> None:
    assert published_row("BERT-Base", SOURCE_ITER_2020).scores == (53.1, 68.5, 58.9, 80.3, 41.9, 42.4, 58.8)
    assert published_row("CONPONO (k=2)").scores == (60.7, 76.8, 72.9, 80.4, 42.9, 44.9, 63.1)
    assert published_row("BERT-Base", SOURCE_CHEN_2019).scores == (49.1, 68.1, 58.9, 80.6, 44.0, 42.5, 58.7)
    assert published_row("BERT-Large", SOURCE_CHEN_2019).avg == 58.1
    assert len([row for row in PUBLISHED_ROWS if row.source == SOURCE_CHEN_2019]) == 14
    assert len([row for row in PUBLISHED_ROWS if row.source == SOURCE_ITER_2020]) == 7


def test_conpono_ablations_can_be_named_but_stay_out_of_suite_reports() -> None:
    assert published_row("CONPONO k=1").scores == (47.56, 66.03, 72.62, 80.15, 42.79, 43.55, 62.31)
    assert published_row("CONPONO k=1").avg == 59.29
    assert [row.model for row in select_published(["CONPONO k=1", "CONPONO (k=2)"])] == ["CONPONO (k=2)",
                                                                                       "CONPONO k=1"]
    assert not [row for row in PUBLISHED_ROWS if row.model.startswith("CONPONO k=")]
    assert published_lines([published_row("CONPONO k=1")])[0].endswith(
        "| 47.56 | 66.03 | 72.62 | 80.15 | 42.79 | 43.55 | 62.31 | 59.29 |")
    assert published_lines([published_row("CONPONO (k=2)")])[0].endswith(
        "| 60.7 | 76.8 | 72.9 | 80.4 | 42.9 | 44.9 | 63.1 | 63.0 |")


def test_our_avg_convention_reproduces_published_bert_averages() -> None:
    for row in (published_row("BERT-Base", SOURCE_CHEN_2019), published_row("BERT-Large", SOURCE_CHEN_2019),
                published_row("BERT-Base", SOURCE_ITER_2020)):
        assert sum(row.scores) / len(GROUPS) == pytest.approx(row.avg, abs=0.05)


def test_select_tasks_by_group_and_name() -> None:
    assert [t.name for t in select_tasks(["SP", "pdtb-e"])] == ["SP/wiki", "SP/arxiv", "SP/rocstory", "PDTB-E"]
    assert [t.name for t in select_tasks("RST,DC/chat")] == ["DC/chat", "RST-DT"]
    with pytest.raises(InputError, match="unknown DiscoEval task 'SPX'"):
        select_tasks(["SPX"])


def _fake_result(names: Optional[List[str]]) -> dict:
    tasks = {}
    for number, task in enumerate(select_tasks(names)):
        tasks[task.name] = {"group": task.group, "domain": task.domain, "test_accuracy": 50.0 + number,
                            "valid_accuracy": 51.0, "trained_on_valid": task.train_missing_upstream,
                            "n_train": None if task.train_missing_upstream else 10, "n_valid": 10, "n_test": 10,
                            "chosen": {"C": 0.1}}
    return {"encoder": {"name": "fake [pool=cls]", "signature": "fake|1", "spec": "fake"}, "seed": 1, "limit": 40,
            "tasks": tasks, "groups": group_scores(tasks, select_tasks(names)), "seconds": 3.0,
            "flags": {"trained_on_valid": [n for n, r in tasks.items() if r["trained_on_valid"]], "limited": True,
                      "incomplete_groups": []},
            "cache": {"hits": 0, "misses": 3, "dir": None}}


def test_partial_run_has_no_average() -> None:
    result = _fake_result(["SP/wiki", "PDTB-E"])
    assert result["groups"]["SP"] is None and result["groups"]["PDTB-E"] == 51.0 and result["groups"]["avg"] is None
    full = _fake_result(None)
    assert full["groups"]["avg"] == pytest.approx(sum(full["groups"][g] for g in GROUPS) / len(GROUPS))
    assert full["groups"]["SP"] == pytest.approx(51.0)  # mean of the three SP domains (50, 51, 52)


def test_markdown_shows_flags_and_published_rows(tmp_path: Path) -> None:
    result = _fake_result(["SP", "PDTB-E"])
    text = render_markdown(result)
    assert "| **fake [pool=cls]** | this run |" in text
    assert "| BERT-Base | Iter et al. 2020 (CONPONO), Table 1 | 53.1 | 68.5 | 58.9 | 80.3 | 41.9 | 42.4 | 58.8 |" \
        in text
    assert "| CONPONO (k=2) | Iter et al. 2020 (CONPONO), Table 1 | 60.7 | 76.8 | 72.9 | 80.4 | 42.9 | 44.9 | 63.1 |" \
        in text
    assert "| SP/wiki | 50.00 | 51.00 | yes †" in text and "SP/arxiv, SP/wiki" in text
    assert "at most 40 rows per split" in text
    outputs = write_reports(result, tmp_path)
    assert json.loads(Path(outputs["json"]).read_text())["tasks"]["SP/wiki"]["trained_on_valid"] is True
    assert Path(outputs["markdown"]).read_text() == text
    assert Path(outputs["png"]).read_bytes()[:4] == b"\x89PNG"
