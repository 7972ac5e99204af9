"""A checkpoint is data, never code, and only its listed bytes decide its scores.

Each test builds what a hostile or careless checkpoint author would ship, hashes it properly (the attacker controls
``coherence_config.json`` too), and checks what a user running the metric sees.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from coherence_metric import CheckpointError, CoherenceModel, CoherenceScorer, load_checkpoint, save_checkpoint
from coherence_metric.models.backbones import packaged_backbone_folder
from coherence_metric.models.checkpoint_config import hash_folder_files, read_checkpoint_config
from coherence_metric.models.registry import PACKAGED_CHECKPOINTS_DIR

from ...conftest import EXAMPLES_DIR

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Farmers moved their animals to the hills. The road was closed before noon."]
DEFAULT_NAME = "cm-minilm-gpu-joint-2026.11"  # what `default` names in this release
BACKBONE_ID = "sentence-transformers/all-MiniLM-L6-v2"
EXAMPLES = [(EXAMPLES_DIR / "coherent.txt").read_text(encoding="utf-8"),
            (EXAMPLES_DIR / "shuffled.txt").read_text(encoding="utf-8")]


def _rehash(folder: Path) -> Path:
    """Record the sha256 of every file now in ``folder``, as a checkpoint's author can."""
    config = read_checkpoint_config(folder)
    config.files = hash_folder_files(folder)
    config.write(folder)
    return folder


def _edit_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(json.dumps(data), encoding="utf-8")


def _with_custom_tokenizer(folder: Path, marker: Path) -> Path:
    """The checkpoint's tokenizer names a class in ``tokenization_x.py``, which writes ``marker`` when imported."""
    (folder / "tokenizer" / "tokenization_x.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"
        "from transformers import BertTokenizerFast\n\n\nclass XTokenizer(BertTokenizerFast):\n    pass\n",
        encoding="utf-8")
    _edit_json(folder / "tokenizer" / "tokenizer_config.json", tokenizer_class="XTokenizer",
               auto_map={"AutoTokenizer": ["tokenization_x.XTokenizer", "tokenization_x.XTokenizer"]})
    return _rehash(folder)


@pytest.mark.slow  # a subprocess that imports torch: 7-10 s on a 2-core AMD EPYC (AVX2)
def test_a_checkpoint_naming_tokenizer_code_is_refused_in_one_line_and_the_code_never_runs(
        bert_checkpoint, corrupt_copy, tmp_path):
    """transformers asked "run the custom code? [y/N]" on stdin and, on "y", imported tokenization_x.py."""
    marker = tmp_path / "code-ran"
    folder = _with_custom_tokenizer(corrupt_copy(bert_checkpoint), marker)
    text = tmp_path / "text.txt"
    text.write_text(TEXTS[0], encoding="utf-8")
    script = os.path.join(os.path.dirname(sys.executable), "coherence-metric")
    result = subprocess.run([script, "score", str(text), "--model", str(folder)], input="y\ny\n",
                            capture_output=True, text=True, timeout=300)
    assert not marker.exists(), "the checkpoint's code ran"
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "tokenization_x.py" in lines[0] and "never runs code" in lines[0], result.stderr
    assert "custom code" not in result.stdout and "[y/N]" not in result.stdout + result.stderr


@pytest.mark.parametrize("where", ["backbone/config.json", "tokenizer/tokenizer_config.json"])
def test_auto_map_in_any_config_is_refused_even_without_a_code_file(bert_checkpoint, corrupt_copy, where):
    folder = corrupt_copy(bert_checkpoint)
    _edit_json(folder / where, auto_map={"AutoModel": "modeling_x.XModel"})
    with pytest.raises(CheckpointError, match=f"{where} names custom code \\(auto_map\\)"):
        load_checkpoint(_rehash(folder))


def test_a_python_file_anywhere_in_a_checkpoint_is_refused(bert_checkpoint, corrupt_copy):
    folder = corrupt_copy(bert_checkpoint)
    (folder / "notes").mkdir()
    (folder / "notes" / "setup.py").write_text("print('hi')\n", encoding="utf-8")
    with pytest.raises(CheckpointError, match=r"it holds code \(notes/setup.py\)"):
        CoherenceScorer(str(_rehash(folder)))


def test_a_backbone_folder_naming_code_is_refused(tiny_bert_dir, tmp_path):
    """The pretrained folder under a delta checkpoint is checked too: its config.json is read by transformers."""
    base = tmp_path / "base"
    shutil.copytree(tiny_bert_dir, base)
    model = CoherenceModel.from_backbone(base, max_length=128, seed=5)
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    _edit_json(base / "config.json", auto_map={"AutoModel": "modeling_x.XModel"})
    with pytest.raises(CheckpointError, match="config.json names custom code"):
        load_checkpoint(folder)


# --------------------------------------------------------------------------- where the backbone comes from


def _backbone_with_other_config(target: Path) -> Path:
    """A folder holding the default's backbone weights (same sha256) under a config.json that changes scores."""
    source = packaged_backbone_folder(BACKBONE_ID)
    assert source is not None
    target.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(source / name, target / name)
    os.symlink(source / "model.safetensors", target / "model.safetensors")
    config = json.loads((source / "config.json").read_text(encoding="utf-8"))
    config.update(hidden_act="relu", layer_norm_eps=0.5)
    (target / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def default_scores() -> list[float]:
    return CoherenceScorer(DEFAULT_NAME, dtype="fp32").score(EXAMPLES).scores


def test_an_unlisted_backbone_folder_inside_a_checkpoint_does_not_change_its_scores(default_scores, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(PACKAGED_CHECKPOINTS_DIR / DEFAULT_NAME, folder)
    _backbone_with_other_config(folder / BACKBONE_ID)
    scorer = CoherenceScorer(str(folder), dtype="fp32")
    assert scorer.score(EXAMPLES).scores == pytest.approx(default_scores, abs=1e-6)
    assert scorer.fingerprint == read_checkpoint_config(PACKAGED_CHECKPOINTS_DIR / DEFAULT_NAME).fingerprint()


def test_a_folder_in_the_working_directory_does_not_replace_the_defaults_backbone(default_scores, tmp_path,
                                                                                    monkeypatch):
    _backbone_with_other_config(tmp_path / BACKBONE_ID)
    monkeypatch.chdir(tmp_path)
    assert CoherenceScorer("fast", dtype="fp32").score(EXAMPLES).scores == pytest.approx(default_scores, abs=1e-6)


# --------------------------------------------------------------------------------- weights: dtype and format


def test_weights_load_in_float32_whatever_the_backbone_config_says(bert_checkpoint, corrupt_copy):
    expected = CoherenceScorer(str(bert_checkpoint)).score(TEXTS).scores
    folder = corrupt_copy(bert_checkpoint)
    _edit_json(folder / "backbone" / "config.json", dtype="bfloat16", torch_dtype="bfloat16")
    scorer = CoherenceScorer(str(_rehash(folder)))
    assert "dtype:fp32" in str(scorer.signature)
    assert {parameter.dtype for parameter in scorer.model.parameters()} == {torch.float32}
    assert scorer.score(TEXTS).scores == pytest.approx(expected, abs=1e-6)


def test_a_delta_over_a_backbone_whose_config_says_bf16_loads_in_float32(tiny_bert_dir, tmp_path):
    base = tmp_path / "base"
    shutil.copytree(tiny_bert_dir, base)
    model = CoherenceModel.from_backbone(base, max_length=128, seed=5)
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    expected = CoherenceScorer(str(folder)).score(TEXTS).scores
    _edit_json(base / "config.json", dtype="bfloat16", torch_dtype="bfloat16")
    loaded = load_checkpoint(folder)
    assert {parameter.dtype for parameter in loaded.model.parameters()} == {torch.float32}
    assert CoherenceScorer(str(folder)).score(TEXTS).scores == pytest.approx(expected, abs=1e-6)


def test_a_corrupt_but_hashed_delta_is_a_one_line_checkpoint_error(tiny_bert_dir, tmp_path):
    model = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=5)
    folder = save_checkpoint(model, tmp_path / "delta", flavour="delta")
    (folder / "backbone_delta.safetensors").write_bytes(b"\xff" * 8 + b"garbage header")
    with pytest.raises(CheckpointError, match="backbone_delta.safetensors is corrupt: not a readable safetensors") \
            as raised:
        load_checkpoint(_rehash(folder))
    assert "\n" not in str(raised.value)


def test_pickled_weights_are_refused_outright(bert_checkpoint, corrupt_copy):
    """A pytorch_model.bin is a pickle: loading it is running the author's code, hashed or not."""
    from safetensors.torch import load_file

    folder = corrupt_copy(bert_checkpoint)
    weights = folder / "backbone" / "model.safetensors"
    torch.save(load_file(str(weights)), folder / "backbone" / "pytorch_model.bin")
    weights.unlink()
    with pytest.raises(CheckpointError, match="backbone/pytorch_model.bin, weights that are not safetensors"):
        load_checkpoint(_rehash(folder))


# ------------------------------------------------------------------------ time of check vs time of use


def _hostile(folder: Path, relative: str, target: Path) -> None:
    """Write to ``target`` a version of ``folder/relative`` that changes the scores."""
    from safetensors.torch import load_file, save_file

    if relative.endswith(".safetensors"):
        save_file({name: tensor * 3 + 0.5 for name, tensor in load_file(str(folder / relative)).items()}, str(target))
    else:
        config = json.loads((folder / relative).read_text(encoding="utf-8"))
        config.update(hidden_act="relu", layer_norm_eps=0.5)
        target.write_text(json.dumps(config), encoding="utf-8")


@pytest.mark.parametrize("swapped", ["head.safetensors", "backbone/model.safetensors", "backbone/config.json"])
def test_a_file_swapped_right_after_its_hash_is_never_loaded(bert_checkpoint, corrupt_copy, tmp_path, monkeypatch,
                                                             swapped):
    """The loaders opened each file again after its sha256 was checked: a file replaced in between (a hard link and
    os.replace, atomic) was loaded unverified. Now the bytes hashed are the bytes loaded."""
    from coherence_metric.models import checkpoint_config

    expected = CoherenceScorer(str(bert_checkpoint)).score(TEXTS).scores
    folder = corrupt_copy(bert_checkpoint)
    hostile = tmp_path / "hostile"
    _hostile(folder, swapped, hostile)
    real_hash = checkpoint_config.hash_and_copy
    swaps = []

    def hash_then_swap(path, target=None):
        digest = real_hash(path, target)
        if Path(path) == folder / swapped:  # the attacker wins the race: the swap lands right after the hash
            link = tmp_path / "link"
            os.link(hostile, link)
            os.replace(link, path)
            swaps.append(path)
        return digest

    monkeypatch.setattr(checkpoint_config, "hash_and_copy", hash_then_swap)
    scorer = CoherenceScorer(str(folder))
    assert swaps and (folder / swapped).read_bytes() == hostile.read_bytes()  # the swap did happen
    assert scorer.score(TEXTS).scores == pytest.approx(expected, abs=1e-6)
    monkeypatch.setattr(checkpoint_config, "hash_and_copy", real_hash)
    with pytest.raises(CheckpointError, match=f"sha256 of {swapped} is") as raised:  # and the next load refuses it
        load_checkpoint(folder)
    assert "\n" not in str(raised.value)
