"""Splits are by document id: stable, 90/5/5, disjoint, and the same ones the benchmarks hold out."""

from __future__ import annotations

from collections import Counter

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research.documents import Document
from coherence_metric.research.splits import SPLITS, duplicate_ids, held_out_documents, split_of
from coherence_metric.training.data import read_split, split_path
from coherence_metric.training.data.prepare import prepare_dataset

PINNED_REUTERS = {1: "train", 7: "dev", 35: "dev", 44: "test", 63: "test"}


@pytest.fixture(scope="module")
def prepared(shared_data, tmp_path_factory):
    """lee, wsj and tales prepared in full with the default recipe (about 2 s)."""
    out_dir = tmp_path_factory.mktemp("prepared")
    manifest = prepare_dataset(["lee", "wsj", "tales"], out_dir, data_dir=shared_data)
    return out_dir, manifest


def test_split_of_is_stable_and_near_90_5_5():
    assert split_of("reuters:1") == split_of("reuters:1")
    shares = Counter(split_of(f"corpus:{n}") for n in range(20_000))
    assert shares["train"] / 20_000 == pytest.approx(0.90, abs=0.01)
    assert shares["dev"] / 20_000 == pytest.approx(0.05, abs=0.01)
    assert shares["test"] / 20_000 == pytest.approx(0.05, abs=0.01)
    assert split_of("anything:1", held_out_only=True) == "test"


def test_split_of_pinned_values():
    # sha256-based, so identical on every machine and Python version; a change here would move documents
    # between splits and leak test documents into training.
    assert {split_of(f"wsj:wsj_{n:04d}") for n in range(1, 200)} == set(SPLITS)
    assert split_of("bbc:business/001") == "train"
    assert {n: split_of(f"reuters:{n}") for n in (1, 7, 35, 44, 63)} == PINNED_REUTERS


@pytest.mark.slow
def test_no_document_in_two_splits(prepared):
    out_dir, _ = prepared
    doc_ids = {split: {item.doc_id for item in read_split(split_path(out_dir, split))} for split in SPLITS}
    assert not doc_ids["train"] & doc_ids["dev"]
    assert not doc_ids["train"] & doc_ids["test"]
    assert not doc_ids["dev"] & doc_ids["test"]
    for split, ids in doc_ids.items():
        assert all(split_of(doc_id, doc_id.startswith("wsj:")) == split for doc_id in ids)


def test_wsj_is_all_test(prepared):
    out_dir, manifest = prepared
    assert manifest["counts_by_corpus"]["wsj"]["train"]["documents"] == 0
    assert manifest["counts_by_corpus"]["wsj"]["test"]["documents"] == 199
    assert not any(item.source == "wsj" for item in read_split(split_path(out_dir, "train")))


def test_held_out_documents_match_the_prepared_test_split(prepared, shared_data):
    out_dir, _ = prepared
    in_file = {item.doc_id for item in read_split(split_path(out_dir, "test")) if item.source == "lee"}
    held_out = [d for d in held_out_documents("lee", "test", data_dir=shared_data)]
    assert in_file == {d.id for d in held_out if len(d.sentences) >= 4}
    assert all(split_of(d.id) == "test" for d in held_out)
    assert len(list(held_out_documents("wsj", "test", data_dir=shared_data))) == 199
    assert list(held_out_documents("wsj", "train", data_dir=shared_data)) == []


def test_held_out_documents_rejects_unknown_names():
    with pytest.raises(InputError, match="unknown corpus 'nope'"):
        held_out_documents("nope")
    with pytest.raises(InputError, match="unknown split 'valid'"):
        held_out_documents("lee", "valid")


def test_exact_duplicates_keep_the_smallest_id():
    def document(doc_id, text):
        return Document(id=doc_id, source="x", sentences=[text])

    documents = [document("x:3", "A."), document("x:1", "A."), document("x:2", "B."), document("x:4", "A.")]
    assert duplicate_ids(documents) == {"x:3", "x:4"}
    assert duplicate_ids(list(reversed(documents))) == {"x:3", "x:4"}
