"""An adapter checkpoint loads without peft: the LoRA merge is the package's own, bit-identical to peft's, and an
adapter using a LoRA variant it does not merge is refused in one line rather than merged wrongly.

peft is a training dependency (the ``train`` extra); the tests compare against it where it is installed (``make
test`` installs every extra) and prove in a subprocess that loading never imports it.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from coherence_metric import CheckpointError, CoherenceModel, CoherenceScorer, save_checkpoint
from coherence_metric.models.lora import merge_lora_adapter

TEXTS = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "Farmers moved their animals to the hills. The road was closed before noon."]


def _adapted_model(backbone_dir: Path, **lora_options):
    peft = pytest.importorskip("peft")
    model = CoherenceModel.from_backbone(backbone_dir, max_length=128, seed=4)
    options = dict(r=4, lora_alpha=8, target_modules=["query", "value", "dense"], init_lora_weights=False)
    options.update(lora_options)
    model.backbone = peft.get_peft_model(model.backbone, peft.LoraConfig(**options))
    return model


@pytest.fixture
def adapter_checkpoint(tiny_bert_dir, tmp_path):
    """A tiny BERT with a LoRA adapter (non-zero B, so the merge changes weights), saved as an adapter checkpoint."""
    from transformers import AutoTokenizer

    model = _adapted_model(tiny_bert_dir)
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bert_dir))
    folder = save_checkpoint(model, tmp_path / "adapter", tokenizer=tokenizer, flavour="adapter")
    return model, folder


@pytest.mark.parametrize("rslora", [False, True], ids=["lora", "rslora"])
def test_the_merge_is_bit_identical_to_peft_merge_and_unload(tiny_bert_dir, tmp_path, rslora):
    from safetensors.torch import load_file

    model = _adapted_model(tiny_bert_dir, use_rslora=rslora)
    merged_by_peft = copy.deepcopy(model.backbone).merge_and_unload().state_dict()
    model.backbone.save_pretrained(str(tmp_path / "adapter"), safe_serialization=True)

    plain = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=4).backbone
    adapted = merge_lora_adapter(plain, tmp_path / "adapter",
                                 load_file(str(tmp_path / "adapter" / "adapter_model.safetensors")))
    assert len(adapted) == 2 * 5 + 1  # 2 layers x (query, value, attention output, intermediate, output) + pooler
    ours = plain.state_dict()
    assert set(ours) == set(merged_by_peft)
    changed = [name for name in ours if not torch.equal(ours[name], merged_by_peft[name])]
    assert changed == []


@pytest.mark.slow  # a subprocess that imports torch and loads a model: about 9 s on 2 cores
def test_an_adapter_checkpoint_loads_and_scores_in_an_environment_without_peft(adapter_checkpoint, tmp_path):
    """What a user who only scores has: no peft module at all (the import is made to fail in the subprocess)."""
    model, folder = adapter_checkpoint
    expected = CoherenceScorer(str(folder), dtype="fp32").score(TEXTS).scores
    script = (
        "import json, sys\n"
        "sys.modules['peft'] = None  # import peft now raises ImportError, as where it is not installed\n"
        "from coherence_metric import CoherenceScorer\n"
        f"result = CoherenceScorer({str(folder)!r}, dtype='fp32').score({TEXTS!r})\n"
        "assert 'peft' not in [name for name, module in sys.modules.items() if module is not None]\n"
        "print(json.dumps(result.scores))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == expected
    # and what peft itself computes, wrapped and unmerged, is the same score
    direct = []
    model.eval()
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder / "tokenizer"))
    with torch.inference_mode():
        for text in TEXTS:
            encoded = tokenizer([text], return_tensors="pt")
            direct.append(float(model(encoded["input_ids"], encoded["attention_mask"])[0]))
    assert expected == pytest.approx(direct, abs=1e-5)


def _edit_adapter_config(folder: Path, **changes) -> None:
    """Change the adapter's config and record the new hashes, as someone publishing such an adapter would."""
    from coherence_metric.models.checkpoint_config import hash_folder_files, read_checkpoint_config

    path = folder / "adapter" / "adapter_config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config))
    checkpoint = read_checkpoint_config(folder)
    checkpoint.files = hash_folder_files(folder)
    checkpoint.write(folder)


@pytest.mark.parametrize("changes, named", [
    ({"use_dora": True}, "use_dora=True is a LoRA variant"),
    ({"peft_type": "IA3"}, "peft_type 'IA3' is not LORA"),
    ({"rank_pattern": {"query": 8}}, "rank_pattern="),
    ({"modules_to_save": ["pooler"]}, "modules_to_save="),
    ({"r": 0}, "r must be a positive integer"),
    ({"lora_alpha": "eight"}, "lora_alpha must be a finite number"),
    ({"r": 8}, "expected (8, "),
])
def test_an_adapter_that_is_not_a_plain_lora_is_refused_in_one_line(adapter_checkpoint, changes, named):
    _, folder = adapter_checkpoint
    _edit_adapter_config(folder, **changes)
    with pytest.raises(CheckpointError) as caught:
        CoherenceScorer(str(folder))
    message = str(caught.value)
    assert "\n" not in message and named in message and str(folder / "adapter") in message


def test_adapter_weights_for_a_layer_the_backbone_lacks_are_refused_before_any_weight_changes(tiny_bert_dir,
                                                                                           tmp_path):
    from safetensors.torch import save_file

    model = _adapted_model(tiny_bert_dir)
    model.backbone.save_pretrained(str(tmp_path / "adapter"), safe_serialization=True)
    plain = CoherenceModel.from_backbone(tiny_bert_dir, max_length=128, seed=4).backbone
    before = {name: tensor.clone() for name, tensor in plain.state_dict().items()}
    from safetensors.torch import load_file

    tensors = load_file(str(tmp_path / "adapter" / "adapter_model.safetensors"))
    tensors["base_model.model.encoder.layer.7.attention.self.query.lora_A.weight"] = torch.zeros(4, 32)
    tensors["base_model.model.encoder.layer.7.attention.self.query.lora_B.weight"] = torch.zeros(32, 4)
    save_file(tensors, str(tmp_path / "adapter" / "adapter_model.safetensors"))
    with pytest.raises(CheckpointError, match="encoder.layer.7.attention.self.query is not one of its linear layers"):
        merge_lora_adapter(plain, tmp_path / "adapter", load_file(str(tmp_path / "adapter" /
                                                                          "adapter_model.safetensors")))
    assert all(torch.equal(plain.state_dict()[name], tensor) for name, tensor in before.items())

    del tensors["base_model.model.encoder.layer.7.attention.self.query.lora_B.weight"]
    del tensors["base_model.model.encoder.layer.7.attention.self.query.lora_A.weight"]
    tensors.pop(next(key for key in tensors if key.endswith("lora_B.weight")))
    with pytest.raises(CheckpointError, match="without its other half"):
        merge_lora_adapter(plain, tmp_path / "adapter", tensors)
