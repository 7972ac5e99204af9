"""Smoke runs through run_recipe on a real corpus slice, the saved folders as trained:FOLDER encoders, the
generative decoder's update hook, the committed recipes, and the error messages."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path
from typing import Any, Dict, Tuple

import numpy as np
import pytest
import torch

from coherence_metric.benchmarks.discoeval.encoder_specs import resolve_encoder
from coherence_metric.errors import InputError
from coherence_metric.research.encoders import TRAINED_ENCODER_FILE
from coherence_metric.training.config import read_recipe_mapping
from coherence_metric.training.families import recipe_family
from coherence_metric.training.loop import read_loop_log
from coherence_metric.training.multiview.encoder import MANIFEST_FILE, WEIGHTS_FILE
from coherence_metric.training.multiview.generative import GenerativeObjective, orthonormal_update
from coherence_metric.training.multiview.recipe import build_objective, recipe_from_mapping, run_recipe
from coherence_metric.training.wordvec import WordVectors

CONFIGS = Path(__file__).resolve().parents[3] / "training" / "configs"
SMOKE = CONFIGS / "multiview-smoke.yaml"
HIDDEN = 8
TEXTS = ["The minister said the talks would resume on Monday.",
         "Rain is expected across the north.",
         "Shares fell sharply after the announcement, the third fall this week.",
         ""]


def tiny(tiny_bert_dir: Path, output_dir: Path, **changes: Any) -> Dict[str, Any]:
    """Overrides that shrink the smoke recipe to seconds: tiny-BERT word vectors (32-d), d = 8, N = 16."""
    values: Dict[str, Any] = {"model.word_vectors": str(tiny_bert_dir), "model.hidden": HIDDEN,
                              "data.batch_size": 16, "data.max_documents": 60, "data.eval_batches": 2,
                              "data.pc_sentences": 32, "loop.output_dir": str(output_dir), "loop.max_steps": 4,
                              "loop.eval_every": 2, "loop.log_every": 2}
    values.update(changes)
    return values


@pytest.fixture(scope="module")
def smoke_runs(tiny_bert_dir, shared_data, tmp_path_factory) -> Dict[str, Tuple[Path, Dict[str, Any]]]:
    runs = {}
    for name in ("discriminative", "generative"):
        output = tmp_path_factory.mktemp(f"multiview-{name}")
        result = run_recipe(SMOKE, tiny(tiny_bert_dir, output, **{"objective.name": name}), progress=False)
        runs[name] = (output, result)
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("name", ["discriminative", "generative"])
def test_a_smoke_run_trains_evaluates_and_saves(smoke_runs, name) -> None:
    output, result = smoke_runs[name]
    assert result["steps"] == 4 and result["select"] == "accuracy" and 0.0 <= result["best"] <= 1.0
    records = read_loop_log(output)
    losses = [record["loss"] for record in records if "loss" in record]
    evaluations = [record for record in records if "eval_accuracy" in record]
    assert len(losses) == 2 and all(math.isfinite(loss) and loss > 0 for loss in losses)
    assert [record["step"] for record in evaluations] == [0, 2, 4]
    for folder in ("best", "final"):
        manifest = json.loads((output / folder / MANIFEST_FILE).read_text())
        assert manifest["family"] == "multiview" and manifest["objective"] == name and manifest["hidden"] == HIDDEN
    if name == "generative":
        assert evaluations[-1]["eval_orthonormality_gap"] < evaluations[0]["eval_orthonormality_gap"]
    else:
        assert all(record["temperature"] > 0 for record in records if "temperature" in record)


@pytest.mark.parametrize("options, dim", [
    ("", 7 * 2 * HIDDEN),  # ensemble, pool=multi, concat: f [max; mean; min; last] + g [max; mean; min]
    (":view=f", 4 * 2 * HIDDEN),
    (":view=g", 3 * 2 * HIDDEN),
    (":view=f:pool=mean", 2 * HIDDEN),
    (":view=g:pool=train", 2 * HIDDEN),
    (":view=ensemble:pool=mean", 2 * HIDDEN),  # Table 2's unsupervised ensemble: averaging
    (":view=ensemble:pool=mean:ensemble=concat", 4 * HIDDEN),
])
@pytest.mark.parametrize("name", ["discriminative", "generative"])
def test_trained_folders_load_for_every_view(smoke_runs, name, options, dim) -> None:
    folder = smoke_runs[name][0] / "final"
    assert MANIFEST_FILE == TRAINED_ENCODER_FILE
    encoder = resolve_encoder(f"trained:{folder}{options}")
    vectors = encoder.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), dim) and vectors.dtype == np.float32 and np.isfinite(vectors).all()
    norms = np.linalg.norm(vectors[:3], axis=1)  # the empty text is one [PAD]: a zero row in tiny BERT, so its g is 0
    if "ensemble" not in options and options:
        assert np.allclose(norms, 1.0, atol=1e-5), "each view is l2-normalised after the post-processing"
    elif "concat" in options or not options:
        assert np.allclose(norms, math.sqrt(2), atol=1e-5)
    assert name in encoder.name


def test_a_sentence_encodes_the_same_whatever_it_is_batched_with(smoke_runs) -> None:
    folder = smoke_runs["discriminative"][0] / "final"
    encoder = resolve_encoder(f"trained:{folder}:batch=2")
    together = encoder.encode(TEXTS)
    alone = np.stack([encoder.encode([text])[0] for text in TEXTS])
    assert np.allclose(together, alone, atol=1e-5)


def test_signatures_follow_the_options(smoke_runs) -> None:
    folder = smoke_runs["generative"][0] / "final"
    specs = ["", ":view=f", ":view=g", ":pc=keep", ":pool=mean", ":maxlen=16"]
    signatures = {resolve_encoder(f"trained:{folder}{spec}").signature for spec in specs}
    assert len(signatures) == len(specs)
    assert resolve_encoder(f"trained:{folder}:batch=3").signature == resolve_encoder(f"trained:{folder}").signature
    keep = resolve_encoder(f"trained:{folder}:view=g:pc=keep").encode(TEXTS[:3])
    remove = resolve_encoder(f"trained:{folder}:view=g").encode(TEXTS[:3])
    assert not np.allclose(keep, remove, atol=1e-4), "pc=keep must skip the principal-component removal"


def test_bad_options_and_damaged_folders_are_one_line_errors(smoke_runs, tmp_path) -> None:
    folder = smoke_runs["discriminative"][0] / "final"
    with pytest.raises(InputError, match="ensemble=mean needs views of one size"):
        resolve_encoder(f"trained:{folder}:ensemble=mean")
    with pytest.raises(InputError, match="option view='h' must be one of f, g, ensemble"):
        resolve_encoder(f"trained:{folder}:view=h")
    with pytest.raises(InputError, match="unknown option 'layer'"):
        resolve_encoder(f"trained:{folder}:layer=3")
    with pytest.raises(InputError, match="option batch='0' must be a positive integer"):
        resolve_encoder(f"trained:{folder}:batch=0")
    damaged = tmp_path / "damaged"
    shutil.copytree(folder, damaged)
    data = bytearray((damaged / WEIGHTS_FILE).read_bytes())
    data[-1] ^= 0xFF
    (damaged / WEIGHTS_FILE).write_bytes(bytes(data))
    with pytest.raises(InputError, match="sha256 does not match"):
        resolve_encoder(f"trained:{damaged}")


def test_a_folder_stores_its_word_vectors_by_reference_and_checks_them(smoke_runs, tiny_bert_dir, tmp_path) -> None:
    from safetensors.torch import load_file, save_file

    folder = smoke_runs["generative"][0] / "final"
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    assert manifest["format"] == 2 and manifest["word_vectors"] == str(tiny_bert_dir)
    assert "word_vectors" not in load_file(str(folder / WEIGHTS_FILE)), "the frozen matrix is not copied"
    expected = resolve_encoder(f"trained:{folder}:view=f").encode(TEXTS)

    # A format-1 folder holds the matrix itself: it loads without the source and encodes the same.
    old = tmp_path / "format1"
    shutil.copytree(folder, old)
    tensors = load_file(str(old / WEIGHTS_FILE))
    tensors["word_vectors"] = WordVectors.load(str(tiny_bert_dir)).weights.contiguous()
    save_file(tensors, str(old / WEIGHTS_FILE))
    old_manifest = {key: value for key, value in manifest.items() if key != "word_vectors_sha256"}
    old_manifest.update(format=1, word_vectors="no/such-model",
                        weights_sha256=hashlib.sha256((old / WEIGHTS_FILE).read_bytes()).hexdigest())
    (old / MANIFEST_FILE).write_text(json.dumps(old_manifest))
    assert np.allclose(resolve_encoder(f"trained:{old}:view=f").encode(TEXTS), expected, atol=1e-6)

    # Other word vectors under the same name, or a source that is gone: one-line errors naming the folder.
    for name, change in (("changed", {"word_vectors_sha256": "0" * 64}),
                         ("moved", {"word_vectors": str(tmp_path / "gone")})):
        damaged = tmp_path / name
        shutil.copytree(folder, damaged)
        (damaged / MANIFEST_FILE).write_text(json.dumps({**manifest, **change}))
        message = "differ from those it was trained with" if name == "changed" else "does not load here"
        with pytest.raises(InputError, match=f"trained:{damaged}: .*{message}"):
            resolve_encoder(f"trained:{damaged}").encode(TEXTS)


@pytest.mark.slow
def test_the_committed_checkpoints_load_and_encode() -> None:
    """The folders behind RESULTS.md's numbers stay intact and loadable (format 2: vectors from the package)."""
    folders = sorted((CONFIGS.parent / "multiview" / "checkpoints").iterdir())
    assert {folder.name for folder in folders} == {"generative", "generative-noninvertible", "discriminative"}, \
        "training/multiview/checkpoints holds the three measured runs"
    for folder in folders:
        vectors = resolve_encoder(f"trained:{folder}:view=f:pool=mean").encode(TEXTS[:3])
        assert vectors.shape == (3, 512) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("invertible", [True, False])
def test_the_orthonormal_update_runs_after_each_step_unless_disabled(tiny_bert_dir, shared_data, tmp_path,
                                                                     invertible) -> None:
    values = read_recipe_mapping(SMOKE, tiny(tiny_bert_dir, tmp_path, **{"objective.name": "generative",
                                                                        "objective.invertible": invertible}))
    objective = build_objective(recipe_from_mapping(values), WordVectors.load(str(tiny_bert_dir)))
    assert isinstance(objective, GenerativeObjective)
    decoder = objective.decoder().detach().clone()
    assert decoder.shape == (32, 2 * HIDDEN)  # U maps the 16-d sentence vector to the 32-d word space
    objective.after_step()
    expected = orthonormal_update(decoder, 0.01) if invertible else decoder
    assert torch.allclose(objective.decoder(), expected, atol=1e-6)
    # g = U^T: the saved linear view is the decoder's transpose.
    assert torch.equal(objective.encoder.g.weight, objective.decoder().T)


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("multiview-*.yaml")), ids=lambda path: path.stem)
def test_committed_recipes_parse(path) -> None:
    values = read_recipe_mapping(path)
    assert recipe_family(values, str(path)) == "multiview"
    recipe = recipe_from_mapping(values, str(path))
    assert recipe.loop.lr == 5e-4 and recipe.loop.optimizer == "adam" and recipe.loop.grad_clip
    assert "wsj" not in recipe.data.corpora
    if "paper" in path.stem:
        assert (recipe.data.batch_size, recipe.model.hidden) == (512, 1024)
        assert (recipe.objective.negatives, recipe.objective.beta, recipe.objective.context) == (5, 0.01, 3)
        assert recipe.objective.name == path.stem.rsplit("-", 1)[-1]


def test_recipe_errors_name_the_key() -> None:
    with pytest.raises(InputError, match="objective: unknown key 'negative'"):
        recipe_from_mapping({"family": "multiview", "objective": {"negative": 5}})
    with pytest.raises(InputError, match="objective.name must be one of generative, discriminative"):
        recipe_from_mapping({"family": "multiview", "objective": {"name": "contrastive"}})
    with pytest.raises(InputError, match="data.corpora must be a list"):
        recipe_from_mapping({"family": "multiview", "data": {"corpora": 3}})
    with pytest.raises(InputError, match="loop.optimizer"):
        recipe_from_mapping({"family": "multiview", "loop": {"optimizer": "lbfgs"}})
    assert recipe_from_mapping({"family": "multiview", "data": {"corpora": "lee, bbc"}}).data.corpora == ["lee", "bbc"]
