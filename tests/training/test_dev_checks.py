"""The order and truncation dev checks (issue 41) read what a scorer does, on held-out texts."""

from __future__ import annotations

from typing import List

from coherence_metric.research.documents import Document
from coherence_metric.training.pointwise.dev_checks import build_dev_texts, run_dev_checks, spearman


def _documents() -> List[Document]:
    return [Document(id=f"t:doc{index}", source="t",
                     sentences=[f"Sentence {position} of document {index}." for position in range(8)])
            for index in range(12)]


def _order_score(texts: List[List[str]]) -> List[float]:
    """A scorer that sees order perfectly and ignores length: the share of sentence pairs in increasing order."""
    scores = []
    for text in texts:
        positions = [int(sentence.split()[1]) for sentence in text]
        pairs = [(a, b) for index, a in enumerate(positions) for b in positions[index + 1:]]
        scores.append(sum(a < b for a, b in pairs) / len(pairs) if pairs else 1.0)
    return scores


def test_dev_texts_are_3_to_6_sentence_leads_with_a_distinct_shuffle():
    dev = build_dev_texts(_documents())
    assert len(dev.texts) == len(dev.shuffles) == 12 and len(dev.lengths) == 12
    for text, shuffled in zip(dev.texts, dev.shuffles):
        assert 3 <= len(text) <= 6 and sorted(text) == sorted(shuffled) and text != shuffled
    assert build_dev_texts(_documents()) == dev  # seeded


def test_a_length_scorer_fails_the_truncation_and_length_checks_and_an_order_scorer_passes_order():
    dev = build_dev_texts(_documents())
    by_order = run_dev_checks(dev, _order_score)
    assert by_order["own_shuffle"] == 1.0
    assert by_order["first_beats_whole"] == 0.5  # a one-sentence text and an ordered text both score 1.0: ties
    shortness = run_dev_checks(dev, lambda texts: [-float(len(text)) for text in texts])
    assert shortness["first_beats_whole"] == 1.0 and shortness["own_shuffle"] == 0.5
    assert shortness["count_spearman"] == -1.0 and shortness["truncation_gap_sd"] > 0


def test_spearman_matches_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert abs(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) - 0.8) < 1e-12
    assert spearman([1, 1, 1], [1, 2, 3]) == 0.0
