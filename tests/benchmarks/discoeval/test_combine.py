"""Several DiscoEval runs in one table beside the papers' rows: same items only, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import pytest

from coherence_metric.benchmarks.discoeval import run_discoeval
from coherence_metric.benchmarks.discoeval.combine import (
    main,
    read_discoeval_run,
    render_combined_discoeval,
    select_published,
)
from coherence_metric.errors import InputError

from .fakes import HashEncoder

TASKS = ["SP", "PDTB-E"]


@pytest.fixture(scope="module")
def reports(discoeval_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """Real DiscoEval runs (40 rows per split) of two stand-in encoders, and one on 30 rows."""
    root = tmp_path_factory.mktemp("discoeval-combine")
    paths = {}
    for name, dim, limit in (("small", 4, 40), ("large", 16, 40), ("other-limit", 4, 30)):
        result = run_discoeval(HashEncoder(dim), tasks=TASKS, limit=limit, out_dir=root / name,
                               data_dir=discoeval_dir, cache_dir=root / "cache")
        paths[name] = Path(result["outputs"]["json"])
    return paths


def test_each_run_is_a_row_beside_the_chosen_published_rows(reports: Dict[str, Path]) -> None:
    small, large = read_discoeval_run(reports["small"]), read_discoeval_run(reports["large"])
    text = render_combined_discoeval([("k=1 (ours)", small), ("k=2 (ours)", large)],
                                     select_published(["CONPONO (k=2)", "BERT-Base"]))
    sp, pdtb = small["groups"]["SP"], small["groups"]["PDTB-E"]
    assert f"| **k=1 (ours)** | this project | {sp:.1f}† | - | - | - | {pdtb:.1f} | - | - | - |" in text
    assert "| **k=2 (ours)** | this project |" in text
    assert "| CONPONO (k=2) | Iter et al. 2020 (CONPONO), Table 1 | 60.7 | 76.8 | 72.9 | 80.4 | 42.9 | 44.9 | 63.1 |" \
        " 63.0 |" in text
    assert text.count("| BERT-Base |") == 2  # both papers print a BERT-Base row, and they differ
    assert "| DisSent |" not in text
    assert "- k=2 (ours): hash-16 (`test-hash|dim=16`)" in text
    assert "(SP/arxiv, SP/wiki)" in text and "Not every group ran for k=1 (ours), k=2 (ours)" in text
    assert "Smoke runs (row limit)" in text


def test_runs_on_other_items_and_unknown_rows_are_refused(reports: Dict[str, Path]) -> None:
    small, other = read_discoeval_run(reports["small"]), read_discoeval_run(reports["other-limit"])
    with pytest.raises(InputError, match="b was evaluated with limit=30 and a with limit=40"):
        render_combined_discoeval([("a", small), ("b", other)], [])
    with pytest.raises(InputError, match="row labels must differ"):
        render_combined_discoeval([("a", small), ("a", small)], [])
    with pytest.raises(InputError, match="no published DiscoEval row named 'CONPONO k=9'"):
        select_published(["CONPONO k=9"])


def test_command_line_labels_may_contain_equals_and_bad_files_get_one_line(
        reports: Dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"CONPONO k=2={reports['small']}", "--published", "DisSent"]) == 0
    out = capsys.readouterr().out
    assert "| **CONPONO k=2** | this project |" in out and "| DisSent | Chen et al. 2019, Table 2 |" in out
    suite_report = tmp_path / "paper.json"
    suite_report.write_text(json.dumps({"suite": "paper", "test_sets": []}), encoding="utf-8")
    for argument, message in ((f"x={tmp_path / 'missing.json'}", "DiscoEval report not found"),
                              (f"x={suite_report}", "is not a DiscoEval report"),
                              ("no-label", "expected LABEL=REPORT.json")):
        with pytest.raises(SystemExit) as raised:
            main([argument])
        assert raised.value.code == 2
        error = capsys.readouterr().err
        assert message in error and error.count("\n") == 1
