"""Reports: the table has a row per test set and a column per system, beside the paper's numbers, stand-ins marked."""

from __future__ import annotations

import json

import pytest

from coherence_metric.benchmarks.paper.published import TABLE_3, published_for
from coherence_metric.benchmarks.reporting import (
    render_speed_markdown,
    render_suite_markdown,
    write_speed_reports,
    write_suite_reports,
)
from coherence_metric.research.datasets import PROBE_NAMES

SYSTEMS = ["local:ckpt", "random", "No FT", "adjacent cosine"]


def _pairwise(accuracy: float, ties: int = 0, n: int = 100) -> dict:
    return {"n": n, "n_correct": int(accuracy * n), "n_ties": ties, "accuracy": accuracy,
            "accuracy_excluding_ties": accuracy, "n_documents": 2 * n, "n_truncated": 0, "seconds": 1.0,
            "cached": False, "reused_from": None}


def _row(name: str, metric: str = "pairwise_accuracy", notes: dict = None) -> dict:
    reference = published_for(name)
    published = None if reference is None else {
        "paper_test_set": reference.paper_test_set, "full_model": reference.full_model, "no_ft": reference.no_ft,
        "unc": reference.unc, "stand_in": reference.stand_in, "source": reference.source}
    if metric == "lmvlm_agreement":
        cell = {"n": 100, "n_model_ties": 2, "alpha": 0.41, "alpha_annotators_1_2": 0.38,
                "alpha_annotators_only": 0.5, "majority_agreement": 0.7, "majority_agreement_excluding_ties": 0.71,
                "n_documents": 200, "n_truncated": 0, "seconds": 1.0, "cached": False, "reused_from": None}
        results = {system: dict(cell) for system in SYSTEMS}
    else:
        results = {system: _pairwise(0.5 + 0.1 * index, ties=index) for index, system in enumerate(SYSTEMS)}
    return {"name": name, "n": 100, "metric": metric, "source": "test", "notes": notes or {},
            "published": published, "results": results}


def _result(rows: list) -> dict:
    return {
        "suite": "paper", "model": {"spec": "/ckpt", "label": "local:ckpt", "signature": "coherence-metric:0.1.0|x"},
        "seed": 0, "limit": None, "partial": False, "seconds": 12.0, "threads": 2,
        "cache": {"dir": "/cache", "hits": 1, "misses": 2},
        "systems": [{"name": name, "role": "model" if index == 0 else "baseline", "id": name}
                    for index, name in enumerate(SYSTEMS)],
        "test_sets": rows,
    }


def test_the_table_has_every_row_and_column_with_the_published_numbers():
    rows = [_row("SUMMEVAL", notes={"ties_excluded": 1328, "identical_text_pairs_excluded": 44}),
            _row("LMVLM", "lmvlm_agreement"), _row("WSJ-SAMPLE-PERMUTED"), _row("NEWS-INTRUSION"),
            _row("PROBE-conjunction_flip", notes={"identical_pairs": 1, "identical_pair_ids": ["37"]})]
    markdown = render_suite_markdown(_result(rows))
    header = next(line for line in markdown.splitlines() if line.startswith("| Test set"))
    assert header == ("| Test set | n | Metric | **local:ckpt** | random | No FT | adjacent cosine | Paper: full model "
                      "| Paper: No FT |")
    summeval = ("| SUMMEVAL | 100 | accuracy % | 50.00 | 60.00 (1 ties) | 70.00 (2 ties) | 80.00 (3 ties) "
                "| 67.19 | 54.93 |")
    assert summeval in markdown
    assert "| LMVLM | 100 | α (3 annotators + model) | 0.410 (2 ties) |" in markdown
    assert "| 0.473 | 0.421 |" in markdown
    assert "| LMVLM | 100 | α (rows 1-2 + model) | 0.380 |" in markdown
    assert "| LMVLM | 100 | majority agreement % | 70.00 |" in markdown
    assert "| WSJ-SAMPLE-PERMUTED ‡ |" in markdown and "98.58 (WSJ) ‡" in markdown
    assert "| NEWS-INTRUSION ‡ |" in markdown and "93.36 (INSTED-CNN) ‡" in markdown
    assert "| PROBE-conjunction_flip (Conjunction Flip) | 100 | accuracy % |" in markdown and "| 78.00 |" in markdown
    assert "1328 candidate pairs with equal human ratings" in markdown and "(ids 37)" in markdown


def test_an_accuracy_interval_is_shown_beside_the_accuracy_and_explained():
    row = _row("NEWS-PERMUTED")
    row["results"]["local:ckpt"]["accuracy_interval"] = [0.48312, 0.51977]
    markdown = render_suite_markdown(_result([row]))
    assert "| NEWS-PERMUTED ‡ | 100 | accuracy % | 50.00 [48.3, 52.0] | 60.00 (1 ties) |" in markdown
    assert "groups of pairs sharing their positive text" in markdown


def test_table_3_gives_the_full_models_number_for_every_probe():
    assert set(TABLE_3) == set(PROBE_NAMES)
    assert {probe: published_for(f"PROBE-{probe}").full_model for probe in PROBE_NAMES} == {
        "animacy_pronoun_downgrade": 100.0, "animacy_pronoun_upgrade": 100.0, "gender_pronoun_flip": 100.0,
        "past_to_future_flip": 96.0, "singular_determiner_flip": 83.2, "number_exaggerate": 80.0,
        "conjunction_flip": 78.0, "to_negation": 78.0}
    assert published_for("STORYCLOZE").full_model == 74.62 and not published_for("STORYCLOZE").stand_in
    assert published_for("INSTED-WIKI").full_model == 72.04
    assert published_for("NEWS-PERMUTED").stand_in and published_for("NEWS-PERMUTED").full_model == 98.58
    assert published_for("TOY") is None


def test_suite_reports_are_written_as_markdown_json_and_png(tmp_path):
    result = {**_result([_row("SUMMEVAL"), _row("LMVLM", "lmvlm_agreement")]), "limit": 5}
    outputs = write_suite_reports(result, tmp_path)
    assert sorted(outputs) == ["json", "markdown", "png"]
    assert outputs["json"].endswith("paper_limit5.json")
    data = json.loads((tmp_path / "paper_limit5.json").read_text(encoding="utf-8"))
    assert data["test_sets"][0]["results"]["random"]["n_ties"] == 1 and data["outputs"] == outputs
    assert (tmp_path / "paper_limit5.png").read_bytes()[:4] == b"\x89PNG"


def _speed_result() -> dict:
    run = {"n_texts": 10, "seconds": 1.0, "docs_per_second": 10.0, "peak_rss_mb": 500.0, "rss_rise_mb": 20.0,
           "weights_mb": 87.0, "peak_memory_mb": 107.0, "extrapolated_seconds": None}
    paper = {**run, "n_texts": 2, "docs_per_second": 0.5, "weights_mb": 445.0, "peak_memory_mb": 465.0,
             "extrapolated_seconds": 20.0}
    return {
        "suite": "speed", "model": {"spec": "/m", "label": "local:m", "signature": "sig", "max_length": 512,
                                    "batch_size": 32, "dtype": "fp32"},
        "device": "cpu", "threads": 2, "cpu_count": 2, "load_average": {"before": [1.0], "after": [1.0]},
        "limit": 10, "seed": 0,
        "configurations": {"ours": "ours", "ours_unsorted": "ours unsorted", "paper": "paper-faithful"},
        "paper_reference": {"config": {"d_model": 768}, "weights_mb": 445.0, "sample_per_set": 2, "max_len": 602},
        "memory_method": "psutil", "skipped_targets": [],
        "sets": [{"name": "128 tokens", "target_tokens": 128, "n_texts": 10, "mean_tokens": 128.0,
                  "runs": {"ours": run, "ours_unsorted": run, "paper": paper},
                  "ratios": {"ours_speedup": 20.0, "ours_unsorted_speedup": 20.0, "ours_memory": 0.23}}],
        "seconds": 5.0,
    }


def test_the_speed_report_gives_ratios_beside_the_absolute_numbers(tmp_path):
    markdown = render_speed_markdown(_speed_result())
    assert "| 128 tokens | 10 | 128.0 | 10.00 | 10.00 | 0.50 | 20.00× | 20.00× |" in markdown
    assert "| 128 tokens | 107 (87 + 20) | 107 (87 + 20) | 465 (445 + 20) | 0.23× |" in markdown
    assert "first 2 texts of each set" in markdown
    outputs = write_speed_reports(_speed_result(), tmp_path)
    assert outputs["markdown"].endswith("speed_limit10.md") and (tmp_path / "speed_limit10.png").is_file()


def test_the_speed_profile_has_a_column_for_every_stage_so_its_shares_add_up():
    result = _speed_result()
    profile = {"tokenise": 0.1, "sentence split": 0.0, "windowing": 0.0, "document pass": 0.3, "sentence pass": 0.0,
               "transition pass": 0.5, "other": 0.1, "wall": 1.0}
    result["sets"][0]["profiles"] = {"ours": profile}
    markdown = render_speed_markdown(result)
    assert "| transition pass | other | wall s |" in markdown
    assert "| 128 tokens | ours | 10% | 0% | 0% | 30% | 0% | 50% | 10% | 1.00 |" in markdown


@pytest.mark.parametrize("partial, expected", [(True, "(partial: still running)"), (False, "## Benchmark `paper`")])
def test_a_partial_report_says_so(partial, expected):
    assert expected in render_suite_markdown({**_result([_row("SUMMEVAL")]), "partial": partial})
