"""Batches for both passes of scoring: every sequence once, longest first, under the count and token budgets."""

from __future__ import annotations

import pytest

from coherence_metric.scoring.batching import padded_length, plan_batches


def test_batches_cover_every_index_once_longest_first_within_both_budgets() -> None:
    lengths = [5, 40, 12, 40, 3, 100, 7]
    batches = plan_batches(lengths, max_tokens=80, max_items=3)
    assert sorted(index for batch in batches for index in batch) == list(range(len(lengths)))
    assert batches[0] == [5]  # 100 tokens: over the budget, so a batch of its own, first
    assert batches[1] == [1, 3]  # equal lengths keep input order; a third would pad to 3 x 40 > 80
    for batch in batches:
        assert len(batch) <= 3 and (len(batch) == 1 or len(batch) * lengths[batch[0]] <= 80)
        assert [lengths[index] for index in batch] == sorted((lengths[index] for index in batch), reverse=True)


def test_without_a_count_limit_the_token_budget_alone_decides() -> None:
    assert plan_batches([2] * 10, max_tokens=8) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert plan_batches([2] * 10, max_tokens=1000) == [list(range(10))]
    assert plan_batches([], max_tokens=8) == []


def test_a_batch_holds_one_padded_length_set_by_each_sequence_alone() -> None:
    """Padding to the longest neighbour made a text's shape, hence its bf16 score, depend on the others."""
    from coherence_metric.scoring.batching import padded_length

    lengths = [20, 17, 18, 129, 140, 144, 145, 9]
    batches = plan_batches(lengths, max_tokens=10_000, max_items=32, limit=256)
    assert [sorted(batch) for batch in batches] == [[6], [3, 4, 5], [0], [1, 2], [7]]
    for batch in batches:
        assert len({padded_length(lengths[index], 256) for index in batch}) == 1
    assert [padded_length(n) for n in (9, 15, 16, 17, 129, 250, 257)] == [9, 15, 16, 18, 144, 256, 288]
    assert padded_length(250, limit=252) == 252 and padded_length(300, limit=256) == 300


@pytest.mark.parametrize("backbone", ["tiny_bert_dir", "tiny_xlnet_dir"])
def test_pad_batch_gives_the_tensors_the_tokenizers_own_padding_gives(backbone, request) -> None:
    """The vectorised fill must equal ``tokenizer.pad``: BERT pads on the right with [PAD] = 0, XLNet on the left
    with its own pad id; a different pad side or id would move every score of a batch with mixed lengths."""
    from transformers import AutoTokenizer

    from coherence_metric.scoring.batching import pad_batch, pad_to_width

    tokenizer = AutoTokenizer.from_pretrained(str(request.getfixturevalue(backbone)))
    texts = ["A short one.", "A somewhat longer text of two sentences. It goes on and on.", "Mid length, this."]
    sequences = tokenizer(texts)["input_ids"]
    width = padded_length(max(map(len, sequences)))
    assert max(map(len, sequences)) > min(map(len, sequences))  # rows padded by different amounts
    expected = tokenizer.pad({"input_ids": sequences}, padding="max_length", max_length=width, return_tensors="pt")
    padded = pad_batch(tokenizer, sequences, limit=64)
    assert padded["input_ids"].shape == (3, width)
    for key in ("input_ids", "attention_mask"):
        assert padded[key].dtype == expected[key].dtype
        assert padded[key].tolist() == expected[key].tolist(), key
    assert (tokenizer.padding_side == "left") == (backbone == "tiny_xlnet_dir")
    # Padding to the longest sequence, as training and the research encoders do: tokenizer.pad's tensors too.
    longest = max(map(len, sequences))
    expected = tokenizer.pad({"input_ids": sequences}, padding="max_length", max_length=longest, return_tensors="pt")
    exact = pad_to_width(tokenizer, sequences, longest)
    assert all(exact[key].tolist() == expected[key].tolist() for key in ("input_ids", "attention_mask"))
