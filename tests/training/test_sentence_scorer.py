"""``family: sentence_scorer``: the term trains on embedded groups, its weight is chosen on dev, and the written
checkpoint scores exactly what the dev selection saw; the run resumes from its folder."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest
import torch
import yaml

from coherence_metric import CoherenceScorer, InputError
from coherence_metric.models.checkpoint_config import read_checkpoint_config
from coherence_metric.training.config import read_recipe_mapping
from coherence_metric.training.evaluation import dev_result
from coherence_metric.training.families import recipe_family
from coherence_metric.training.sentence_scorer.fit import choose_weight, folded, group_loss
from coherence_metric.training.sentence_scorer.groups import load_items, sample_groups
from coherence_metric.training.sentence_scorer.recipe import recipe_from_mapping, run_recipe

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"


def _recipe(base: Path, data: Path, out: Path, **train):
    return recipe_from_mapping({
        "family": "sentence_scorer", "base_checkpoint": str(base), "output_dir": str(out),
        "data": {"dir": str(data), "train_items": 16, "dev_items": 8, "permutations": 3, "intrusions": 1,
                 "document_intrusions": 1, "sibling_intrusions": 1, "decontaminate": False},
        "model": {"width": 16, "layers": 1, "heads": 2, "max_sentences": 8},
        "train": {"epochs": 2, "batch_groups": 4, "weights": [0.5, 1.0, 2.0], **train},
    })


@pytest.fixture(scope="module")
def trained(bert_checkpoint, tiny_training_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("sentence-scorer") / "run"
    recipe = _recipe(bert_checkpoint, tiny_training_data, out)
    return recipe, run_recipe(Path("unused.yaml"), {}, progress=False, recipe=recipe)


@pytest.mark.slow
def test_the_written_checkpoint_scores_what_the_dev_selection_saw(trained, bert_checkpoint, tiny_training_data):
    recipe, summary = trained
    folder = Path(summary["checkpoint"])
    config = read_checkpoint_config(folder)
    assert config.format_version == 3 and config.training["base_checkpoint"] == \
        read_checkpoint_config(bert_checkpoint).fingerprint()
    _, dev = load_items(tiny_training_data, False, {}, 100)
    documents, spans = sample_groups(dev, 8, 3, 1, recipe.data.dev_seed, document_intrusions=1, sibling_intrusions=1)
    # a nearest-sentence and a similar-document intrusion; no sibling one: every Lee document here is one block
    assert max(intruded for _, _, intruded in spans) == 2
    scores = CoherenceScorer(str(folder)).score(documents).scores
    assert dev_result(scores, spans, True).to_dict() == pytest.approx(summary["dev_combined"])
    base = CoherenceScorer(str(bert_checkpoint)).score(documents).scores
    assert dev_result(base, spans, True).to_dict() == pytest.approx(summary["dev_base"])
    assert scores != pytest.approx(base, abs=1e-4), "the term must change the scores"
    assert summary["weight"] in recipe.train.weights and summary["best_epoch"] in (1, 2)
    log = [json.loads(line) for line in (Path(recipe.output_dir) / "log.jsonl").read_text().splitlines()]
    assert [record["epoch"] for record in log if "epoch" in record] == [1, 2]


def test_a_finished_run_resumes_to_the_same_checkpoint_and_another_recipe_is_refused(trained, bert_checkpoint,
                                                                                     tiny_training_data):
    recipe, summary = trained
    embeddings = Path(recipe.output_dir) / "embeddings-train.pt"
    written = embeddings.stat().st_mtime_ns
    again = run_recipe(Path("unused.yaml"), {}, progress=False, recipe=recipe)
    assert embeddings.stat().st_mtime_ns == written, "the embedded groups are reused, not recomputed"
    assert read_checkpoint_config(Path(again["checkpoint"])).fingerprint() == \
        read_checkpoint_config(Path(summary["checkpoint"])).fingerprint()
    other = _recipe(bert_checkpoint, tiny_training_data, Path(recipe.output_dir), epochs=3)
    with pytest.raises(InputError, match="state.pt was written by another recipe"):
        run_recipe(Path("unused.yaml"), {}, progress=False, recipe=other)


def test_its_state_files_load_with_weights_only_and_a_truncated_state_is_one_line(trained, bert_checkpoint,
                                                                                   tiny_training_data, tmp_path):
    import shutil

    recipe, _ = trained
    for name in ("state.pt", "embeddings-train.pt", "embeddings-dev.pt"):
        assert torch.load(Path(recipe.output_dir) / name, weights_only=True)
    moved = tmp_path / "moved"  # a run folder moved elsewhere resumes: output_dir is not part of the check
    shutil.copytree(recipe.output_dir, moved)
    state = moved / "state.pt"
    state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])
    with pytest.raises(InputError) as caught:
        run_recipe(Path("unused.yaml"), {}, progress=False, recipe=_recipe(bert_checkpoint, tiny_training_data, moved))
    assert str(state) in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.slow
def test_a_base_with_a_term_gets_a_new_term_over_the_base_it_was_added_to(trained, bert_checkpoint,
                                                                          tiny_training_data, tmp_path):
    """The committed recipe names cm-minilm-2026.11 (the 0.1.0 default), which already has a term: the run must
    replace it, not stack one."""
    _, summary = trained
    recipe = _recipe(Path(summary["checkpoint"]), tiny_training_data, tmp_path / "again", epochs=1)
    again = run_recipe(Path("unused.yaml"), {}, progress=False, recipe=recipe)
    config = read_checkpoint_config(Path(again["checkpoint"]))
    assert config.training["base_checkpoint"] == read_checkpoint_config(bert_checkpoint).fingerprint()
    assert again["dev_base"] == pytest.approx(summary["dev_base"]), "dev scores of the base without any term"


def test_the_cli_trains_a_recipe_file_and_names_the_checkpoint(trained, tmp_path):
    """``coherence-metric train run`` on a sentence_scorer recipe ends with a one-line summary, not a traceback."""
    from click.testing import CliRunner

    from coherence_metric.training.cli import train

    recipe, summary = trained
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(asdict(recipe)), encoding="utf-8")  # resumes the finished run: seconds
    result = CliRunner().invoke(train, ["run", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"weight {summary['weight']:g}" in result.output
    assert f"checkpoint in {summary['checkpoint']}" in result.output


def test_the_group_loss_is_the_positives_negative_log_softmax():
    scores = torch.tensor([2.0, 1.0, 0.0, 3.0, 3.0])
    spans = [(0, 2, 0), (3, 1, 0)]
    expected = (-torch.log_softmax(scores[:3], 0)[0] - torch.log_softmax(scores[3:], 0)[0]) / 2
    assert float(group_loss(scores, spans)) == pytest.approx(float(expected))


def test_the_weight_is_chosen_by_dev_selection_and_folded_into_the_term():
    spans = [(0, 1, 1), (3, 1, 1)]
    base = [1.0, 0.0, 2.0, 1.0, 0.0, 2.0]  # the base loses both intrusions
    term = [1.0, 0.0, -1.0, 1.0, 0.0, -1.0]  # the term wins them once it weighs more than 1
    weight, results = choose_weight(base, term, spans, [0.5, 2.0, 4.0], with_intrusions=True)
    assert weight == 2.0 and results[2.0].intrusion_accuracy == 1.0 and results[0.5].intrusion_accuracy == 0.0
    from coherence_metric.models.sentence_scorer import SentenceLevelScorer, SentenceScorerShape

    torch.manual_seed(0)
    module = SentenceLevelScorer(SentenceScorerShape(embedding_dim=8, width=8, layers=1, heads=2, max_sentences=4))
    embeddings = torch.nn.functional.normalize(torch.randn(5, 8), dim=-1)
    with torch.no_grad():
        plain = module.eval().score_documents(embeddings, [[0, 1, 2], [3, 4]])
        scaled = folded(module, 3.0).score_documents(embeddings, [[0, 1, 2], [3, 4]])
    assert scaled.tolist() == pytest.approx((3.0 * plain).tolist(), abs=1e-5)


def test_the_committed_recipe_parses_and_keeps_the_defaults_data_mix():
    values = read_recipe_mapping(CONFIGS / "cpu-minilm-sentence-scorer.yaml")
    assert recipe_family(values, "recipe") == "sentence_scorer"
    recipe = recipe_from_mapping(values)
    intrusion = read_recipe_mapping(CONFIGS / "cpu-minilm-intrusion.yaml")
    assert recipe.data.source_limits == intrusion["data"]["source_limits"]
    assert recipe.data.source_limit_seed == intrusion["train"]["seed"]
    assert recipe.data.dev_seed != intrusion["train"]["seed"], "dev items other than the default's own selection"
    assert asdict(recipe)["base_checkpoint"] == "cm-minilm-2026.11"  # pinned: moving the `default` alias leaves it


@pytest.mark.parametrize("section, values, message", [
    ("train", {"weights": []}, "train.weights must be a non-empty list of positive numbers"),
    ("data", {"permutations": 0}, "data.permutations must be at least 1"),
    ("model", {"dropout": 1.0}, r"model.dropout must be in \[0, 1\)"),
])
def test_bad_recipe_values_are_refused(section, values, message):
    with pytest.raises(InputError, match=message):
        recipe_from_mapping({"family": "sentence_scorer", section: values})
