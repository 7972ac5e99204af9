"""The three encodings' token layouts (section 2.1, 2.3), with the real all-MiniLM-L6-v2 WordPiece tokenizer."""

from __future__ import annotations

from typing import List

from coherence_metric.training.conpono.examples import Candidate, ConponoExample
from coherence_metric.training.conpono.inputs import build_inputs


def example(anchor: str = "The cat sat down.") -> ConponoExample:
    candidates = [Candidate("It purred.", "d:1", 1), Candidate("Stocks fell sharply.", "d:2", None),
                  Candidate("Then it slept.", "d:1", 2)]
    return ConponoExample(anchor=anchor, candidates=candidates, targets={1: 0, 2: 2}, doc_id="d:1")


def tokens(tokenizer, ids) -> List[str]:
    return [token for token in tokenizer.convert_ids_to_tokens(ids.tolist()) if token != "[PAD]"]


def test_combined_encodes_the_anchor_alone_and_each_target_after_the_anchor(minilm_tokenizer) -> None:
    inputs = build_inputs(minilm_tokenizer, [example()], "combined", max_distance=2, max_length=64)
    assert inputs.anchors is not None
    assert tokens(minilm_tokenizer, inputs.anchors["input_ids"][0]) == ["[CLS]", "the", "cat", "sat", "down", ".",
                                                                        "[SEP]"]
    pair = tokens(minilm_tokenizer, inputs.candidates["input_ids"][0])
    assert pair == ["[CLS]", "the", "cat", "sat", "down", ".", "[SEP]", "it", "pu", "##rred", ".", "[SEP]"]
    types = inputs.candidates["token_type_ids"][0][: len(pair)].tolist()
    assert types == [0] * 7 + [1] * 5  # segment 0: [CLS] anchor [SEP]; segment 1: target [SEP]
    assert inputs.candidates["input_ids"].shape[0] == 3 and inputs.candidates_per_example == 3
    # Rows are k = -2, -1, +1, +2; k = +1's true target is candidate 0, k = +2's is candidate 2.
    assert inputs.labels.tolist() == [[-1, -1, 0, 2]]


def test_isolated_encodes_targets_without_the_anchor(minilm_tokenizer) -> None:
    inputs = build_inputs(minilm_tokenizer, [example()], "isolated", max_distance=2, max_length=64)
    assert inputs.anchors is not None
    assert tokens(minilm_tokenizer, inputs.candidates["input_ids"][0]) == ["[CLS]", "it", "pu", "##rred", ".", "[SEP]"]


def test_uni_encoder_has_pairs_only(minilm_tokenizer) -> None:
    inputs = build_inputs(minilm_tokenizer, [example(), example("A dog barked.")], "uni", max_distance=2,
                          max_length=64)
    assert inputs.anchors is None and inputs.batch_size == 2
    assert tokens(minilm_tokenizer, inputs.candidates["input_ids"][3])[:5] == ["[CLS]", "a", "dog", "barked", "."]


def test_a_long_anchor_is_cut_before_the_target_disappears(minilm_tokenizer) -> None:
    long_anchor = " ".join(["The committee met again."] * 20)
    inputs = build_inputs(minilm_tokenizer, [example(long_anchor)], "combined", max_distance=2, max_length=24)
    pair = tokens(minilm_tokenizer, inputs.candidates["input_ids"][0])
    assert len(pair) == 24 and pair[-5:] == ["it", "pu", "##rred", ".", "[SEP]"]
