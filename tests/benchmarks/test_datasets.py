"""Test-set loaders: counts match the data READMEs, file order is kept, and subsets are seeded."""

from __future__ import annotations

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research.datasets import PROBE_NAMES, PROBE_TEST_SETS, TEST_SETS, load_test_set

#: Items per test set, from the READMEs in shared/data (SUMMEVAL and the WSJ sample are rebuilt here).
EXPECTED_COUNTS = {
    "LMVLM": 1046,
    "STORYCLOZE": 1571,
    "INSTED-WIKI": 3666,
    "SUMMEVAL": 10628,
    "WSJ-SAMPLE-PERMUTED": 3340,
    **{name: (95 if name.endswith("singular_determiner_flip") else 100) for name in PROBE_TEST_SETS},
}
#: Upstream probe items whose edit was a no-op (pos == neg); kept so the counts match, named in notes.
KNOWN_IDENTICAL = {"PROBE-conjunction_flip": ["37"], "PROBE-singular_determiner_flip": ["79"]}


def test_registry_lists_every_set():
    assert set(TEST_SETS) == set(EXPECTED_COUNTS)
    assert len(PROBE_NAMES) == 8


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_counts_shapes_and_pos_differs_from_neg(load_cached, name):
    test_set = load_cached(name)
    assert len(test_set) == EXPECTED_COUNTS[name]
    assert len({item.id for item in test_set}) == len(test_set)
    for item in test_set:
        for document in (item.pos, item.neg):
            assert isinstance(document, list) and document and all(isinstance(s, str) and s for s in document)
    identical = [item.id for item in test_set if item.pos == item.neg]
    assert identical == KNOWN_IDENTICAL.get(name, [])
    assert test_set.notes.get("identical_pairs", 0) == len(identical)


def test_lmvlm_annotations_are_aligned_rows(load_cached):
    test_set = load_cached("LMVLM")
    assert test_set.primary_metric == "lmvlm_agreement"
    assert [len(row) for row in test_set.annotations] == [1046] * 3
    assert test_set.annotations[0] == test_set.annotations[1]
    assert sum(a == b for a, b in zip(test_set.annotations[1], test_set.annotations[2])) == 919
    assert test_set.items[0].id == "new_900_1"  # file order, not shuffled


def test_story_cloze_shares_four_context_sentences(load_cached):
    for item in load_cached("STORYCLOZE"):
        assert len(item.pos) == len(item.neg) == 5
        assert item.pos[:4] == item.neg[:4] and item.pos[4] != item.neg[4]


def test_insted_wiki_replaces_exactly_one_sentence_never_the_first(load_cached):
    for item in load_cached("INSTED-WIKI"):
        differing = [i for i, (a, b) in enumerate(zip(item.pos, item.neg)) if a != b]
        assert len(item.pos) == len(item.neg) and len(differing) == 1 and differing[0] > 0


def test_summeval_pairs_and_ties(load_cached):
    test_set = load_cached("SUMMEVAL")
    notes = test_set.notes
    assert (notes["articles"], notes["systems"], notes["candidate_pairs"]) == (100, 16, 12000)
    assert notes["ties_excluded"] == 1328
    assert notes["identical_text_pairs_excluded"] == 44
    assert len(test_set) == 12000 - 1328 - 44
    for item in test_set:
        assert item.meta["pos_coherence"] > item.meta["neg_coherence"]
        assert item.meta["pos_system"] != item.meta["neg_system"]


def test_limit_is_a_seeded_subset_in_file_order(load_cached, shared_data):
    full = load_cached("LMVLM")
    subset = load_test_set("lmvlm", limit=50, seed=1, data_dir=shared_data)
    indices = [item.meta["index"] for item in subset]
    assert len(subset) == 50 and indices == sorted(indices)
    assert subset.items == load_test_set("LMVLM", limit=50, seed=1, data_dir=shared_data).items
    assert subset.items != load_test_set("LMVLM", limit=50, seed=2, data_dir=shared_data).items
    for row_subset, row_full in zip(subset.annotations, full.annotations):
        assert list(row_subset) == [row_full[i] for i in indices]
    assert subset.notes["sampled_from"] == 1046
    assert len(load_test_set("PROBE-to_negation", limit=10_000, data_dir=shared_data)) == 100


def test_bad_names_limits_and_folders_raise_input_error(tmp_path):
    with pytest.raises(InputError, match="unknown test set"):
        load_test_set("WSJ")
    with pytest.raises(InputError, match="LMvLM.pkl"):
        load_test_set("LMVLM", data_dir=tmp_path)
    with pytest.raises(InputError, match="treebank.zip"):
        load_test_set("WSJ-SAMPLE-PERMUTED", data_dir=tmp_path)
    with pytest.raises(InputError, match="SummEval_data.json"):
        load_test_set("SUMMEVAL", data_dir=tmp_path)


def test_zero_limit_is_refused(load_cached, shared_data):
    with pytest.raises(InputError, match="limit"):
        load_test_set("PROBE-to_negation", limit=0, data_dir=shared_data)
