"""The int8 check behind issue 56's decision: its pair rule and its quantised twin (the run itself is in the docs)."""

from __future__ import annotations

import torch

from coherence_metric import CoherenceScorer
from coherence_metric.benchmarks.int8_check import quantised, winners_kept

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
