"""Suites: the news stand-ins are deterministic and cached, and a run scores every system once, then reads the cache."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from coherence_metric.benchmarks.harness.settings import RunSettings
from coherence_metric.benchmarks.paper.runner import run_suite
from coherence_metric.errors import InputError
from coherence_metric.research import standins
from coherence_metric.research.cache import ENV_VAR, JsonCache, benchmark_cache_dir
from coherence_metric.research.catalogue import PAPER_TEST_SETS, suite_test_sets
from coherence_metric.research.datasets import PairItem, TestSet
from coherence_metric.research.datasets.base import LMVLM_AGREEMENT

NEWS = [
    (f"toy:{number}", [f"Story {number} sentence {index} about {topic} and markets." for index in range(length)])
    for number, (length, topic) in enumerate([(4, "rain"), (5, "trade"), (7, "farms"), (10, "banks"), (6, "ports")])
]


# ----------------------------------------------------------------------------------------------- cache


def test_cache_dir_comes_from_the_argument_then_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "from-env"))
    assert benchmark_cache_dir() == tmp_path / "from-env"
    assert benchmark_cache_dir(tmp_path / "given") == tmp_path / "given"
    monkeypatch.delenv(ENV_VAR)
    assert benchmark_cache_dir().parts[-3:] == (".cache", "coherence_metric", "benchmarks")


def test_a_corrupt_cache_entry_is_a_miss_and_a_disabled_cache_writes_nothing(tmp_path):
    cache = JsonCache(tmp_path)
    cache.write("scores", "SET", "k1", {"x": 1})
    assert cache.read("scores", "SET", "k1") == {"x": 1}
    cache.path("scores", "SET", "k1").write_text("{not json", encoding="utf-8")
    assert cache.read("scores", "SET", "k1") is None
    disabled = JsonCache(tmp_path / "off", enabled=False)
    assert disabled.write("scores", "SET", "k", 1) is None and not (tmp_path / "off").exists()


def test_a_set_scored_in_parts_resumes_after_a_kill_from_its_last_finished_part(monkeypatch, tmp_path):
    """A run killed mid-set (a session's end) must keep the parts it finished and score only the rest when rerun,
    with the same scores as one uninterrupted run."""
    from coherence_metric.benchmarks.harness import cached_scores
    from coherence_metric.benchmarks.harness.systems import trivial_systems

    monkeypatch.setattr(cached_scores, "PART_SIZE", 3)
    word_count = trivial_systems()[0]
    calls: list = []
    killed_at = [3]

    def counted(documents):
        calls.append(len(documents))
        if len(calls) == killed_at[0]:
            raise KeyboardInterrupt  # the run is killed while scoring its third part
        return word_count.score(documents)

    def system():  # a fresh system, as a new process would build
        return dataclasses.replace(word_count, load=lambda: counted, _scorer=None)

    documents = [sentences[:1 + index % 4] for index, (_, sentences) in enumerate(NEWS * 2)][:8]
    cache = JsonCache(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        cached_scores.score_documents(system(), "SET", documents, cache)
    assert calls == [3, 3, 2]
    killed_at[0] = 0
    resumed = cached_scores.score_documents(system(), "SET", documents, cache)
    assert calls == [3, 3, 2, 2]  # only the unfinished part is scored again
    assert resumed.scores == trivial_systems()[0].score(documents).scores and not resumed.cached
    again = cached_scores.score_documents(system(), "SET", documents, cache)
    assert again.cached and again.scores == resumed.scores and calls == [3, 3, 2, 2]


# ------------------------------------------------------------------------------------------ stand-ins


def test_news_permuted_is_deterministic_unique_and_never_the_original():
    first = standins.build_news_permuted(NEWS, seed=3)
    assert first == standins.build_news_permuted(NEWS, seed=3)
    assert first.items != standins.build_news_permuted(NEWS, seed=4).items
    assert len(first) == len(NEWS) * 20
    by_document: dict = {}
    for item in first:
        assert item.neg != item.pos and sorted(item.neg) == sorted(item.pos)
        by_document.setdefault(item.meta["doc_id"], []).append(tuple(item.neg))
    assert all(len(set(negatives)) == len(negatives) for negatives in by_document.values())
    assert all(len(negatives) == 20 for negatives in by_document.values())  # 4 sentences: 23 orderings, enough


def test_news_intrusion_replaces_one_sentence_with_a_foreign_one():
    test_set = standins.build_news_intrusion(NEWS, seed=0)
    assert test_set == standins.build_news_intrusion(NEWS, seed=0)
    for item in test_set:
        differing = [index for index, (a, b) in enumerate(zip(item.pos, item.neg)) if a != b]
        assert len(differing) == 1 and differing[0] > 0
        assert item.meta["intruder_doc_id"] != item.meta["doc_id"]


def test_a_stand_in_is_built_once_then_read_from_the_cache(monkeypatch, tmp_path):
    built = standins.load_standin("news-permuted", seed=2, cache_dir=tmp_path, documents=NEWS)
    cached_files = list((tmp_path / standins.CACHE_KIND).glob("NEWS-PERMUTED-*.json"))
    assert len(cached_files) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("rebuilt although cached")

    monkeypatch.setitem(standins.BUILDERS, standins.NEWS_PERMUTED, refuse)
    assert standins.load_standin("NEWS-PERMUTED", seed=2, cache_dir=tmp_path, documents=NEWS) == built
    with pytest.raises(AssertionError, match="rebuilt"):  # another seed or other documents: another key
        standins.load_standin("NEWS-PERMUTED", seed=5, cache_dir=tmp_path, documents=NEWS)
    with pytest.raises(AssertionError, match="rebuilt"):
        standins.load_standin("NEWS-PERMUTED", seed=2, cache_dir=tmp_path, documents=NEWS[1:])
    with pytest.raises(InputError, match="unknown stand-in"):
        standins.load_standin("NEWS-NOTHING", documents=NEWS)


def test_held_out_news_documents_follow_the_recipe(shared_data):
    documents = standins.read_news_documents(shared_data, corpora=["lee"])
    assert documents and all(doc_id.startswith("lee:") for doc_id, _ in documents)
    assert all(standins.MIN_SENTENCES <= len(sentences) <= standins.MAX_SENTENCES for _, sentences in documents)


def test_suites_list_the_paper_sets_and_refuse_unknown_names():
    assert suite_test_sets("paper") == PAPER_TEST_SETS
    assert len(suite_test_sets("probes")) == 8 and len(suite_test_sets("all")) == 15
    with pytest.raises(InputError, match="unknown suite 'papers'"):
        suite_test_sets("papers")


# ------------------------------------------------------------------------------------------ the runner

DOCS = [
    ["The bank raised rates.", "Markets fell at once.", "Analysts had expected it."],
    ["Markets fell at once.", "Analysts had expected it.", "The bank raised rates."],
    ["Rain fell all night.", "The river rose.", "Roads were closed by morning."],
    ["Roads were closed by morning.", "Rain fell all night.", "The river rose."],
]


def _toy_sets() -> list[TestSet]:
    pairs = TestSet(
        name="TOY-PAIRS",
        items=(
            PairItem("a", DOCS[0], DOCS[1]),
            PairItem("b", DOCS[2], DOCS[3]),
            PairItem("same", DOCS[0], DOCS[0]),  # identical texts: a tie for every system
        ),
        source="test",
    )
    annotated = TestSet(
        name="TOY-LMVLM",
        items=tuple(PairItem(str(i), DOCS[i % 4], DOCS[(i + 1) % 4]) for i in range(6)),
        source="test",
        annotations=(("0", "1", "0", "1", "0", "0"), ("0", "1", "0", "1", "0", "0"), ("0", "1", "1", "1", "0", "1")),
        primary_metric=LMVLM_AGREEMENT,
    )
    return [pairs, annotated]


@pytest.fixture
def count_calls(monkeypatch):
    """Count calls to the transformer scorer and the cosine baseline."""
    from coherence_metric.benchmarks.harness.baselines import AdjacentSentenceCosineBaseline
    from coherence_metric.scorer import CoherenceScorer

    calls = {"scorer": 0, "cosine": 0}
    original_score, original_cosine = CoherenceScorer.score, AdjacentSentenceCosineBaseline.score

    def score(self, texts):
        calls["scorer"] += 1
        return original_score(self, texts)

    def cosine(self, documents):
        calls["cosine"] += 1
        return original_cosine(self, documents)

    monkeypatch.setattr(CoherenceScorer, "score", score)
    monkeypatch.setattr(AdjacentSentenceCosineBaseline, "score", cosine)
    return calls


def test_a_run_scores_each_set_once_per_system_reports_ties_and_then_reads_the_cache(
    bert_checkpoint, tmp_path, count_calls
):
    settings = RunSettings(model=str(bert_checkpoint), seed=0, cache_dir=tmp_path / "cache", out_dir=tmp_path / "out")
    result = run_suite("toy", settings, test_sets=_toy_sets())
    names = [system["name"] for system in result["systems"]]
    assert names[1:] == ["random", "No FT", "adjacent cosine", "word count", "sentence count",
                         "minus repeated trigrams"] and names[0].startswith("local:")
    assert count_calls == {"scorer": 4, "cosine": 2}  # model and No FT: one call per set each
    pairs, lmvlm = result["test_sets"]
    for cell in pairs["results"].values():
        assert cell["n"] == 3 and cell["n_ties"] >= 1 and cell["n_documents"] == 4
    assert set(lmvlm["results"][names[0]]) >= {"alpha", "alpha_annotators_1_2", "majority_agreement", "n_model_ties"}

    written = json.loads((tmp_path / "out" / "toy.json").read_text(encoding="utf-8"))
    assert written["test_sets"][0]["results"]["random"]["n_ties"] == 1
    assert written["model"]["signature"].startswith("coherence-metric:") and written["partial"] is False
    assert (tmp_path / "out" / "toy.png").stat().st_size > 0
    markdown = (tmp_path / "out" / "toy.md").read_text(encoding="utf-8")
    assert "| TOY-PAIRS | 3 | accuracy % |" in markdown and "(1 ties)" in markdown

    again = run_suite("toy", settings, test_sets=_toy_sets())
    assert count_calls == {"scorer": 4, "cosine": 2}, "the second run must read every score from the cache"
    assert all(cell["cached"] for row in again["test_sets"] for cell in row["results"].values())
    assert again["test_sets"][0]["results"] == {
        name: {**cell, "cached": True} for name, cell in result["test_sets"][0]["results"].items()
    }
    run_suite("toy", dataclasses.replace(settings, out_dir=None, use_cache=False, baselines=False),
              test_sets=_toy_sets())
    assert count_calls["scorer"] == 6


def test_no_ft_with_the_checkpoints_own_head_seed_reuses_the_models_scores(bert_checkpoint, tmp_path, count_calls):
    # The fixture's head is seeded 1 on its backbone: No FT seeded 1 is the same model, so it is not scored again.
    result = run_suite("toy", RunSettings(model=str(bert_checkpoint), seed=1, cache_dir=tmp_path, limit=2),
                       test_sets=_toy_sets()[:1])
    row = result["test_sets"][0]
    model = result["systems"][0]["name"]
    assert row["n"] == 2 and row["results"]["No FT"]["reused_from"] == model
    assert row["results"]["No FT"]["accuracy"] == row["results"][model]["accuracy"]
    assert count_calls["scorer"] == 1


def test_the_paper_suite_runs_on_the_real_sets_with_published_numbers(bert_checkpoint, shared_data, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setattr(standins, "NEWS_CORPORA", ("lee",))  # the smallest news corpus keeps the test quick
    result = run_suite("paper", RunSettings(model=str(bert_checkpoint), limit=2, cache_dir=tmp_path,
                                            data_dir=shared_data, baselines=False, out_dir=tmp_path / "out"))
    rows = {row["name"]: row for row in result["test_sets"]}
    markdown = (tmp_path / "out" / "paper_limit2.md").read_text(encoding="utf-8")
    table = [line.split(" | ")[0].lstrip("| ") for line in markdown.splitlines() if line.startswith("| ")][1:]
    assert table == ["SUMMEVAL", "LMVLM", "LMVLM", "LMVLM", "INSTED-WIKI", "STORYCLOZE", "WSJ-SAMPLE-PERMUTED ‡",
                     "NEWS-PERMUTED ‡", "NEWS-INTRUSION ‡"]
    assert "| 67.19 | 54.93 |" in markdown and "| 74.62 | 51.69 |" in markdown and "93.36 (INSTED-CNN) ‡" in markdown
    assert (tmp_path / "out" / "paper_limit2.png").is_file()
    assert list(rows) == list(PAPER_TEST_SETS)
    assert all(row["n"] == 2 for row in rows.values())
    assert rows["SUMMEVAL"]["published"]["full_model"] == 67.19
    assert rows["LMVLM"]["published"]["full_model"] == 0.473
    assert rows["NEWS-INTRUSION"]["published"] == {**rows["NEWS-INTRUSION"]["published"], "stand_in": True,
                                                   "paper_test_set": "INSTED-CNN", "full_model": 93.36}
    assert rows["NEWS-PERMUTED"]["notes"]["corpora"] == ["lee"]


def test_no_ft_falls_back_to_the_checkpoints_own_backbone_when_the_pretrained_one_is_gone(bert_checkpoint,
                                                                                          corrupt_copy):
    from coherence_metric.benchmarks.harness.systems import no_ft_backbone
    from coherence_metric.models.checkpoint_config import CONFIG_NAME

    assert no_ft_backbone(bert_checkpoint).note.startswith("the pretrained backbone")
    copy = corrupt_copy(bert_checkpoint)
    config = json.loads((copy / CONFIG_NAME).read_text(encoding="utf-8"))
    config["backbone"]["name_or_path"] = str(copy / "no-such-backbone")
    (copy / CONFIG_NAME).write_text(json.dumps(config), encoding="utf-8")
    found = no_ft_backbone(copy)
    assert found.folder == copy / "backbone" and "own backbone/" in found.note


def test_documents_over_max_length_are_windowed_and_the_report_says_how_many(bert_checkpoint, tmp_path):
    sentences = [f"Sentence number {index} tells the river story a little further on." for index in range(12)]
    long_pair = TestSet(name="TOY-LONG", source="test",
                        items=(PairItem("long", sentences, sentences[::-1]), PairItem("short", DOCS[0], DOCS[1])))
    result = run_suite("toy", RunSettings(model=str(bert_checkpoint), seed=0, cache_dir=tmp_path,
                                          out_dir=tmp_path / "out"), test_sets=[long_pair])
    cells = result["test_sets"][0]["results"]
    model = result["systems"][0]["name"]
    assert (cells[model]["n_windowed"], cells[model]["n_truncated"]) == (2, 0)
    assert cells["No FT"]["n_windowed"] == 2 and cells["adjacent cosine"]["n_windowed"] is None
    markdown = (tmp_path / "out" / "toy.md").read_text(encoding="utf-8")
    assert "TOY-LONG: documents longer than max_length, scored as the mean of overlapping sentence windows " \
           f"(of 4 unique): {model} 2, No FT 2." in markdown
    again = run_suite("toy", RunSettings(model=str(bert_checkpoint), seed=0, cache_dir=tmp_path), test_sets=[long_pair])
    assert again["test_sets"][0]["results"][model]["n_windowed"] == 2, "the count must survive the cache"


# ------------------------------------------------------------------ resuming from another machine's report


def _killed_after_first_set(report: Path) -> None:
    """Make a finished report look like the partial one a run killed after its first test set leaves behind."""
    result = json.loads(report.read_text(encoding="utf-8"))
    result["test_sets"], result["partial"] = result["test_sets"][:1], True
    report.write_text(json.dumps(result), encoding="utf-8")


def test_a_run_on_another_machine_takes_the_finished_sets_of_a_partial_report_and_scores_only_the_rest(
    bert_checkpoint, tmp_path, count_calls
):
    """The score cache does not travel between machines; the report does. A run with --resume-from and an empty
    cache must score only the sets the earlier run had not finished, and end with the same numbers as one run."""
    first = RunSettings(model=str(bert_checkpoint), baselines=False, cache_dir=tmp_path / "machine-1",
                        out_dir=tmp_path / "out-1")
    whole = run_suite("toy", first, test_sets=_toy_sets())
    assert count_calls["scorer"] == 2
    _killed_after_first_set(tmp_path / "out-1" / "toy.json")

    elsewhere = dataclasses.replace(first, cache_dir=tmp_path / "machine-2", out_dir=tmp_path / "out-2",
                                    resume_from=(tmp_path / "out-1" / "toy.json",))
    resumed = run_suite("toy", elsewhere, test_sets=_toy_sets())
    assert count_calls["scorer"] == 3, "only TOY-LMVLM may be scored again"
    assert [row["name"] for row in resumed["test_sets"]] == ["TOY-PAIRS", "TOY-LMVLM"]
    def untimed(rows: list) -> list:
        rows = json.loads(json.dumps(rows))
        for row in rows:
            for cell in row["results"].values():
                cell.pop("seconds")
        return rows

    assert json.loads(json.dumps(resumed["test_sets"][0])) == json.loads(json.dumps(whole["test_sets"][0]))
    assert untimed(resumed["test_sets"]) == untimed(whole["test_sets"])  # the rescored set: the same numbers
    assert resumed["partial"] is False
    assert resumed["resumed"]["test_sets"] == ["TOY-PAIRS"]
    assert resumed["resumed"]["seconds"] == round(sum(cell["seconds"] for cell in
                                                      whole["test_sets"][0]["results"].values()), 2)
    markdown = (tmp_path / "out-2" / "toy.md").read_text(encoding="utf-8")
    assert f"1 test set(s) taken from earlier runs' reports (`{tmp_path / 'out-1' / 'toy.json'}`)" in markdown
    assert "(TOY-PAIRS)." in markdown


def test_resume_from_refuses_a_report_of_another_model_seed_systems_or_items(bert_checkpoint, tmp_path):
    settings = RunSettings(model=str(bert_checkpoint), baselines=False, cache_dir=tmp_path / "cache",
                           out_dir=tmp_path / "out")
    run_suite("toy", settings, test_sets=_toy_sets())
    report = tmp_path / "out" / "toy.json"
    original = json.loads(report.read_text(encoding="utf-8"))

    def resume_with(changed: dict, **replaced) -> None:
        edited = tmp_path / "edited.json"
        edited.write_text(json.dumps({**original, **changed}), encoding="utf-8")
        run_suite("toy", dataclasses.replace(settings, resume_from=(edited,), **replaced), test_sets=_toy_sets())

    other_model = {**original["model"], "signature": original["model"]["signature"].replace("dtype:fp32", "dtype:bf16")}
    with pytest.raises(InputError, match=r"--resume-from .*edited.json: it measured .*dtype:bf16.*this run measures"):
        resume_with({"model": other_model})
    with pytest.raises(InputError, match="it ran with seed 0, this run with seed 3"):
        resume_with({}, seed=3)
    with pytest.raises(InputError, match="it scored the systems local:.*, this run scores local:.*, random"):
        resume_with({}, baselines=True)
    fewer = [{**original["test_sets"][0], "n": 2}, original["test_sets"][1]]
    with pytest.raises(InputError, match=r"its TOY-PAIRS was measured on other items \(n 2 there, 3 here\)"):
        resume_with({"test_sets": fewer})
    with pytest.raises(InputError, match="test set rows are not those a suite report has"):
        resume_with({"test_sets": [{"name": "TOY-PAIRS"}]})
    (tmp_path / "not-a-report.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="is not a suite report"):
        run_suite("toy", dataclasses.replace(settings, resume_from=(tmp_path / "not-a-report.json",)),
                  test_sets=_toy_sets())


def test_sets_are_taken_from_several_reports_each_named_and_the_first_that_lists_a_set_wins(
    bert_checkpoint, tmp_path, count_calls
):
    """A killed `all` run and a finished `probes` run of the same model both give their sets to one run."""
    base = RunSettings(model=str(bert_checkpoint), baselines=False, cache_dir=tmp_path / "machine-1")
    pairs, annotated = _toy_sets()
    run_suite("toy", dataclasses.replace(base, out_dir=tmp_path / "pairs"), test_sets=[pairs])
    run_suite("toy", dataclasses.replace(base, out_dir=tmp_path / "both"), test_sets=[annotated, pairs])
    first, second = tmp_path / "pairs" / "toy.json", tmp_path / "both" / "toy.json"
    calls = count_calls["scorer"]
    resumed = run_suite("toy", dataclasses.replace(base, cache_dir=tmp_path / "machine-2", resume_from=(first, second)),
                        test_sets=_toy_sets())
    assert count_calls["scorer"] == calls, "every set was in one of the reports"
    assert resumed["resumed"]["from"] == [str(first), str(second)]
    assert resumed["resumed"]["sources"] == {"TOY-PAIRS": str(first), "TOY-LMVLM": str(second)}


def test_a_set_begun_on_one_machine_is_finished_on_another_from_the_parts_beside_its_report(
    bert_checkpoint, tmp_path, monkeypatch, count_calls
):
    """A set longer than a session: the parts a killed run finished travel beside its report, so a run on another
    machine scores only the rest, with the numbers of one uninterrupted run; a tampered part is scored again."""
    from coherence_metric.benchmarks.harness import cached_scores
    from coherence_metric.scorer import CoherenceScorer

    monkeypatch.setattr(cached_scores, "PART_SIZE", 2)  # four unique documents per toy set: two parts each
    counted = CoherenceScorer.score
    kill_at = [4]  # TOY-PAIRS's two parts, then TOY-LMVLM's first; killed in its second

    def killed(self, texts):
        if count_calls["scorer"] + 1 == kill_at[0]:
            raise KeyboardInterrupt
        return counted(self, texts)

    monkeypatch.setattr(CoherenceScorer, "score", killed)
    first = RunSettings(model=str(bert_checkpoint), baselines=False, cache_dir=tmp_path / "machine-1",
                        out_dir=tmp_path / "out-1")
    with pytest.raises(KeyboardInterrupt):
        run_suite("toy", first, test_sets=_toy_sets())
    parts = sorted(path.name for path in (tmp_path / "out-1" / "score-parts").iterdir())
    assert len(parts) == 1 and parts[0].startswith("TOY-LMVLM-"), "a finished set's parts leave; a begun set's stay"
    kill_at[0] = 0

    report = tmp_path / "out-1" / "toy.json"
    elsewhere = dataclasses.replace(first, cache_dir=tmp_path / "machine-2", out_dir=tmp_path / "out-2",
                                    resume_from=(report,))
    calls = count_calls["scorer"]
    resumed = run_suite("toy", elsewhere, test_sets=_toy_sets())
    assert count_calls["scorer"] == calls + 1, "only TOY-LMVLM's second part may be scored"
    assert resumed["resumed"]["test_sets"] == ["TOY-PAIRS"] and resumed["resumed"]["parts"] == {"TOY-LMVLM": 1}
    assert not (tmp_path / "out-2" / "score-parts").exists(), "a finished run leaves no parts beside its report"
    assert "taken from beside its report (per set: TOY-LMVLM 1;" in (tmp_path / "out-2" / "toy.md").read_text("utf-8")
    whole = run_suite("toy", dataclasses.replace(first, cache_dir=tmp_path / "machine-3", out_dir=None),
                      test_sets=_toy_sets())

    def untimed(row: dict) -> dict:
        return {name: {key: value for key, value in cell.items() if key != "seconds"}
                for name, cell in row["results"].items()}

    assert untimed(resumed["test_sets"][1]) == untimed(whole["test_sets"][1])

    carried = tmp_path / "out-1" / "score-parts" / parts[0]
    entry = json.loads(carried.read_text(encoding="utf-8"))
    entry["value"]["scores"][0] = "high"
    carried.write_text(json.dumps(entry), encoding="utf-8")
    calls = count_calls["scorer"]
    again = run_suite("toy", dataclasses.replace(elsewhere, cache_dir=tmp_path / "machine-4", out_dir=None),
                      test_sets=_toy_sets())
    assert count_calls["scorer"] == calls + 2, "the tampered part is scored again, never read as scores"
    assert "parts" not in again["resumed"] and untimed(again["test_sets"][1]) == untimed(whole["test_sets"][1])


def test_sets_from_earlier_runs_are_taken_first_so_a_kill_while_scoring_loses_none_of_them(
    bert_checkpoint, tmp_path, monkeypatch, count_calls
):
    """A run killed while scoring must leave a partial report with every set it took, including those after the
    killed one in the suite's order; the finished report keeps the suite's order."""
    from coherence_metric.scorer import CoherenceScorer

    pairs, annotated = _toy_sets()
    base = RunSettings(model=str(bert_checkpoint), baselines=False, cache_dir=tmp_path / "machine-1")
    run_suite("toy", dataclasses.replace(base, out_dir=tmp_path / "first"), test_sets=[annotated])
    counted = CoherenceScorer.score

    def killed(self, texts):
        raise KeyboardInterrupt

    monkeypatch.setattr(CoherenceScorer, "score", killed)
    second = dataclasses.replace(base, cache_dir=tmp_path / "machine-2", out_dir=tmp_path / "second",
                                 resume_from=(tmp_path / "first" / "toy.json",))
    with pytest.raises(KeyboardInterrupt):
        run_suite("toy", second, test_sets=[pairs, annotated])
    partial = json.loads((tmp_path / "second" / "toy.json").read_text(encoding="utf-8"))
    assert partial["partial"] is True and [row["name"] for row in partial["test_sets"]] == ["TOY-LMVLM"]

    monkeypatch.setattr(CoherenceScorer, "score", counted)
    third = dataclasses.replace(second, cache_dir=tmp_path / "machine-3", out_dir=tmp_path / "third",
                                resume_from=(tmp_path / "second" / "toy.json",))
    finished = run_suite("toy", third, test_sets=[pairs, annotated])
    assert [row["name"] for row in finished["test_sets"]] == ["TOY-PAIRS", "TOY-LMVLM"]
    assert finished["resumed"]["test_sets"] == ["TOY-LMVLM"] and finished["partial"] is False
