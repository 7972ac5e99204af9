"""The teacher's pool and its score parts: the pool is the recipe's own texts plus the cuts and extracts a student must
not copy, in a fixed order; parts resume across runs, never mix teachers, and a damaged part is scored again."""

from __future__ import annotations

import itertools
import json
import random
import warnings
from pathlib import Path

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.research.documents import Document
from coherence_metric.training.pointwise.teacher.pool import build_pool, extract_of, long_window, text_key, variants
from coherence_metric.training.pointwise.teacher.score_pool import main as score_pool_main
from coherence_metric.training.pointwise.teacher.scores import Scorer, load_scores, part_name, read_part, write_part
from coherence_metric.training.pointwise.texts import PointwiseData

from ..conftest import REPO_DIR

SENTENCES = [f"Sentence {n} of the river story says that the water rose by {n} metres near the old mill."
             for n in range(1, 40)]  # 17 words each: 39 sentences, 663 words
DOCUMENTS = [Document(f"toy:{n}", "toy", [f"In town {n} the council met on {day}." for day in
                                         ("Monday", "Tuesday", "Friday")] + [f"It voted on plan {n}.",
                                                                             f"Plan {n} was passed."])
             for n in range(12)] + [Document("toy:long", "toy", SENTENCES)]
DATA = PointwiseData(corpora=["toy"], min_sentences=1, max_sentences=5, lead_share=0.5, truncation_leads=True,
                     negatives={"shuffle": 1, "repeat_sentence": 1}, negatives_per_text=2, seed=7)


def test_a_text_key_is_the_start_of_its_sha256():
    import hashlib

    assert text_key("Ünïcode text.") == hashlib.sha256("Ünïcode text.".encode("utf-8")).hexdigest()[:16]
    assert text_key("A b.") != text_key("A b. ")


def test_the_pool_is_the_same_every_time_and_each_text_comes_once():
    first = [item.key for item in build_pool(DATA, documents=DOCUMENTS, long_every=1)]
    again = [item.key for item in build_pool(DATA, documents=DOCUMENTS, long_every=1)]
    assert first == again and len(first) == len(set(first))


def test_the_pool_holds_the_recipes_texts_the_cuts_the_extract_and_a_long_text():
    kinds = {item.kind for item in build_pool(DATA, documents=DOCUMENTS, long_every=1)}
    assert {"positive", "negative:shuffle", "lead", "cut_first", "extract", "long", "long_shuffle",
            "long_cut_first", "long_cut_third"} <= kinds


def test_cuts_are_leads_and_an_extract_is_an_in_order_subset_that_is_not_a_lead():
    sentences = [f"S{n}." for n in range(9)]
    made = dict(variants(sentences, random.Random(3)))
    assert made["cut_first"] == ["S0."] and made["cut_third"] == sentences[:3] and made["cut_half"] == sentences[:4]
    for seed in range(50):
        extract = extract_of(sentences, random.Random(seed))
        assert extract is not None and 2 <= len(extract) < 9 and extract != sentences[:len(extract)]
        assert [sentences.index(sentence) for sentence in extract] == sorted(sentences.index(s) for s in extract)
    assert extract_of(sentences[:2], random.Random(0)) is None


def test_a_long_text_has_300_to_800_words():
    for seed in range(20):
        window = long_window(DOCUMENTS[-1], random.Random(seed))
        assert window is not None and 300 <= sum(len(sentence.split()) for sentence in window) <= 800
    assert long_window(DOCUMENTS[0], random.Random(0)) is None


def test_parts_round_trip_and_are_named_by_their_keys(tmp_path):
    scorer = Scorer("teacher-x", "abc123", "fp32")
    scores = {text_key("one"): 1.25, text_key("two"): -0.5}
    path = write_part(tmp_path, scorer, scores, {"cpu": "test CPU", "wall_seconds": 2.0, "cpu_seconds": 3.0})
    assert path.name == part_name(scores) and read_part(path)["scores"] == scores
    loaded = load_scores(tmp_path, scorer)
    assert loaded.scores == scores and loaded.parts == 1
    assert loaded.cost_line() == "2 texts in 1 parts; 1,000 s wall and 1,500 s CPU per 1,000 texts (test CPU: 2 texts)"


def test_another_teachers_parts_and_damaged_parts_are_skipped_with_a_warning(tmp_path):
    ours, theirs = Scorer("teacher-x", "abc123", "fp32"), Scorer("teacher-x", "abc123", "bf16")
    kept = write_part(tmp_path, ours, {text_key("kept"): 1.0}, {})
    write_part(tmp_path, theirs, {text_key("other dtype"): 2.0}, {})
    edited = write_part(tmp_path, ours, {text_key("edited"): 3.0}, {})
    record = json.loads(edited.read_text())
    record["scores"][text_key("edited")] = "high"
    edited.write_text(json.dumps(record))
    renamed = write_part(tmp_path, ours, {text_key("renamed"): 4.0}, {})
    record = json.loads(renamed.read_text())
    record["scores"] = {text_key("swapped in"): 9.0}  # well-formed, but not the texts its name promises
    renamed.write_text(json.dumps(record))
    (tmp_path / "part-cut.json").write_text('{"format": 1, "scores": {')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_scores(tmp_path, ours)
    assert loaded.scores == {text_key("kept"): 1.0} and kept.exists()
    assert len(loaded.skipped) == 4 and len(caught) == 4
    assert any("in bf16, not teacher-x@abc123 in fp32" in str(warning.message) for warning in caught)


def test_the_runner_scores_only_what_no_part_holds_and_matches_the_scorer(bert_checkpoint, tmp_path, monkeypatch):
    """Two runs into one folder: the second scores nothing; every stored score is the teacher's own."""
    import coherence_metric.training.pointwise.teacher.score_pool as runner

    monkeypatch.setattr(runner, "pending_texts", lambda recipe, count, done, epochs, long_every: [
        (item.key, item.text) for item in itertools.islice(build_pool(DATA, documents=DOCUMENTS), count)
        if item.key not in done])
    arguments = ["--recipe", str(REPO_DIR / "training" / "configs" / "gpu-minilm-joint.yaml"), "--teacher",
                 str(bert_checkpoint), "--texts", "20", "--part-size", "8", "--out", str(tmp_path / "parts")]
    score_pool_main(arguments[:5] + ["12"] + arguments[6:])
    first = sorted(path.name for path in (tmp_path / "parts").glob("part-*.json"))
    assert len(first) == 2
    score_pool_main(arguments)
    parts = sorted((tmp_path / "parts").glob("part-*.json"))
    assert len(parts) == 3 and all(path.name in [p.name for p in parts] for path in map(Path, first))
    teacher = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    signature = teacher.signature
    loaded = load_scores(tmp_path / "parts", Scorer(signature.model, signature.fingerprint, "fp32"))
    pool = list(itertools.islice(build_pool(DATA, documents=DOCUMENTS), 20))
    assert set(loaded.scores) == {item.key for item in pool}
    expected = teacher.score([item.text for item in pool]).scores
    assert [loaded.scores[item.key] for item in pool] == pytest.approx(expected, abs=1e-5)


def test_a_steps_extras_are_the_pools_other_texts_of_the_same_visit():
    from coherence_metric.training.pointwise.teacher.pool import EXTRA_CAPS, pool_extras, visiting_order
    from coherence_metric.training.pointwise.texts import make_example

    pool = list(build_pool(DATA, documents=DOCUMENTS, long_every=1))
    order = visiting_order(len(DOCUMENTS), DATA.seed, 0)
    made = []
    for visit, index in enumerate(order):
        example = make_example(DOCUMENTS[index], DOCUMENTS, DATA, 0)
        extras = pool_extras(example, DOCUMENTS[index], DATA, 0, visit, long_every=1)
        assert all(kind in EXTRA_CAPS for kind, _ in extras)
        made += [text_key(" ".join(sentences)) for _, sentences in extras]
    extra_keys = {item.key for item in pool if item.kind in EXTRA_CAPS}
    assert extra_keys and extra_keys <= set(made)  # every extra the teacher scored is rebuilt by some step
    assert set(made) <= {item.key for item in pool}  # and nothing the teacher never saw
    long_document = DOCUMENTS[-1]
    example = make_example(long_document, DOCUMENTS, DATA, 0)
    kinds_at = {visit: [kind for kind, _ in pool_extras(example, long_document, DATA, 0, visit, long_every=2)]
                for visit in (0, 1)}
    assert "long" in kinds_at[0] and not any(kind.startswith("long") for kind in kinds_at[1])  # every 2nd visit
