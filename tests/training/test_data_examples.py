"""Positives and negatives follow the paper's recipe, and are reproducible whatever the document order."""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from coherence_metric.research.documents import Document
from coherence_metric.research.permutations import distinct_arrangements
from coherence_metric.training.data import ExampleConfig, build_items, document_blocks, negative_orders
from coherence_metric.training.data.examples import BuildCounts, TrainingItem, sentences_within_cap
from coherence_metric.training.data.tokens import TokenCounter


def make_document(n_sentences: int, doc_id: str = "test:1", words: int = 5) -> Document:
    sentences = [" ".join([f"w{i}"] * (words - 1)) + f" s{i}." for i in range(n_sentences)]
    return Document(id=doc_id, source="test", sentences=sentences)


@pytest.mark.parametrize(
    "n_sentences, sizes",
    [(3, []), (4, [4]), (19, [19]), (20, [10, 10]), (23, [10, 10]), (24, [10, 10, 4]), (45, [10, 10, 10, 10, 5])],
)
def test_blocks_follow_the_paper(n_sentences, sizes):
    # Under 4 sentences: dropped; under 20: one positive; 20+: blocks of 10, each kept with >= 4 sentences.
    blocks = document_blocks(make_document(n_sentences).sentences, ExampleConfig())
    assert [len(block) for _, block in blocks] == sizes


def test_block_indices_and_text_are_consecutive():
    document = make_document(24)
    blocks = document_blocks(document.sentences, ExampleConfig())
    assert [index for index, _ in blocks] == [0, 1, 2]
    assert [s for _, block in blocks for s in block] == document.sentences


def test_short_blocks_are_counted(word_counter):
    counts = BuildCounts()
    items = build_items(make_document(23), ExampleConfig(), word_counter, counts)
    assert [item.id for item in items] == ["test:1#0", "test:1#1"]
    assert counts.blocks_short == 1 and counts.positives == 2 and counts.documents_used == 1


def test_documents_under_four_sentences_give_nothing(word_counter):
    counts = BuildCounts()
    assert build_items(make_document(3), ExampleConfig(), word_counter, counts) == []
    assert counts.documents == 1 and counts.documents_short == 1 and counts.documents_used == 0


def test_token_cap_cuts_at_a_sentence_boundary(word_counter):
    # 19 sentences of 5 "tokens" + 2 special: a cap of 40 keeps 7 sentences (37 tokens).
    counts = BuildCounts()
    config = ExampleConfig(max_tokens=40)
    (item,) = build_items(make_document(19), config, word_counter, counts)
    assert len(item.pos) == 7 and item.tokens == 37
    assert all(sorted(order) == list(range(7)) for order in item.negs)
    assert counts.blocks_cut_at_cap == 1 and counts.blocks_dropped_at_cap == 0


def test_token_cap_drops_what_cannot_keep_four_sentences(word_counter):
    counts = BuildCounts()
    assert build_items(make_document(10), ExampleConfig(max_tokens=20), word_counter, counts) == []
    assert counts.blocks_dropped_at_cap == 1


def test_sentences_within_cap():
    assert sentences_within_cap([5, 5, 5], special_tokens=2, max_tokens=12) == 2
    assert sentences_within_cap([5, 5, 5], special_tokens=2, max_tokens=17) == 3
    assert sentences_within_cap([50], special_tokens=2, max_tokens=17) == 0


def test_negatives_are_unique_and_never_the_original(word_counter):
    (item,) = build_items(make_document(10), ExampleConfig(negatives=50), word_counter)
    texts = [tuple(negative) for negative in item.negative_documents()]
    assert len(texts) == 50 and len(set(texts)) == 50
    assert tuple(item.pos) not in texts


def test_four_sentences_give_all_23_orders(word_counter):
    counts = BuildCounts()
    (item,) = build_items(make_document(4), ExampleConfig(negatives=50), word_counter, counts)
    assert sorted(tuple(order) for order in item.negs) == sorted(p for p in permutations(range(4)) if p != (0, 1, 2, 3))
    assert counts.positives_with_fewer_negatives == 1 and counts.negatives == 23


def test_repeated_sentences_never_reproduce_the_original_text():
    sentences = ["A.", "B.", "A.", "C."]
    assert distinct_arrangements(sentences) == 12
    orders = negative_orders(sentences, 50, random.Random(0))
    texts = {tuple(sentences[i] for i in order) for order in orders}
    assert len(orders) == len(texts) == 11 and tuple(sentences) not in texts
    assert negative_orders(["Same."] * 5, 50, random.Random(0)) == []


def test_identical_sentences_are_dropped_not_kept_without_negatives(word_counter):
    counts = BuildCounts()
    document = Document(id="test:same", source="test", sentences=["Same thing here."] * 6)
    assert build_items(document, ExampleConfig(), word_counter, counts) == []
    assert counts.blocks_without_negatives == 1


def test_rejection_sampling_gives_exactly_h_unique_orders():
    for n in (5, 6, 10):
        orders = negative_orders([f"s{i}." for i in range(n)], 50, random.Random(n))
        assert len(orders) == len(set(orders)) == 50 and tuple(range(n)) not in orders


def test_items_are_deterministic_and_independent_of_document_order(word_counter):
    documents = [make_document(n, doc_id=f"test:{n}") for n in (4, 7, 12, 19, 25, 44)]
    config = ExampleConfig(seed=13)
    forward = [item for d in documents for item in build_items(d, config, word_counter)]
    again = [item for d in documents for item in build_items(d, config, word_counter)]
    backward = [item for d in reversed(documents) for item in build_items(d, config, word_counter)]
    assert forward == again
    assert sorted(backward, key=lambda item: item.id) == sorted(forward, key=lambda item: item.id)
    reseeded = [item for d in documents for item in build_items(d, ExampleConfig(seed=14), word_counter)]
    assert [item.negs for item in reseeded] != [item.negs for item in forward]


def test_item_json_round_trip(word_counter):
    (item,) = build_items(make_document(6), ExampleConfig(negatives=3), word_counter)
    record = item.to_json()
    assert set(record) == {"id", "doc_id", "source", "pos", "negs", "tokens"}
    assert TrainingItem.from_json(record) == item


def test_real_documents_are_cut_into_blocks_of_ten(shared_data, minilm_tokenizer):
    from coherence_metric.research.corpora.wiki import read_wiki_file

    counter = TokenCounter(minilm_tokenizer)
    path = shared_data / "corpora" / "enwiki_wikiextractor_2015" / "text" / "AA" / "wiki_00.xz"
    anarchism = next(read_wiki_file(path))
    counts = BuildCounts()
    items = build_items(anarchism, ExampleConfig(negatives=5), counter, counts)
    assert len(anarchism.sentences) >= 20
    assert counts.positives + counts.blocks_short + counts.blocks_dropped_at_cap == -(-len(anarchism.sentences) // 10)
    assert all(4 <= len(item.pos) <= 10 and item.tokens <= 600 for item in items)
    assert sum(len(item.pos) == 10 for item in items) >= len(items) - 2
    assert items[0].pos == anarchism.sentences[:10]


def test_sentence_counts_add_up_to_the_joined_text(shared_data, minilm_tokenizer):
    # The cap is measured per sentence; for WordPiece the sum equals the count of the space-joined block.
    from coherence_metric.research.corpora.bbc import read_bbc

    counter = TokenCounter(minilm_tokenizer)
    for document in list(read_bbc(shared_data / "corpora" / "bbc_fulltext"))[:100:5]:
        block = document.sentences[:10]
        assert sum(counter.sentence_lengths(block)) + counter.special_tokens == counter.text_length(block)


def test_sentence_counts_add_up_for_sentencepiece(tiny_xlnet_dir):
    from transformers import AutoTokenizer

    counter = TokenCounter(AutoTokenizer.from_pretrained(str(tiny_xlnet_dir)))
    block = ["The cat sat on the mat.", "It was happy there!", "Then it rained, and the cat left.", "Nobody knew why."]
    assert sum(counter.sentence_lengths(block)) + counter.special_tokens == counter.text_length(block)
