"""The int8 check behind the decision not to ship int8: its pair rule, its batch rule, its quantised twins (the run
itself is in the docs)."""

from __future__ import annotations

import torch

from coherence_metric import CoherenceScorer
from coherence_metric.benchmarks.speed.cpu_speed import float_paths
from coherence_metric.benchmarks.speed.int8_check import batch_dependence, decide, quantised, winners_kept

TEXTS = ["The river rose in the night. By morning the fields were under water.",
         "Schools stayed open. The road was closed before noon.", "Buses took the long way round."]


def test_winners_kept_counts_pairs_ordered_the_same_way():
    assert winners_kept([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]) == 1.0
    assert winners_kept([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]) == 0.0
    assert winners_kept([1.0, 2.0, 3.0], [1.0, 3.0, 2.0]) == 2 / 3
    assert winners_kept([1.0, 2.0], [5.0, 5.0]) == 0.0  # a tie where fp32 had a winner is a change


def test_the_quantised_twin_leaves_the_scorer_alone_and_quantises_the_encoder_only(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    before = scorer.score(TEXTS).scores
    twin = quantised(scorer)
    assert any(isinstance(module, torch.ao.nn.quantized.dynamic.Linear) for module in twin.model.backbone.modules())
    assert isinstance(twin.model.head, torch.nn.Linear) and twin.model.head.weight.dtype == torch.float32
    assert not any(isinstance(module, torch.ao.nn.quantized.dynamic.Linear) for module in scorer.model.modules())
    assert scorer.score(TEXTS).scores == before
    assert len(twin.score(TEXTS).scores) == len(TEXTS)


def test_the_per_channel_twin_has_one_weight_scale_per_output_channel(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    layers = {per_channel: [module for module in quantised(scorer, per_channel).model.backbone.modules()
                            if isinstance(module, torch.ao.nn.quantized.dynamic.Linear)]
              for per_channel in (False, True)}
    assert {layer.weight().qscheme() for layer in layers[False]} == {torch.per_tensor_affine}
    assert {layer.weight().qscheme() for layer in layers[True]} == {torch.per_channel_affine}
    weight = layers[True][0].weight()
    assert weight.q_per_channel_scales().numel() == weight.shape[0]


def test_a_float_scores_a_text_alone_as_in_a_batch_of_other_lengths(bert_checkpoint):
    # The bar the int8 schemes are held to: padding a text to its batch's longest length changes nothing.
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    assert batch_dependence(scorer, TEXTS, scorer.score(TEXTS).scores) < 1e-4
    assert batch_dependence(scorer, TEXTS, [score + 0.5 for score in scorer.score(TEXTS).scores]) > 0.49


def test_bf16_is_a_float_path_only_where_the_cpu_has_it():
    assert float_paths(frozenset({"avx2", "fma"})) == ["fp32"]
    assert float_paths(frozenset({"avx512_bf16"})) == ["fp32", "bf16"]
    assert float_paths(frozenset({"amx_bf16", "avx512_bf16"})) == ["fp32", "bf16"]


def test_int8_ships_only_when_faster_by_half_order_keeping_and_batch_independent():
    rates = {"fp32": 10.0, "int8": 16.0, "int8_per_channel": 20.0}
    verdicts = decide(rates, {"int8": 0.995, "int8_per_channel": 0.9}, {"int8": 0.0, "int8_per_channel": 0.0},
                      ["fp32"])
    assert verdicts == {"int8": {"vs_fastest_float": 1.6, "ship": True},
                        "int8_per_channel": {"vs_fastest_float": 2.0, "ship": False}}
    # the same int8 against a bf16 path three times fp32, or with scores that move with their batch
    assert not decide({**rates, "bf16": 30.0}, {"int8": 0.995, "int8_per_channel": 0.9},
                      {"int8": 0.0, "int8_per_channel": 0.0}, ["fp32", "bf16"])["int8"]["ship"]
    assert not decide(rates, {"int8": 0.995, "int8_per_channel": 0.9}, {"int8": 0.4, "int8_per_channel": 0.0},
                      ["fp32"])["int8"]["ship"]
