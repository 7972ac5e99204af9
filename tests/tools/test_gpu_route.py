"""Training on a lent GPU machine (``python -m tools.gpu_route export-inputs`` / ``on-device`` /
``unpack-outputs``), rehearsed on the CPU with tiny backbones and stand-in documents: what the export packs and
how big it is, the parts a large backbone travels in, the snapshots kept by dev and what fits the trip back, and the
device's entry point in a checkout that was never installed."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, List

import pytest
from click.testing import CliRunner

from coherence_metric.errors import InputError
from coherence_metric.models.checkpoint_config import read_checkpoint_config, sha256_of_file
from coherence_metric.research.datasets.ratings import DEV_SELECT, HANNA, RatedSet, RatedText, dev_half
from coherence_metric.research.documents import Document
from coherence_metric.research.localisation_sets import LocalisationItem
from coherence_metric.training.pointwise.dev_checks import build_dev_texts
from coherence_metric.training.pointwise.dev_report import DevData
from coherence_metric.training.pointwise.texts import PointwiseData, make_example
from tools.gpu_route import transfer
from tools.gpu_route.cli import cli as route
from tools.gpu_route.inputs import export_inputs, size_report
from tools.gpu_route.on_device import run_on_device, unpack_outputs
from tools.gpu_route.pointwise_device import Prefetcher, choose, fitted_steps

from ..conftest import REPO_DIR

WORDS = ("river", "market", "teacher", "storm", "garden", "engine", "letter", "mountain", "village", "harbour")


def _sentences(index: int, count: int) -> List[str]:
    return [f"The {WORDS[(index + k) % len(WORDS)]} of story {index} changed in part {k}." for k in range(count)]


def _documents() -> Dict[str, List[Document]]:
    return {"train": [Document(f"lee:{index}", "lee", _sentences(index, 6)) for index in range(6)],
            "dev": [Document(f"lee:dev{index}", "lee", _sentences(index + 20, 5)) for index in range(2)]}


def _dev_data() -> DevData:
    """The dev ruler in small: three rated texts in each of two dev-select groups, synthetic examples and checks."""
    groups = [group for group in (f"prompt-{index}" for index in range(200)) if dev_half(HANNA, group) == DEV_SELECT]
    texts = [RatedText(f"{group}-{rating}", group, "sys", tuple(_sentences(int(rating), 3)), rating)
             for group in groups[:2] for rating in (1.0, 3.0, 5.0)]
    rated = RatedSet(HANNA, tuple(texts), "coherence", 1.0, "test")
    data = PointwiseData(corpora=["lee"], train_documents=6, dev_documents=2, decontaminate=False,
                         negatives={"shuffle": 1, "cut_off": 1})
    dev = _documents()["dev"]
    examples = [make_example(document, dev, data, 0) for document in dev]
    return DevData([rated], {HANNA: list(range(len(texts)))}, examples, build_dev_texts(dev))


def _pointwise_recipe(folder: Path, backbone: Path) -> Path:
    recipe = folder / "pointwise.yaml"
    recipe.write_text(json.dumps({
        "family": "pointwise",
        "model": {"backbone": str(backbone), "max_length": 64, "train_layers": 1},
        "data": {"corpora": ["lee"], "train_documents": 6, "dev_documents": 2, "decontaminate": False,
                 "negatives": {"shuffle": 1, "cut_off": 1}},
        "objective": {"batch_size": 2, "head_lr": 1e-2, "bf16": False},
        "loop": {"output_dir": "runs/never-written-here", "max_steps": 2, "eval_every": 1, "log_every": 1,
                 "lr": 1e-4, "select": "select_joint"},
    }), encoding="utf-8")
    return recipe


def _transition_recipe(folder: Path) -> Path:
    recipe = folder / "transitions.yaml"
    recipe.write_text(json.dumps({
        "family": "transition_model", "output_dir": "runs/never-written-here",
        "data": {"corpora": ["lee"], "train_documents": 4, "dev_per_kind": 2},
        "train": {"steps": 3, "batch_pairs": 4, "eval_every": 2, "warmup_steps": 1, "dtype": "fp32"},
    }), encoding="utf-8")
    return recipe


def _localisation_sets() -> Dict[str, List[LocalisationItem]]:
    return {kind: [LocalisationItem(f"{kind}-{index}", kind, _sentences(index, 4), [index % 3]) for index in range(2)]
            for kind in ("intrusion", "moved", "swap")}


# ------------------------------------------------------------------------------------------------ the export


def test_the_export_packs_documents_the_dev_ruler_and_an_fp16_backbone_that_records_the_original(
        tiny_bert_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "gpu"
    manifest = export_inputs(_pointwise_recipe(tmp_path, tiny_bert_dir), out, {"data.train_documents": 5},
                             max_sentences=4, documents=_documents(), dev_data=_dev_data())
    assert manifest["family"] == "pointwise" and manifest["recipe"]["data"]["train_documents"] == 5
    assert manifest["backbone"] == {"name": str(tiny_bert_dir), "sha256": sha256_of_file(
        tiny_bert_dir / "model.safetensors"), "parts": [], "revision": None}
    assert manifest["documents"] == {"train": {"lee": 6}, "dev": 2, "max_sentences": 4}
    with gzip.open(out / "documents.json.gz", "rt", encoding="utf-8") as handle:
        packed = json.load(handle)
    assert all(len(item["sentences"]) == 4 for item in packed["train"])  # cut to --max-sentences
    from safetensors.torch import load_file

    weights = load_file(str(out / "backbone" / "model.safetensors"))
    assert {str(tensor.dtype) for tensor in weights.values() if tensor.is_floating_point()} == {"torch.float16"}
    assert not any(name.startswith("pooler.") for name in weights)
    assert (out / "backbone" / "config.json").is_file() and (out / "backbone" / "tokenizer.json").is_file()
    assert manifest["sizes"] == {"gpu": transfer.folder_bytes(out)}
    lines = size_report(out, manifest, root=tmp_path)  # not a git checkout: no tree to add
    assert lines == [f"gpu: {transfer.mib(manifest['sizes']['gpu'])}"]


def test_an_export_over_one_calls_transfer_is_refused_and_a_split_backbone_travels_in_checked_parts(
        tiny_bert_dir: Path, tmp_path: Path) -> None:
    recipe, out = _pointwise_recipe(tmp_path, tiny_bert_dir), tmp_path / "gpu"
    stand_ins: Dict[str, Any] = {"documents": _documents(), "dev_data": _dev_data()}
    weights = transfer.folder_bytes(tiny_bert_dir / "model.safetensors") // 2  # fp16
    limit = weights * 3 // 4  # the documents fit, the backbone does not
    with pytest.raises(InputError, match=r"over the .* one device call carries: .*--split-mb"):
        export_inputs(recipe, out, limit=limit, **stand_ins)
    with pytest.raises(InputError, match="--split-mb must be between 0 and 64"):
        export_inputs(recipe, out, split_mb=64, **stand_ins)
    with pytest.raises(InputError, match=r"gpu with gpu-part2 \(.*\) over the .* one device call carries: a smaller"):
        export_inputs(recipe, out, split_mb=(weights // 2) / transfer.MIB, limit=limit, **stand_ins)  # the last call
    part_mb = (weights // 5) / transfer.MIB
    manifest = export_inputs(recipe, out, split_mb=part_mb, limit=limit, **stand_ins)
    names = manifest["backbone"]["parts"]
    assert names == [f"gpu-part{index}" for index in range(1, len(names) + 1)] and len(names) >= 3
    assert all(size <= limit for size in manifest["sizes"].values()) and set(manifest["sizes"]) == {"gpu", *names}
    assert not (out / "backbone" / "model.safetensors").exists()
    # On the device: earlier calls copied their part to one folder, the last call carries its own beside the inputs.
    copied = tmp_path / "copied"
    copied.mkdir()
    exported = sum(transfer.folder_bytes(tmp_path / name) for name in names)
    for name in names[:-1]:
        for part in (tmp_path / name).iterdir():
            part.rename(copied / part.name)
    joined = transfer.join_parts(out / "backbone", [copied, tmp_path / names[-1]])
    assert joined.stat().st_size == exported
    from safetensors.torch import load_file

    assert set(load_file(str(joined))) == {name for name in load_file(str(tiny_bert_dir / "model.safetensors"))
                                           if not name.startswith("pooler.")}
    joined.unlink()
    first = next(copied.iterdir())
    first.write_bytes(first.read_bytes()[:-1] + b"x")
    with pytest.raises(InputError, match="has another sha256"):
        transfer.join_parts(out / "backbone", [copied, tmp_path / names[-1]])
    with pytest.raises(InputError, match="is in none of"):
        transfer.join_parts(out / "backbone", [tmp_path / names[-1]])
    assert not (out / "backbone" / "model.safetensors").exists()  # nothing half-joined left behind


def test_a_recipe_the_device_cannot_train_is_refused_by_name(tiny_bert_dir: Path, tmp_path: Path) -> None:
    recipe = _pointwise_recipe(tmp_path, tiny_bert_dir)
    with pytest.raises(InputError, match="boundary_teacher names a transition model, which the device machine"):
        export_inputs(recipe, tmp_path / "a", {"objective.boundary_distil_weight": 1.0}, documents=_documents(),
                      dev_data=_dev_data())
    coherence = tmp_path / "coherence.yaml"
    coherence.write_text("train: {max_steps: 1}\n", encoding="utf-8")
    with pytest.raises(InputError, match="family 'coherence' is not trained on a device machine"):
        export_inputs(coherence, tmp_path / "b")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="holds other files"):
        export_inputs(recipe, tmp_path / "c", documents=_documents(), dev_data=_dev_data())
    assert (tmp_path / "c" / "notes.txt").is_file()


def _start_checkpoint(backbone: Path, target: Path) -> Path:
    """A delta checkpoint over ``backbone`` whose top layer and head differ from the backbone's and a fresh head's."""
    import torch

    from coherence_metric.models.checkpoint import save_checkpoint
    from coherence_metric.training.pointwise.recipe import build_model, recipe_from_mapping

    model, tokenizer = build_model(recipe_from_mapping({"family": "pointwise", "model": {
        "backbone": str(backbone), "max_length": 64, "train_layers": 1}}, "start.yaml"))
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.requires_grad:
                parameter.add_(0.05 * torch.randn(parameter.shape, generator=generator))
    return save_checkpoint(model, target, tokenizer, flavour="delta")


def test_a_start_and_a_score_teacher_travel_the_start_as_the_backbone_the_teacher_as_a_checked_full_checkpoint(
        tiny_bert_dir: Path, xlnet_checkpoint: Path, tmp_path: Path) -> None:
    """At GPU scale, the default taught by the accurate tier needs both checkpoints on the device.
    The start's layers become the exported backbone (its original sha256 recorded), the teacher (on another
    backbone here, as mpnet is for MiniLM) a full checkpoint in fp16 that scores as the original."""
    import torch
    from safetensors.torch import load_file

    from coherence_metric import CoherenceScorer
    from coherence_metric.models.checkpoint import load_checkpoint
    from coherence_metric.models.checkpoint_config import read_checkpoint_config

    start = _start_checkpoint(tiny_bert_dir, tmp_path / "start")
    out = tmp_path / "gpu"
    manifest = export_inputs(_pointwise_recipe(tmp_path, tiny_bert_dir), out, {
        "model.init_checkpoint": str(start), "objective.score_teacher": str(xlnet_checkpoint),
        "objective.score_distil_weight": 1.0}, documents=_documents(), dev_data=_dev_data())
    assert manifest["carried"]["start"] == {"name": str(start),
                                            "fingerprint": read_checkpoint_config(start).fingerprint()}
    assert manifest["carried"]["teacher"] == {"name": str(xlnet_checkpoint), "parts": [],
                                              "fingerprint": read_checkpoint_config(xlnet_checkpoint).fingerprint()}
    assert manifest["backbone"]["sha256"] == sha256_of_file(tiny_bert_dir / "model.safetensors")
    started = load_checkpoint(start).model
    exported = load_file(str(out / "backbone" / "model.safetensors"))
    top = [name for name, parameter in started.backbone.named_parameters() if "layer.1." in name]
    assert top and all(torch.equal(exported[name], started.backbone.state_dict()[name].half()) for name in top)
    original = load_file(str(tiny_bert_dir / "model.safetensors"))
    assert not torch.equal(exported[top[0]], original[top[0]].half())  # the start's layer, not the backbone's
    assert torch.equal(load_file(str(out / "start_head.safetensors"))["weight"], started.head.weight)
    texts = [["The river rose overnight.", "By morning the bridge was closed."], ["A short one."]]
    carried = CoherenceScorer(str(out / "teacher"), dtype="fp32").score(texts).scores
    assert carried == pytest.approx(CoherenceScorer(str(xlnet_checkpoint), dtype="fp32").score(texts).scores,
                                    abs=2e-3)
    with pytest.raises(InputError, match="stands on backbone"):
        export_inputs(_pointwise_recipe(tmp_path, tiny_bert_dir), tmp_path / "other",
                      {"model.init_checkpoint": str(xlnet_checkpoint)}, documents=_documents(), dev_data=_dev_data())


def test_the_size_report_names_the_large_tracked_files_and_a_carried_folder_git_does_not_ignore(
        tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    (root / "big").mkdir(parents=True)
    (root / "big" / "weights.bin").write_bytes(b"\0" * (transfer.LARGE_TRACKED + 10))
    (root / "small.txt").write_text("x", encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    (root / ".dev").mkdir()
    (root / ".git" / "info" / "exclude").write_text(".dev/\n", encoding="utf-8")
    total, large = transfer.travelling_tree(root)
    assert total == transfer.LARGE_TRACKED + 11 and large == [("big/weights.bin", transfer.LARGE_TRACKED + 10)]
    manifest = {"sizes": {"gpu": int(63.9 * transfer.MIB)}, "backbone": {"parts": []}}
    lines = size_report(root / ".dev" / "gpu", manifest, root)
    assert "the working tree adds 0.3 MiB: with the largest carried folder 64.2 MiB" in lines[1]
    assert "without the 1 tracked files of 256 KiB or more (0.3 MiB: big/weights.bin (0.3 MiB))" in lines[2]
    assert "a call moves 63.9 MiB and fits" in lines[2]
    assert len(lines) == 3  # .dev/ is ignored: no warning
    lines = size_report(root / "inputs", manifest, root)
    assert "inputs is not ignored by git" in lines[-1]


# --------------------------------------------------------------------------------------------- on the device


def test_a_pointwise_recipe_goes_out_trains_on_the_device_and_comes_back_as_a_checkpoint_the_scorer_loads(
        tiny_bert_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole route through the CLI, on the CPU: export (corpora and human_dev stood in for), on-device with a
    deadline, unpack; the unpacked snapshot loads over the original backbone (the sha256 it records)."""
    from coherence_metric import CoherenceScorer
    from coherence_metric.training.pointwise import dev_report, texts

    documents = _documents()
    monkeypatch.setattr(texts, "sample_documents", lambda data, split: documents[split])
    monkeypatch.setattr(dev_report, "load_dev_data", _dev_data)
    runner = CliRunner()
    inputs, device_out, back = tmp_path / "gpu", tmp_path / "OUT", tmp_path / "runs" / "gpu-1"
    done = runner.invoke(route, ["export-inputs", str(_pointwise_recipe(tmp_path, tiny_bert_dir)),
                                "--output", str(inputs)])
    assert done.exit_code == 0, done.output
    assert "exported pointwise inputs" in done.output and "6 training documents" in done.output
    done = runner.invoke(route, ["on-device", "--inputs", str(inputs), "--output", str(device_out),
                                "--work", str(tmp_path / "work"), "--deadline", "120", "--workers", "0",
                                "--device", "cpu", "--fixed-steps", "--set", "loop.eval_every=2"])
    assert done.exit_code == 0, done.output
    result = json.loads((device_out / "result.json").read_text(encoding="utf-8"))
    assert [record["step"] for record in result["records"]] == [0, 2]
    assert all({"human_mean", "own_shuffle", "first_beats_whole", "synthetic_auc"} <= set(record)
               for record in result["records"])
    names = [pick["name"] for pick in result["picks"]]
    assert names == ["as-written-step-2"] and result["left_out"] == []  # step 0 is no training
    assert sorted(path.name for path in device_out.iterdir()) == sorted(
        ["result.json", "logs.tar.gz", *result["archive"]["parts"]])
    assert all(path.stat().st_size <= transfer.RETURN_FILE_LIMIT for path in device_out.iterdir())
    done = runner.invoke(route, ["unpack-outputs", str(device_out), "--output", str(back)])
    assert done.exit_code == 0, done.output
    assert sorted(path.name for path in back.iterdir()) == sorted([*names, "logs", "result.json"])
    assert (back / "logs" / "as-written.scores-2.json.gz").is_file()  # every snapshot's dev scores
    config = read_checkpoint_config(back / names[0])
    assert config.backbone.name_or_path == str(tiny_bert_dir)
    assert config.backbone.weights_sha256 == sha256_of_file(tiny_bert_dir / "model.safetensors")
    assert config.training["trained_on"] == "cpu" and config.training["variant"] == "as-written"
    scores = CoherenceScorer(str(back / names[0]), dtype="fp32").score(["One sentence.", "Two. Sentences."]).scores
    assert len(scores) == 2
    (device_out / result["archive"]["parts"][0]).write_bytes(b"not the archive")
    done = runner.invoke(route, ["unpack-outputs", str(device_out), "--output", str(tmp_path / "x")])
    assert done.exit_code == 2 and "another sha256 than the device packed" in done.output


def test_on_the_device_the_start_is_where_training_begins_and_the_split_teacher_is_joined_checked_and_learned(
        tiny_bert_dir: Path, xlnet_checkpoint: Path, tmp_path: Path) -> None:
    from coherence_metric.models.checkpoint import load_checkpoint
    from coherence_metric.training.evaluation import score_documents
    from coherence_metric.training.pointwise.dev_report import dev_documents

    start = _start_checkpoint(tiny_bert_dir, tmp_path / "start")
    inputs = tmp_path / "gpu"
    teacher_bytes = transfer.folder_bytes(xlnet_checkpoint / "backbone" / "model.safetensors") // 2
    manifest = export_inputs(_pointwise_recipe(tmp_path, tiny_bert_dir), inputs, {
        "model.init_checkpoint": str(start), "objective.score_teacher": str(xlnet_checkpoint),
        "objective.score_distil_weight": 1.0}, split_mb=(teacher_bytes // 2) / transfer.MIB,
        documents=_documents(), dev_data=_dev_data())
    teacher_parts = manifest["carried"]["teacher"]["parts"]
    assert teacher_parts == [f"gpu-teacher-part{index}" for index in range(1, len(teacher_parts) + 1)]
    assert len(teacher_parts) >= 2 and set(manifest["sizes"]) == {"gpu", *manifest["backbone"]["parts"],
                                                                  *teacher_parts}
    copied = tmp_path / "copied"  # the earlier calls' parts, all in one folder there; the last call carries its own
    copied.mkdir()
    for name in [*manifest["backbone"]["parts"], *teacher_parts[:-1]]:
        for part in (tmp_path / name).iterdir():
            part.rename(copied / part.name)
    assert len(list(copied.iterdir())) == len(manifest["backbone"]["parts"]) + len(teacher_parts) - 1
    together = manifest["sizes"]["gpu"] + manifest["sizes"][teacher_parts[-1]]
    assert (f"the last also carries gpu ({transfer.mib(together)} together)"
            in size_report(inputs, manifest, root=tmp_path)[-1])
    result = run_on_device(inputs, tmp_path / "OUT", tmp_path / "work", 300.0,
                           [("taught", {}), ("control", {"objective.score_teacher": None,
                                                         "objective.score_distil_weight": 0.0})],
                           {"loop.max_steps": 2, "loop.eval_every": 2}, workers=0, fit_steps=False, device="cpu",
                           parts=[copied])
    assert not (inputs / "teacher" / "backbone" / "parts.json").exists()  # the checkpoint lists what it holds
    logs = {name: [json.loads(line) for line in (tmp_path / "work" / name / "loop" / "log.jsonl").read_text(
        encoding="utf-8").splitlines()] for name in ("taught", "control")}
    assert any("score_distillation" in record for record in logs["taught"])
    assert not any("score_distillation" in record for record in logs["control"])
    # Step 0 scores every dev text with the model as started: the start's, to fp16 rounding.
    with gzip.open(tmp_path / "work" / "taught" / "scores-0.json.gz", "rt", encoding="utf-8") as handle:
        at_start = json.load(handle)
    started = load_checkpoint(start)
    for key, texts in dev_documents(_dev_data()).items():
        expected = score_documents(started.model, started.tokenizer, texts, 64)
        assert at_start[key] == pytest.approx([float(value) for value in expected], abs=5e-3)
    snapshot = read_checkpoint_config(tmp_path / "work" / "taught" / "step-2")
    assert snapshot.training["recipe"]["model"]["init_checkpoint"] == str(start)
    assert snapshot.training["recipe"]["objective"]["score_teacher"] == str(xlnet_checkpoint)
    assert snapshot.training["carried"] == manifest["carried"]
    assert read_checkpoint_config(tmp_path / "work" / "control" / "step-2").training["carried"] == {
        "start": manifest["carried"]["start"]}
    assert {pick["name"] for pick in result["picks"]} >= {"taught-step-2", "control-step-2"}
    with pytest.raises(InputError, match="score_teacher is 'accurate', but the export carried"):
        run_on_device(inputs, tmp_path / "OUT2", tmp_path / "work2", 300.0, [("other", {
            "objective.score_teacher": "accurate"})], {"loop.max_steps": 1}, workers=0, fit_steps=False,
            device="cpu", parts=[copied])


@pytest.mark.slow
def test_variants_share_the_deadline_and_each_variants_own_settings_win(tiny_bert_dir: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "gpu"
    export_inputs(_pointwise_recipe(tmp_path, tiny_bert_dir), inputs, documents=_documents(), dev_data=_dev_data())
    result = run_on_device(inputs, tmp_path / "OUT", tmp_path / "work", 300.0,
                           [("one", {"loop.max_steps": 1}), ("two", {})], {"loop.max_steps": 2}, workers=0,
                           fit_steps=False, device="cpu")
    steps = {(record["variant"], record["step"]) for record in result["records"]}
    assert steps == {("one", 0), ("one", 1), ("two", 0), ("two", 1), ("two", 2)}
    assert {pick["name"] for pick in result["picks"]} >= {"one-step-1", "two-step-2"}  # each variant's last
    with pytest.raises(InputError, match="variant names must differ"):
        run_on_device(inputs, tmp_path / "OUT2", tmp_path / "work2", 1.0, [("a", {}), ("a", {})], device="cpu")
    with pytest.raises(InputError, match="has no inputs.json"):
        run_on_device(tmp_path, tmp_path / "OUT3", tmp_path / "work3", 1.0, device="cpu")


def test_a_transition_model_trains_on_the_device_and_trains_on_from_its_own_checkpoint(
        tiny_bert_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coherence_metric.scoring.transition_pass import TransitionModel
    from coherence_metric.training.transition_model import recipe as transition_recipe

    monkeypatch.setattr(transition_recipe, "BACKBONE", str(tiny_bert_dir))  # the tiny backbone stands for MiniLM
    documents = [_sentences(index, 6) for index in range(6)]
    recipe, inputs = _transition_recipe(tmp_path), tmp_path / "gpu-tm"
    manifest = export_inputs(recipe, inputs, documents=documents, dev_sets=_localisation_sets())
    assert manifest["family"] == "transition_model" and manifest["documents"] == {"train": 6, "sentences": 36}
    with pytest.raises(InputError, match="--variant trains pointwise recipes"):
        run_on_device(inputs, tmp_path / "OUT0", tmp_path / "work0", 60.0, [("v", {})], device="cpu")
    result = run_on_device(inputs, tmp_path / "OUT", tmp_path / "work", 60.0, overrides={"train.steps": 4},
                           device="cpu")
    assert [record["step"] for record in result["records"]] == [2, 4]  # every eval_every steps and the last
    best = result["picks"][0]["step"]
    back = unpack_outputs(tmp_path / "OUT", tmp_path / "back")
    assert back["folders"] == [str(tmp_path / "back" / "checkpoint")]
    config = read_checkpoint_config(tmp_path / "back" / "checkpoint")
    assert config.training["step"] == best and config.training["recipe"]["train"]["steps"] == 4
    model = TransitionModel(tmp_path / "back" / "checkpoint")
    assert len(model.transition_values([_sentences(1, 3)])[0]) == 2
    # Trained on: the exported layers are the trained model's (fp16) and its head travels beside them.
    again = export_inputs(recipe, tmp_path / "gpu-tm2", documents=documents, dev_sets=_localisation_sets(),
                          continue_from=tmp_path / "back" / "checkpoint")
    assert again["continue_from"] == str(tmp_path / "back" / "checkpoint")
    from safetensors.torch import load_file

    trained = {name: tensor.half() for name, tensor in model.model.backbone.state_dict().items()}
    exported = load_file(str(tmp_path / "gpu-tm2" / "backbone" / "model.safetensors"))
    assert all(exported[name].equal(trained[name]) for name in exported) and set(exported) <= set(trained)
    assert (tmp_path / "gpu-tm2" / "head.safetensors").read_bytes() == (
        tmp_path / "back" / "checkpoint" / "head.safetensors").read_bytes()
    result = run_on_device(tmp_path / "gpu-tm2", tmp_path / "OUT2", tmp_path / "work2", 60.0,
                           overrides={"train.steps": 2}, device="cpu")
    assert [record["step"] for record in result["records"]] == [2]


# ------------------------------------------------------------------------------------------- choices, in small


def _record(variant: str, step: int, human: float, synthetic: float, first: float = 0.4,
            shuffle: float = 0.9) -> Dict[str, Any]:
    return {"variant": variant, "step": step, "human_mean": human, "synthetic_select_joint": synthetic,
            "first_beats_whole": first, "own_shuffle": shuffle}


def test_choose_takes_the_best_passing_human_mean_then_the_best_synthetic_then_each_variants_last() -> None:
    records = [_record("a", 0, 0.9, 0.9), _record("a", 100, 0.70, 0.80), _record("a", 200, 0.75, 0.70, first=0.7),
               _record("a", 300, 0.72, 0.85), _record("b", 100, 0.71, 0.60), _record("b", 150, 0.60, 0.60)]
    picks = [(record["variant"], record["step"]) for record in choose(records)]
    assert picks == [("a", 300), ("b", 150)]  # step 200 fails the truncation check; step 0 is no training
    failing = [_record("a", 100, 0.7, 0.5, shuffle=0.5), _record("a", 200, 0.6, 0.6, shuffle=0.5)]
    assert [(r["variant"], r["step"]) for r in choose(failing)] == [("a", 100), ("a", 200)]  # none passes: best mean
    assert choose([_record("a", 0, 0.9, 0.9)]) == []


def test_what_fits_the_trip_back_is_packed_in_order_of_preference(tmp_path: Path) -> None:
    folders = []
    for name, size in (("first", 21), ("second", 21), ("third", 21), ("fourth", 1)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "weights").write_bytes(b"\0" * (size * transfer.MIB))
        folders.append((name, tmp_path / name))
    kept, left = transfer.fitting(folders, transfer.RETURN_LIMIT, reserved=2 * transfer.MIB)
    assert [name for name, _ in kept] == ["first", "second", "fourth"] and left == ["third"]


def test_the_step_count_is_fitted_to_end_before_the_deadline_with_its_evaluations() -> None:
    # 0.1 s a step, 300 s left, 6 s an evaluation: 300 - 30 - 30 = 240 s of steps
    assert fitted_steps(60, 0.1, 300.0, 6.0, cap=100_000) == 60 + 2400
    assert fitted_steps(60, 0.1, 300.0, 6.0, cap=1000) == 1000
    assert fitted_steps(60, 10.0, 5.0, 6.0, cap=1000) == 61  # no time left: one more step


def test_prefetched_batches_are_the_objectives_own() -> None:
    from coherence_metric.training.pointwise.objective import PointwiseObjective, PointwiseObjectiveSection

    data = PointwiseData(corpora=["lee"], train_documents=6, decontaminate=False,
                         negatives={"shuffle": 1, "cut_off": 1})
    section = PointwiseObjectiveSection(batch_size=2)
    maker = PointwiseObjective.__new__(PointwiseObjective)
    maker.train, maker.data, maker.section = _documents()["train"], data, section
    prefetcher = Prefetcher(maker.train, data, section, workers=1, ahead=2)
    try:
        assert [prefetcher.batch(position) for position in range(4)] == [maker.batch(p) for p in range(4)]
        with pytest.raises(RuntimeError, match="expected position 4"):
            prefetcher.batch(7)
    finally:
        prefetcher.close()


# ------------------------------------------------------------------------------- the device's entry point


def test_the_device_runs_the_route_from_a_checkout_that_was_never_installed() -> None:
    """The device machine has the working tree and the dependencies but no install: ``python3 -m tools.gpu_route
    ...`` from the checkout's root finds ``coherence_metric.training`` in its folder, and the installed command line
    no longer has the route's commands (they live in the repository only)."""
    from coherence_metric.training.cli import train

    assert not {"export-gpu-inputs", "on-device", "unpack-gpu-outputs"} & set(train.commands)
    site_packages = sysconfig.get_paths()["purelib"]
    probe = ("import importlib.util as u; print(u.find_spec('coherence_metric.training') is None); "
             "import tools.gpu_route.on_device, tools.gpu_route.pointwise_device, tools.gpu_route.transitions_device; "
             "print(u.find_spec('coherence_metric.training').origin)")
    # -S: no site-packages and none of its .pth files (the editable install's among them); PYTHONPATH gives the
    # dependencies alone, and the checkout's root (the working folder) gives coherence_metric and tools.
    environment = {**os.environ, "PYTHONPATH": site_packages}
    done = subprocess.run([sys.executable, "-S", "-c", probe], cwd=REPO_DIR, capture_output=True, text=True,
                          env=environment, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["True", str(REPO_DIR / "training" / "__init__.py")]
    # The command line docs/training.md gives the device call, as written.
    done = subprocess.run([sys.executable, "-S", "-m", "tools.gpu_route", "on-device", "--help"], cwd=REPO_DIR,
                          capture_output=True, text=True, env=environment, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Usage: python -m tools.gpu_route on-device" in done.stdout
    assert "Train exported inputs on this (device) machine" in done.stdout
