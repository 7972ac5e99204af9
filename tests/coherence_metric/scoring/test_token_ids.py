"""The scorer's token ids come from the Rust backend (faster) and must be the ids a plain tokenizer call gives."""

from __future__ import annotations

import pytest

from coherence_metric.scoring.token_ids import _backend_matches_a_plain_call, token_ids

TEXTS = [
    "A plain sentence. And another one.",
    "Café, naïve — über; 東京 and 😀 too.",
    "A text that writes [SEP] and <sep> and [CLS] as words.",
    "Tabs\tand\nnewlines   and  spaces.",
    "",
]


@pytest.mark.parametrize("backbone", ["tiny_bert_dir", "tiny_xlnet_dir"])
@pytest.mark.parametrize("special", [True, False])
def test_token_ids_are_a_plain_calls_ids(backbone, special, request) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(request.getfixturevalue(backbone)))
    expected = tokenizer(TEXTS, add_special_tokens=special)["input_ids"]
    assert _backend_matches_a_plain_call(tokenizer) is not None  # the Rust path is the one under test
    assert token_ids(tokenizer, TEXTS, add_special_tokens=special) == [list(ids) for ids in expected]


def test_a_truncation_left_on_the_backend_by_an_earlier_call_does_not_cut_the_ids(tiny_bert_dir) -> None:
    """A truncating call (the scorer's ``truncation="warn"`` path) leaves truncation set on the Rust backend; the
    next ids must still be whole, as a plain call (which resets it) gives them."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    whole = token_ids(tokenizer, TEXTS[:1])
    assert len(tokenizer(TEXTS[:1], truncation=True, max_length=4)["input_ids"][0]) == 4
    assert _backend_matches_a_plain_call(tokenizer) is None  # so the plain call is made, which resets it
    assert token_ids(tokenizer, TEXTS[:1]) == whole and len(whole[0]) > 4
    assert token_ids(tokenizer, []) == []
