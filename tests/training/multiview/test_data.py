"""Contiguous, position-addressed blocks of ordered sentences; train documents only; clear errors."""

from __future__ import annotations

from typing import List

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research.documents import Document
from coherence_metric.research.splits import split_of
from coherence_metric.training.multiview.data import SentenceStream, split_documents


def documents(sizes: List[int]) -> List[Document]:
    return [Document(id=f"toy:{number}", source="toy", sentences=[f"d{number} s{index}." for index in range(size)])
            for number, size in enumerate(sizes)]


def test_blocks_are_consecutive_sentences_with_their_documents() -> None:
    stream = SentenceStream(documents([3, 1, 4, 5]), block_size=4, seed=0)  # the 1-sentence document is dropped
    assert len(stream) == 12 and stream.document_count == 3
    block = stream.window(2)
    assert block.sentences == ["d0 s2.", "d2 s0.", "d2 s1.", "d2 s2."]
    assert block.documents == [0, 1, 1, 1]


def test_the_same_position_gives_the_same_block_and_an_epoch_visits_every_block() -> None:
    stream = SentenceStream(documents([7] * 10), block_size=5, seed=3)
    again = SentenceStream(documents([7] * 10), block_size=5, seed=3)
    epoch = stream.blocks_per_epoch
    assert epoch == (70 - 4) // 5
    first = [stream.block(position).sentences for position in range(epoch)]
    assert first == [again.block(position).sentences for position in range(epoch)]
    starts = sorted(stream.sentences.index(block[0]) for block in first)
    offset = starts[0]
    assert starts == [offset + 5 * index for index in range(epoch)], "one epoch = every window of the grid once"
    second = [stream.block(position).sentences for position in range(epoch, 2 * epoch)]
    assert second != first, "the next epoch is reshuffled (and its grid shifted)"
    other_seed = SentenceStream(documents([7] * 10), block_size=5, seed=4)
    assert [other_seed.block(position).sentences for position in range(epoch)] != first


def test_held_out_blocks_are_fixed() -> None:
    stream = SentenceStream(documents([6] * 4), block_size=6)
    assert [block.sentences[0] for block in stream.fixed_blocks(10)] == ["d0 s0.", "d1 s0.", "d2 s0.", "d3 s0."]


def test_too_few_sentences_is_an_error_naming_the_stream() -> None:
    with pytest.raises(InputError, match="the dev split of lee has 5 sentences"):
        SentenceStream(documents([5]), block_size=8, where="the dev split of lee")
    with pytest.raises(InputError, match="at least 2"):
        SentenceStream(documents([5]), block_size=1)


def test_training_documents_come_from_the_train_split_only(shared_data) -> None:
    train = split_documents(["lee"], "train", max_documents=40)
    dev = split_documents(["lee"], "dev")
    assert len(train) == 40 and dev
    assert all(split_of(document.id) == "train" for document in train)
    assert all(split_of(document.id) == "dev" for document in dev)
    assert not {document.id for document in train} & {document.id for document in dev}


def test_held_out_and_unknown_corpora_are_refused(shared_data) -> None:
    with pytest.raises(InputError, match="'wsj' is held out for testing only"):
        split_documents(["wsj"], "train")
    with pytest.raises(InputError, match="unknown corpus 'bookcorpus'"):
        split_documents(["bookcorpus"], "train")
    with pytest.raises(InputError, match="data.corpora is empty"):
        split_documents([], "train")
