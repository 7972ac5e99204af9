"""The order and truncation dev checks, and extractive style and length bands, read what a
scorer does, on held-out texts."""

from __future__ import annotations

from typing import List

from coherence_metric.research.documents import Document
from coherence_metric.training.pointwise.dev_checks import (
    CUTS,
    band_documents,
    build_dev_texts,
    build_extractive_texts,
    run_band_checks,
    run_dev_checks,
    run_extractive_checks,
    spearman,
    spread,
)


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


# --- extractive style and length bands ---------------------------------------------------------------


def _gap_score(texts: List[List[str]]) -> List[float]:
    """A scorer that punishes skipped sentences: minus the positions jumped over between neighbours."""
    scores = []
    for text in texts:
        positions = [int(sentence.split()[1]) for sentence in text]
        scores.append(-float(sum(abs(b - a) - 1 for a, b in zip(positions, positions[1:]))))
    return scores


def test_extractive_texts_are_in_order_subsets_with_a_gap_beside_a_lead_and_a_shuffle():
    documents = _documents() + [Document(id="t:short", source="t", sentences=["Sentence 0 of x.", "Sentence 1 of x."])]
    extractive = build_extractive_texts(documents)
    assert len(extractive.subsets) == len(extractive.leads) == len(extractive.shuffles) == 12  # 2-sentence doc out
    for subset, lead, shuffled in zip(extractive.subsets, extractive.leads, extractive.shuffles):
        positions = [int(sentence.split()[1]) for sentence in subset]
        assert 3 <= len(subset) <= 5 and positions[0] == 0 and positions == sorted(set(positions))
        assert positions != list(range(len(subset)))  # at least one gap: not the lead
        assert lead == [f"Sentence {k} of document {subset[0].split()[-1][:-1]}." for k in range(len(subset))]
        assert sorted(shuffled) == sorted(subset) and shuffled != subset
    assert build_extractive_texts(documents) == extractive  # seeded
    assert len(build_extractive_texts(documents, per_source=5).subsets) == 5  # capped per corpus


def test_extractive_checks_read_order_and_gaps_apart():
    extractive = build_extractive_texts(_documents())
    by_order = run_extractive_checks(extractive, _order_score)
    assert by_order == {"extractive_vs_lead": 0.5, "extractive_vs_shuffle": 1.0}  # subset and lead both in order
    by_gaps = run_extractive_checks(extractive, _gap_score)
    assert by_gaps["extractive_vs_lead"] == 0.0  # punishes extractive style outright
    assert run_extractive_checks(build_extractive_texts([]), _order_score) == {}


def test_band_checks_report_every_cut_of_every_band_and_see_a_length_bias():
    dev = build_dev_texts(_documents())
    long_text = [f"Sentence {position} of story." for position in range(12)]
    bands = {"short": dev.texts, "long": [long_text] * 3}
    texts = band_documents(bands)
    assert len(texts) == 4 * (len(dev.texts) + 3)
    # per band: the wholes, then every first sentence, every first third, every first half
    assert texts[-12:] == [long_text] * 3 + [long_text[:1]] * 3 + [long_text[:4]] * 3 + [long_text[:6]] * 3
    shortness = run_band_checks(bands, lambda batch: [-float(len(text)) for text in batch])
    assert set(shortness) == {f"{band}_{cut}_beats_whole" for band in bands for cut in CUTS}
    assert all(value == 1.0 for value in shortness.values())
    assert all(value == 0.0 for value in run_band_checks(bands, lambda batch: [float(len(t)) for t in batch]).values())
    assert all(value == 0.5 for value in run_band_checks(bands, _order_score).values())  # in-order cuts tie
    assert run_band_checks({"long": []}, _order_score) == {}


def test_cuts_are_shorter_than_the_text_and_spread_keeps_every_part():
    for count in range(2, 40):
        assert all(1 <= keep(count) < count for keep in CUTS.values())
    assert CUTS["first_third"](12) == 4 and CUTS["first_half"](7) == 4
    items = [[str(index)] for index in range(10)]
    assert spread(items, 4) == [["0"], ["2"], ["5"], ["7"]] and spread(items, 20) == items
