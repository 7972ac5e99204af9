"""Loaders: measured example counts and label sets per task and split, BSO negatives, limit subsets, bad files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from coherence_metric.benchmarks.discoeval import TASKS, get_task, load_task
from coherence_metric.benchmarks.discoeval.loaders import overlap_groups
from coherence_metric.errors import InputError

# Examples per split, measured on the shared copy (upstream commit 262b253) and matching its README; None = no
# train file upstream. BSO rows are 10,000/4,000/4,000 pairs; each pair gives the original and the swapped order.
EXPECTED_COUNTS = {
    "SP/wiki": (None, 4000, 4000),
    "SP/arxiv": (None, 4000, 4000),
    "SP/rocstory": (10000, 4000, 4000),
    "BSO/wiki": (20000, 8000, 8000),
    "BSO/arxiv": (20000, 8000, 8000),
    "BSO/rocstory": (20000, 8000, 8000),
    "DC/wiki": (None, 4000, 4000),
    "DC/chat": (5816, 1834, 2418),
    "SSP": (10000, 4000, 4000),
    "PDTB-E": (9383, 3613, 3758),
    "PDTB-I": (8693, 2972, 3024),
    "RST-DT": (17051, 2045, 2308),
}
EXPECTED_NUM_LABELS = {"SP": 5, "BSO": 2, "DC": 2, "SSP": 2, "PDTB-E": 12, "PDTB-I": 11, "RST-DT": 41}
EXPECTED_SEGMENTS = {"SP": 5, "BSO": 2, "DC": 6, "SSP": 1, "PDTB-E": 2, "PDTB-I": 2, "RST-DT": 2}


def test_every_task_has_expected_counts() -> None:
    assert sorted(EXPECTED_COUNTS) == sorted(task.name for task in TASKS)


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_counts_and_label_sets(discoeval_dir: Path, name: str) -> None:
    task = get_task(name)
    data = load_task(task, discoeval_dir)
    expected = dict(zip(("train", "valid", "test"), EXPECTED_COUNTS[name]))
    assert {split: len(examples) for split, examples in data.splits.items()} == {
        split: count for split, count in expected.items() if count is not None}
    assert data.train_from_valid == (expected["train"] is None) == task.train_missing_upstream
    assert len(data.label_names) == EXPECTED_NUM_LABELS[task.group]
    for examples in data.splits.values():
        assert all(len(example.segments) == EXPECTED_SEGMENTS[task.group] for example in examples)
        assert {example.label for example in examples} <= set(range(len(data.label_names)))
        assert all(unit for example in examples for segment in example.segments for unit in segment)


@pytest.mark.parametrize("name", ["DC/wiki", "DC/chat", "SSP", "BSO/wiki"])
def test_binary_tasks_are_balanced(discoeval_dir: Path, name: str) -> None:
    data = load_task(get_task(name), discoeval_dir)
    for examples in data.splits.values():
        counts = Counter(example.label for example in examples)
        assert counts[0] == counts[1]


def test_sp_uses_all_five_positions(discoeval_dir: Path) -> None:
    data = load_task(get_task("SP/rocstory"), discoeval_dir)
    assert Counter(example.label for example in data.splits["train"]) == {
        0: 1946, 1: 1984, 2: 1987, 3: 2084, 4: 1999}


def test_pdtb_label_names_come_from_labelset(discoeval_dir: Path) -> None:
    explicit = load_task(get_task("PDTB-E"), discoeval_dir).label_names
    implicit = load_task(get_task("PDTB-I"), discoeval_dir).label_names
    assert explicit[0] == "Comparison.Concession" and "Contingency.Pragmatic condition" in explicit
    assert "Contingency.Pragmatic cause" in implicit and explicit[-1] == implicit[-1] == "Temporal.Synchrony"


def test_rst_labels_and_subtrees(discoeval_dir: Path) -> None:
    data = load_task(get_task("RST-DT"), discoeval_dir)
    assert data.label_names == tuple(sorted(data.label_names))
    assert {"NS-Elaboration", "SN-Attribution", "NN-Joint", "NN-Textual-organization"} <= set(data.label_names)
    first = data.splits["train"][0]
    assert data.label_names[first.label] == "NS-Temporal"
    assert len(first.segments[0]) > 1  # the left subtree holds several EDUs, averaged later


def test_bso_pairs_give_both_orders(discoeval_dir: Path) -> None:
    data = load_task(get_task("BSO/arxiv"), discoeval_dir, limit=3)
    original, swapped = data.splits["test"][0], data.splits["test"][1]
    assert (original.label, swapped.label) == (1, 0)
    assert swapped.segments == original.segments[::-1]
    assert data.source_rows["test"] == 3 and len(data.splits["test"]) == 6


def test_limit_is_a_seeded_stable_subset(discoeval_dir: Path) -> None:
    task = get_task("PDTB-I")
    first = load_task(task, discoeval_dir, limit=25, seed=7)
    again = load_task(task, discoeval_dir, limit=25, seed=7)
    other = load_task(task, discoeval_dir, limit=25, seed=8)
    assert {split: len(examples) for split, examples in first.splits.items()} == {
        "train": 25, "valid": 25, "test": 25}
    assert first.splits == again.splits
    assert first.splits["test"] != other.splits["test"]
    full = load_task(task, discoeval_dir).splits["test"]
    assert all(example in full for example in first.splits["test"])


def test_dc_wiki_valid_rows_come_in_twins(discoeval_dir: Path) -> None:
    valid = load_task(get_task("DC/wiki"), discoeval_dir).splits["valid"]
    groups = overlap_groups(valid)
    assert len(set(groups.tolist())) == 2000
    assert all(valid[i].label != valid[i + 1].label and groups[i] == groups[i + 1] for i in range(0, 4000, 2))


def _write_task(folder: Path, lines: str, with_train: bool = True) -> Path:
    for split in ("train", "valid", "test") if with_train else ("valid", "test"):
        (folder / "SSP" / "abs").mkdir(parents=True, exist_ok=True)
        (folder / "SSP" / "abs" / f"{split}.txt").write_text(lines, encoding="utf-8")
    return folder


def test_malformed_row_names_file_and_line(tmp_path: Path) -> None:
    _write_task(tmp_path, "1\tA sentence .\n7\tAnother one .\n")
    with pytest.raises(InputError, match=r"train\.txt:2: label 7"):
        load_task(get_task("SSP"), tmp_path)


def test_missing_train_file_is_an_error_unless_missing_upstream(tmp_path: Path) -> None:
    _write_task(tmp_path, "1\tA sentence .\n0\tAnother one .\n", with_train=False)
    with pytest.raises(InputError, match="train.txt"):
        load_task(get_task("SSP"), tmp_path)


def test_missing_data_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="DiscoEval data folder not found"):
        load_task(get_task("SSP"), tmp_path / "nowhere")


def test_bad_limit_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="limit"):
        load_task(get_task("SSP"), tmp_path, limit=0)
