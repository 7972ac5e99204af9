"""The dev ruler that chooses the default (``dev_report``): human dev-select pairs counted the benchmark's way, the
synthetic and check numbers in their places, the extractive, length-band and system numbers beside them, and a
paired bootstrap that shows a real gain and rules out none."""

from __future__ import annotations

import json

import pytest

from coherence_metric.research.datasets.ratings import DEV_SELECT, HANNA, RatedSet, RatedText, dev_half
from coherence_metric.research.documents import Document
from coherence_metric.training.pointwise.dev_checks import LONG, SHORT, build_dev_texts, build_extractive_texts
from coherence_metric.training.pointwise.dev_report import (
    DevData,
    dev_documents,
    evaluate_option,
    is_long,
    long_texts,
    option_summary,
    paired_difference,
)
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


def _issue52_data() -> DevData:
    """The toy dev data plus extractive texts and two length bands, and a second rated set with four systems."""
    data = _dev_data()
    documents = [Document(f"doc:{index}", "doc", [f"Sentence {k} of doc {index}." for k in range(8)])
                 for index in range(4)]
    long_text = [f"Sentence {k} of a long story." for k in range(9)]
    bands = {SHORT: build_dev_texts(documents).texts, LONG: [long_text, long_text[:7]]}
    group = next(f"article-{index}" for index in range(100) if dev_half("FFCI", f"article-{index}") == DEV_SELECT)
    systems = RatedSet("FFCI", tuple(RatedText(f"{system}", group, system, (f"By {system}.",), float(rating))
                                     for rating, system in enumerate(["a", "b", "c", "d"])), "coherence", 1.0, "test")
    return DevData([*data.rated, systems], {**data.rated_texts, "FFCI": [0, 1, 2, 3]}, data.examples, data.checks,
                   build_extractive_texts(documents), bands)


def _scores(data: DevData, score) -> dict[str, list[float]]:
    return {key: [score(text) for text in texts] for key, texts in dev_documents(data).items()}


def test_evaluate_option_reports_extractive_band_and_system_numbers_the_gpu_trainer_way() -> None:
    data = _issue52_data()
    documents = dev_documents(data)
    assert len(documents["extractive"]) == 3 * 4 and len(documents["bands"]) == 4 * (len(data.bands[SHORT]) + 2)
    shortness = _scores(data, lambda text: -float(len(text)))
    result = evaluate_option(data, shortness, {key: [] for key in shortness}, 0.0)  # as on-device's dev_numbers
    for band in (SHORT, LONG):
        for cut in ("first", "first_third", "first_half"):
            assert result[f"{band}_{cut}_beats_whole"] == 1.0
    assert result["extractive_vs_lead"] == 0.5 and result["extractive_vs_shuffle"] == 0.5  # same lengths: ties
    assert result["system_tau"] == {"FFCI": 0.0}  # all four texts one sentence: constant scores
    by_rating = {**shortness, "FFCI": [0.0, 1.0, 2.0, 3.0]}
    agreeing = evaluate_option(data, by_rating, {key: [] for key in by_rating}, 0.0)
    assert agreeing["system_tau"] == {"FFCI": 1.0} and agreeing["system_tau_mean"] == 1.0
    assert agreeing["system_tau_interval"] == {"FFCI": [1.0, 1.0]}
    agreeing.pop("credits")
    assert json.loads(json.dumps(agreeing, allow_nan=False)) == agreeing
    line = option_summary(agreeing)
    assert "extract>lead 0.500" in line and "long>whole 1.00/1.00/1.00" in line and "sys_tau +1.00" in line


def test_scores_made_for_other_texts_are_refused() -> None:
    data = _issue52_data()
    scores = _scores(data, lambda text: 0.0)
    scores["bands"] = scores["bands"][:-1]
    with pytest.raises(ValueError, match="dev_documents"):
        evaluate_option(data, scores, {}, 0.0)


def test_data_without_issue_52_texts_keeps_its_old_keys_only() -> None:
    data = _dev_data()  # as an older pickle: no extractive texts, no bands
    assert set(dev_documents(data)) == {SET, "synthetic", "checks"}
    result = evaluate_option(data, _scores(data, lambda text: 0.0), {}, 0.0)
    assert not any(key.startswith(("extractive", SHORT, LONG)) for key in result)
    assert result["system_tau_mean"] is None  # one system only
    assert "extract" not in option_summary(result) and "sys_tau" not in option_summary(result)


def test_the_long_band_takes_long_human_stories_of_dev_select_and_long_articles() -> None:
    sentence = "word " * 49 + "end."
    long_story, short_story = [sentence] * 7, [sentence] * 2
    select = _groups(DEV_SELECT, 1)[0]
    rated = RatedSet(HANNA, (RatedText("h", select, "Human", tuple(long_story), 3.0),
                             RatedText("g", select, "GPT", tuple(long_story), 2.0),
                             RatedText("s", select, "Human", tuple(short_story), 3.0)), "coherence", 1.0, "test")
    articles = [Document("a:1", "a", [sentence] * 8), Document("a:2", "a", [sentence] * 20)]  # 400 and 1000 words
    assert is_long(long_story) and not is_long(short_story) and not is_long([sentence] * 20)
    assert long_texts(articles, [rated], {HANNA: [0, 1, 2]}) == [long_story, [sentence] * 8]


def test_the_overlap_tool_counts_same_prompt_pairs_whose_winner_stays_and_refuses_a_bad_overlap() -> None:
    from coherence_metric.training.pointwise.window_overlap import parse_overlap, same_winner

    data = _dev_data()
    base = {SET: [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]}  # two dev-select prompts, three texts each: six same-prompt pairs
    moved = {SET: [1.0, 2.0, 3.0, 2.5, 2.0, 3.0]}  # one prompt's first text overtakes its second: one pair flips
    assert same_winner(data, base, base) == {SET: 1.0}
    assert same_winner(data, base, moved) == {SET: pytest.approx(5 / 6)}
    assert parse_overlap("half") is None and parse_overlap("2") == 2
    with pytest.raises(SystemExit, match="'0' is neither 'half' nor a positive number"):
        parse_overlap("0")
