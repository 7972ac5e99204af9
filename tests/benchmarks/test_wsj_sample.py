"""The WSJ-sample permuted-document stand-in: the paper's recipe, deterministic per seed."""

from __future__ import annotations

from collections import defaultdict

from coherence_metric.research.datasets.wsj_sample import load_wsj_sample_permuted


def test_recipe_counts(load_cached):
    test_set = load_cached("WSJ-SAMPLE-PERMUTED")
    notes = test_set.notes
    assert (notes["documents_read"], notes["documents_kept"], notes["documents_with_fewer_permutations"]) == (
        199,
        167,
        0,
    )
    assert len(test_set) == 167 * 20
    assert all(len(item.pos) >= 4 for item in test_set)
    assert not any(".START" in sentence for item in test_set for sentence in item.pos)


def test_permutations_unique_per_document_and_never_the_original(load_cached):
    by_file = defaultdict(list)
    for item in load_cached("WSJ-SAMPLE-PERMUTED"):
        assert item.neg != item.pos and sorted(item.neg) == sorted(item.pos)
        by_file[item.meta["file"]].append(tuple(item.neg))
    assert all(len(set(negatives)) == len(negatives) == 20 for negatives in by_file.values())


def test_deterministic_for_a_seed_and_different_for_another(load_cached, shared_data):
    first = load_cached("WSJ-SAMPLE-PERMUTED", seed=0)
    again = load_wsj_sample_permuted(data_dir=shared_data, seed=0)
    other = load_cached("WSJ-SAMPLE-PERMUTED", seed=1)
    assert first.items == again.items
    assert [item.pos for item in first] == [item.pos for item in other]
    assert [item.neg for item in first] != [item.neg for item in other]
