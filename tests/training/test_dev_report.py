"""The dev ruler that chooses the default (``dev_report``): human dev-select pairs counted the benchmark's way, the
synthetic and check numbers in their places, and a paired bootstrap that shows a real gain and rules out none."""

from __future__ import annotations

import pytest

from coherence_metric.research.datasets.ratings import DEV_SELECT, RatedSet, RatedText, dev_half
from coherence_metric.research.documents import Document
from coherence_metric.training.pointwise.dev_checks import build_dev_texts
from coherence_metric.training.pointwise.dev_report import DevData, dev_documents, evaluate_option, paired_difference
from coherence_metric.training.pointwise.texts import PointwiseExample

SET = "HANNA"


def _groups(half: str, count: int) -> list[str]:
    """Group keys that the fixed hash puts in ``half``."""
    found = [f"prompt-{index}" for index in range(200) if dev_half(SET, f"prompt-{index}") == half]
    return found[:count]


def _dev_data() -> DevData:
    select = _groups(DEV_SELECT, 2)
    report = [group for group in (f"prompt-{index}" for index in range(200)) if group not in select
              and dev_half(SET, group) != DEV_SELECT][:1]
    texts = []
    for group in [*select, *report]:
        for rating in (1.0, 3.0, 5.0):
            texts.append(RatedText(f"{group}-{rating}", group, "sys", (f"Story for {group} rated {rating}.",), rating))
    rated = RatedSet(SET, tuple(texts), "coherence", 1.0, "test")
    rated_texts = {SET: [index for index, text in enumerate(rated.texts) if text.group in select]}
    examples = [PointwiseExample("a", "plain", ["One.", "Two."], [("shuffle", ["Two.", "One."])]),
                PointwiseExample("b", "plain", ["Three.", "Four."], [("shuffle", ["Four.", "Three."])])]
    documents = [Document(f"doc:{index}", "doc", [f"Sentence {index}.{k} here." for k in range(5)])
                 for index in range(3)]
    return DevData([rated], rated_texts, examples, build_dev_texts(documents))


def _check_scores(data: DevData) -> list[float]:
    checks = data.checks
    return [0.0] * (len(checks.texts) + len(checks.shuffles) + len(checks.texts) + len(checks.lengths))


def test_human_dev_select_pairs_are_counted_the_benchmarks_way() -> None:
    data = _dev_data()
    ratings = [data.rated[0].texts[index].rating for index in data.rated_texts[SET]]
    agreeing = {SET: ratings, "synthetic": [1.0, 1.0, 0.0, 0.0], "checks": _check_scores(data)}
    result = evaluate_option(data, agreeing, {}, 0.0)
    assert result["human"][SET] == 1.0
    # two dev-select groups of three texts: three pairs each (gaps 2, 2, 4 >= 1); the dev-report group is left out
    assert sorted(result["credits"][SET].values()) == [(3.0, 3), (3.0, 3)]
    reversed_scores = {**agreeing, SET: [-value for value in ratings]}
    assert evaluate_option(data, reversed_scores, {}, 0.0)["human"][SET] == 0.0
    tied = {**agreeing, SET: [0.0] * len(ratings)}
    assert evaluate_option(data, tied, {}, 0.0)["human"][SET] == 0.5


def test_synthetic_numbers_read_positives_first_then_each_examples_negatives() -> None:
    data = _dev_data()
    ratings = [data.rated[0].texts[index].rating for index in data.rated_texts[SET]]
    # positives 0.9 and 0.1; negatives 0.5 and 0.0: the first positive loses nothing, the second wins its own pair
    # but sits below the first negative, so AUC counts 3 of 4 cross pairs
    result = evaluate_option(data, {SET: ratings, "synthetic": [0.9, 0.1, 0.5, 0.0], "checks": _check_scores(data)},
                             {}, 0.0)
    assert result["synthetic_accuracy"] == 1.0
    assert result["synthetic_auc"] == pytest.approx(0.75)


def test_dev_documents_are_listed_in_the_order_evaluate_option_reads_their_scores() -> None:
    data = _dev_data()
    documents = dev_documents(data)
    assert documents["synthetic"] == [["One.", "Two."], ["Three.", "Four."], ["Two.", "One."], ["Four.", "Three."]]
    assert [text[0] for text in documents[SET]] == [data.rated[0].texts[index].sentences[0]
                                                     for index in data.rated_texts[SET]]
    checks = data.checks
    assert len(documents["checks"]) == 2 * len(checks.texts) + len(checks.shuffles) + len(checks.lengths)


def _credits(wins: list[float]) -> dict[str, dict[str, tuple[float, int]]]:
    return {SET: {f"g{index}": (win, 4) for index, win in enumerate(wins)}}


def test_paired_difference_is_zero_for_the_same_option_and_positive_for_a_better_one() -> None:
    first = _credits([2.0, 1.0, 3.0, 2.0, 1.0, 2.0])
    same = paired_difference(first, first)
    assert same["difference"] == 0.0
    assert same["interval"] == [0.0, 0.0]
    assert same["p_not_better"] == 1.0
    better = paired_difference(first, _credits([3.0, 2.0, 4.0, 3.0, 2.0, 3.0]))  # one more pair of four in every group
    assert better["difference"] == pytest.approx(0.25)
    assert better["interval"] == pytest.approx([0.25, 0.25])
    assert better["p_not_better"] == 0.0
