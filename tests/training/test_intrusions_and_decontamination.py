"""Intrusion negatives (built the INSteD way) and the removal of documents that share text with a test set."""

from __future__ import annotations

import json

import pytest

from coherence_metric import InputError
from coherence_metric.training.config import recipe_from_dict
from coherence_metric.training.data.decontamination import contaminated_documents, drop_documents, sentence_key
from coherence_metric.training.data.examples import TrainingItem
from coherence_metric.training.data.intrusions import (
    build_document_intrusions,
    build_intrusions,
    build_sibling_intrusions,
    intrusion_document,
    nearest_documents,
)
from coherence_metric.training.data.storage import read_split, split_path, write_split
from coherence_metric.training.trainer import INTRUSIONS_FILE, Trainer, read_log

from .test_trainer import recipe

#: A sentence of the PROBE-to_negation set (../shared/data), 8+ words: a document holding it is contaminated.
PROBE_SENTENCE = ("Pittsburg High School in Pittsburg, Contra Costa County, California is a suburban school "
                  "serving all of Pittsburg.")


def with_objective(config, **values):
    """The test recipe with objective settings changed (``recipe()`` takes the objective's name only)."""
    mapping = config.to_dict()
    mapping["objective"].update(values)
    return recipe_from_dict(mapping)


def item(doc_id: str, block: int, sentences, source: str = "news") -> TrainingItem:
    return TrainingItem(id=f"{doc_id}#{block}", doc_id=doc_id, source=source, pos=list(sentences),
                        negs=[list(reversed(range(len(sentences))))], tokens=10)


CORPUS = [
    item("a", 0, ["Cats sleep.", "The cat chased a red ball across the kitchen.", "Then it slept."]),
    item("a", 1, ["The cat chased a red ball again.", "Dogs bark.", "Birds sing."]),  # same document, block 2
    item("b", 0, ["Markets fell.", "A red ball rolled across the kitchen floor.", "Traders sold shares."]),
    item("c", 0, ["Rain fell.", "Farmers planted wheat.", "The harvest was good."]),
    item("z", 0, ["The cat chased a red ball across the yard.", "Nothing else.", "End."], source="other"),
]


def test_the_intruder_is_the_most_similar_sentence_of_another_document_of_the_same_corpus():
    found = build_intrusions(CORPUS, per_item=2, seed=7)
    assert set(found) == {entry.id for entry in CORPUS}
    position_of = {entry.id: dict(found[entry.id]) for entry in CORPUS}
    # a#0's kitchen sentence: its closest match in a#1 is the same document, and z is another corpus
    assert position_of["a#0"][1] == "A red ball rolled across the kitchen floor."
    for entry in CORPUS:
        positions = [position for position, _ in found[entry.id]]
        assert 0 not in positions and len(set(positions)) == len(positions) <= 2
        own_document = {s for other in CORPUS if other.doc_id == entry.doc_id for s in other.pos}
        assert not {sentence for _, sentence in found[entry.id]} & own_document
    assert found["z#0"] == []  # alone in its corpus: nothing foreign to draw from
    assert build_intrusions(CORPUS, per_item=2, seed=7) == found  # seeded
    assert build_intrusions(CORPUS, per_item=0, seed=7) == {}


NEWS = [
    item("cat1", 0, ["The cat slept on the mat.", "The cat woke at noon.", "It ate fish."]),
    item("cat2", 0, ["A cat chased a mouse.", "The mouse hid under the mat.", "The cat waited."]),
    item("cat2-copy", 0, ["A cat chased a mouse.", "The mouse hid under the mat.", "The cat waited."]),
    item("rain", 0, ["Rain fell on the farm.", "Farmers planted wheat.", "The harvest was late."]),
    item("lone", 0, ["Quarks bind into hadrons.", "Gluons carry the force.", "Physicists agree."], source="other"),
]


def test_the_nearest_document_is_the_most_similar_other_one_and_copies_do_not_count():
    nearest = nearest_documents([entry.pos for entry in NEWS])
    # cat1 shares "cat" and "mat" with cat2 (and its copy); cat2's copy is 1.0 similar: a refiled story, skipped
    assert nearest[0] in (1, 2) and nearest[1] == 0 and nearest[2] == 0
    assert nearest_documents([["Only one."]]) == [None]
    assert nearest_documents([["Alpha beta."], ["Gamma delta."]]) == [None, None]  # no shared word


def test_a_document_intruder_is_a_random_sentence_of_the_nearest_document_of_the_same_corpus():
    found = build_document_intrusions(NEWS, per_item=2, seed=3)
    nearest_sentences = {*NEWS[1].pos}
    for position, sentence in found["cat1#0"]:
        assert position in (1, 2) and sentence in nearest_sentences - set(NEWS[0].pos)
    assert len(found["cat1#0"]) == 2 and len({position for position, _ in found["cat1#0"]}) == 2
    assert {sentence for _, sentence in found["rain#0"]} <= {s for entry in NEWS[:3] for s in entry.pos}
    assert found["lone#0"] == []  # alone in its corpus
    assert build_document_intrusions(NEWS, per_item=2, seed=3) == found  # seeded
    assert build_document_intrusions(NEWS, per_item=0, seed=3) == {}


def test_a_sibling_intruder_comes_from_another_block_of_the_same_document_even_one_not_drawn():
    found = build_sibling_intrusions(CORPUS[:1], per_item=2, seed=5, pool=CORPUS)
    sibling = set(CORPUS[1].pos)  # a#1: the block of a#0's document that was not drawn
    assert len(found["a#0"]) == 2 and {position for position, _ in found["a#0"]} == {1, 2}
    assert {sentence for _, sentence in found["a#0"]} <= sibling
    alone = build_sibling_intrusions(CORPUS, per_item=2, seed=5)
    assert alone["b#0"] == alone["c#0"] == alone["z#0"] == []  # one block only: no sibling to draw from
    assert {sentence for _, sentence in alone["a#1"]} <= set(CORPUS[0].pos)
    assert build_sibling_intrusions(CORPUS, per_item=2, seed=5) == alone  # seeded
    assert build_sibling_intrusions(CORPUS, per_item=0, seed=5) == {}


def test_an_intrusion_document_swaps_exactly_one_sentence():
    document = intrusion_document(CORPUS[0], (1, "A red ball rolled across the kitchen floor."))
    assert document == ["Cats sleep.", "A red ball rolled across the kitchen floor.", "Then it slept."]
    assert CORPUS[0].pos[1] == "The cat chased a red ball across the kitchen."  # the item is untouched


def test_documents_sharing_a_long_sentence_with_a_test_set_are_found_and_dropped(shared_data):
    from coherence_metric.training.data.decontamination import benchmark_sentences

    probe_sentences = benchmark_sentences("probes")  # the real probe sets, read from ../shared/data
    shared = PROBE_SENTENCE
    assert sentence_key(shared) in probe_sentences
    items = [item("wiki:1", 0, ["Intro.", shared.upper(), "More."]), item("wiki:1", 1, ["Other block.", "x", "y"]),
             item("wiki:2", 0, ["It has been in operation since 1924.", "Short.", "Lines."])]  # 7 words: chance
    found = contaminated_documents(items, probe_sentences)
    assert set(found) == {"wiki:1"} and all(name.startswith("PROBE-") for name in found["wiki:1"])
    kept, dropped = drop_documents(items, found)
    assert [entry.id for entry in kept] == ["wiki:2#0"] and dropped == 2  # every block of the document goes


@pytest.mark.slow
def test_training_with_intrusion_negatives(tiny_training_data, tiny_bert_dir, tmp_path):
    config = with_objective(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "intr"), negatives=3, intrusions=1)
    trainer = Trainer(config, progress=False)
    position = trainer.stream_position(0, 0)
    entry, epoch = trainer.item_at(position)
    negatives = trainer.negatives_for(position, entry, epoch)
    assert len(negatives) == 3
    *permutations, intruded = negatives
    assert all(sorted(negative) == sorted(entry.pos) for negative in permutations)
    assert sum(a != b for a, b in zip(intruded, entry.pos)) == 1 and len(intruded) == len(entry.pos)
    trainer.run()
    evaluations = [record for record in read_log(tmp_path / "intr") if "dev_accuracy" in record]
    assert all(0.0 <= record["dev_intrusion_accuracy"] <= 1.0 and record["dev_intrusion_pairs"] > 0
               for record in evaluations)
    assert all(record["dev_selection_score"] == pytest.approx(
        (record["dev_accuracy"] + record["dev_intrusion_accuracy"]) / 2) for record in evaluations)
    assert max(record["dev_selection_score"] for record in evaluations) == evaluations[-1]["best_dev_accuracy"]
    stored = json.loads((tmp_path / "intr" / INTRUSIONS_FILE).read_text())
    assert stored["train"] == {key: [list(x) for x in value] for key, value in trainer.train_intrusions.items()}
    resumed = Trainer(config, progress=False)  # a restart reads the built negatives back
    assert resumed.train_intrusions == {key: [tuple(x) for x in value] for key, value in stored["train"].items()}


@pytest.mark.slow
def test_decontaminated_training_drops_a_document_holding_benchmark_text(tiny_training_data, tiny_bert_dir, tmp_path):
    shared = PROBE_SENTENCE
    train = list(read_split(split_path(tiny_training_data, "train")))
    leaked = TrainingItem(id="leak#0", doc_id="leak", source=train[0].source,
                          pos=["A start.", shared, "An end.", "Done."], negs=[[3, 2, 1, 0]], tokens=40)
    folder = tmp_path / "data"
    folder.mkdir()
    write_split([*train, leaked], split_path(folder, "train"))
    write_split(list(read_split(split_path(tiny_training_data, "dev"))), split_path(folder, "dev"))
    trainer = Trainer(recipe(folder, tiny_bert_dir, tmp_path / "clean", data={"decontaminate": True}), progress=False)
    assert "leak#0" not in {entry.id for entry in trainer.train_items}
    notes = trainer.data_notes["decontamination"]
    # the real Lee slice holds a copy of a held-out news story too: it goes as well, and is counted
    assert len(trainer.train_items) == len(train) + 1 - notes["train_items_dropped"]
    assert notes["documents_per_test_set"]["PROBE-to_negation"] >= 1


def test_intrusions_must_leave_room_for_permutations(tiny_training_data, tiny_bert_dir, tmp_path):
    with pytest.raises(InputError, match="objective.intrusions must be at least 0 and below objective.negatives"):
        with_objective(recipe(tiny_training_data, tiny_bert_dir, tmp_path / "x"), intrusions=2)


@pytest.mark.slow
def test_a_state_written_before_intrusions_existed_still_resumes(tiny_training_data, tiny_bert_dir, tmp_path):
    import torch

    output = tmp_path / "old"
    Trainer(recipe(tiny_training_data, tiny_bert_dir, output, "contrastive", train={"max_steps": 2}),
            progress=False).run()
    state = torch.load(output / "trainer_state.pt", weights_only=True)
    del state["recipe"]["objective"]["intrusions"]  # the key older versions did not write
    torch.save(state, output / "trainer_state.pt")
    resumed = Trainer(recipe(tiny_training_data, tiny_bert_dir, output, "contrastive"), progress=False)
    assert resumed.run()["steps"] == 4
    with pytest.raises(InputError, match=r"objective.intrusions: 0 -> 1"):
        Trainer(with_objective(recipe(tiny_training_data, tiny_bert_dir, output, "contrastive"), intrusions=1),
                progress=False).run()
