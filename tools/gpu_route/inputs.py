"""``python -m tools.gpu_route export-inputs``: pack what a lent GPU machine needs to train a recipe, and lacks.

The device machine has PyTorch and transformers but no corpora, no backbone, no human_dev files and no route to the
Hub. This writes, in one folder (an ignored one, which the device call carries):

- ``inputs.json``: the recipe (the file with its ``--set`` overrides), its family, the backbone's name and the sha256
  of its original weights file, and what was packed;
- ``documents.json.gz``: the recipe's training documents, sampled and decontaminated here as its family samples them
  (``pointwise``: train and dev documents, each cut to its first ``max_sentences`` sentences; ``transition_model``:
  the indexed training documents with their intruders);
- the dev ruler that chooses among the device's snapshots, made here so that the device never reads a human_dev file
  (``pointwise``: ``dev_ruler.json.gz``, the ruler of ``dev_report`` as JSON, never a pickle, which would run code
  on loading; ``transition_model``: ``dev_sets.json``, the localisation recipe on the news corpora's dev
  documents). No test set leaves this machine;
- ``backbone/``: the backbone with its weights in fp16 (all-MiniLM-L6-v2: 44 MiB instead of 87), the pooler left out.
  The checkpoints the device writes record the original file's sha256, and their frozen weights are read from that
  file where they load; fp16 rounding of a frozen matrix is far below the bf16 noise of training itself.

The checkpoints a pointwise recipe reads travel too (e.g. the default taught by the accurate tier at GPU
scale), since the device has no installed checkpoint and no backbone but the exported one:

- ``model.init_checkpoint``: its layers, in fp16, are the exported ``backbone/`` (the start stands on the recipe's
  backbone, so the recorded sha256 stays the original's, and its frozen embeddings are that file's), and its head is
  ``start_head.safetensors``;
- ``objective.score_teacher``: ``teacher/``, a full checkpoint with the teacher's weights in fp16 (an adapter merged
  into its backbone: all-mpnet-base-v2's 209 MiB), which the device loads, verifies and reads back in fp32.

Weights over one call's transfer (all-mpnet-base-v2's fp16 weights: 209 MiB) are split with ``split_mb`` into
folders ``<out>-part1``, ``<out>-part2``, ... (a teacher's into ``<out>-teacher-part1``, ...) that travel one per
call to one warm machine; ``on-device --parts`` joins them there, every part's sha256 and the whole file's checked.
"""

from __future__ import annotations

import copy
import dataclasses
import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from coherence_metric.errors import InputError
from coherence_metric.toolkit import plain_names, read_json, sha256_of_file
from coherence_metric.training.families import recipe_family
from coherence_metric.training.model_setup import backbone_folder as find_backbone_folder

from . import transfer
from .dev_ruler import DEV_RULER_FILE, write_dev_ruler

if TYPE_CHECKING:
    import torch

INPUTS_FILE = "inputs.json"
BACKBONE_DIR = "backbone"
DOCUMENTS_FILE = "documents.json.gz"
#: The pointwise dev ruler, as gzipped JSON.
DEV_DATA_FILE = DEV_RULER_FILE
#: The transition model's dev localisation sets.
DEV_SETS_FILE = "dev_sets.json"
#: A trained transition model's head, packed by ``--continue-from`` (its layers are in ``backbone/``).
HEAD_FILE = "head.safetensors"
#: A pointwise recipe's ``model.init_checkpoint``: its head (its layers are in ``backbone/``).
START_HEAD_FILE = "start_head.safetensors"
#: A pointwise recipe's ``objective.score_teacher``: a full checkpoint, its weights in fp16.
TEACHER_DIR = "teacher"
#: What a teacher's weight parts are called: ``<out>-teacher-partN`` folders holding ``teacher-model.safetensors.partN``
#: (the backbone's parts are ``model.safetensors.partN``; both are copied to one folder on the device).
TEACHER_PARTS = "teacher"
#: The families this route trains.
DEVICE_FAMILIES = ("pointwise", "transition_model")
#: A backbone folder's weight files (none travels but ``model.safetensors``, in fp16).
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".onnx", ".ot", ".ckpt")
#: Top-level files of a backbone folder larger than this stay behind (the tokenizer and config are far smaller).
SMALL_FILE = 5 * transfer.MIB


def export_backbone(out: Path, name: str, folder: Path, split_mb: float = 0.0,
                    weights_over: Optional[Dict[str, "torch.Tensor"]] = None) -> Dict[str, Any]:
    """The backbone in ``folder`` into ``out/backbone``: its config and tokenizer files, and its weights (those of
    ``weights_over`` when given: a start checkpoint's layers over the same backbone) in fp16 without the pooler
    (split into ``<out>-partN`` folders of at most ``split_mb`` MiB when that is set). Returns the record
    ``inputs.json`` keeps: the name, the original weights' sha256 and the parts' folders."""
    import torch
    from safetensors.torch import load_file, save_file

    weights = folder / "model.safetensors"
    if not weights.is_file():
        raise InputError(f"{folder} has no model.safetensors: the device reads safetensors weights only")
    target = out / BACKBONE_DIR
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.iterdir()):
        if path.is_file() and not path.name.endswith(WEIGHT_SUFFIXES) and path.stat().st_size <= SMALL_FILE:
            shutil.copyfile(path, target / path.name)
    tensors = load_file(str(weights)) if weights_over is None else weights_over
    # The pooler is never read (pooling reads the hidden states): left out of the transfer.
    half = {key: tensor.to(torch.float16) if tensor.is_floating_point() else tensor
            for key, tensor in tensors.items() if not key.startswith("pooler.")}
    save_file(half, str(target / "model.safetensors"), metadata={"format": "pt"})
    record: Dict[str, Any] = {"name": name, "sha256": sha256_of_file(weights), "parts": []}
    if split_mb > 0:
        parts = transfer.split_into_folders(target / "model.safetensors", out, int(split_mb * transfer.MIB))
        record["parts"] = [part.parent.name for part in parts]
    return record


def _refuse_what_cannot_travel(recipe: Any, where: str) -> None:
    """A pointwise recipe with a boundary teacher (a transition model): the device has none of the installed
    checkpoints, and this route carries a start and a score teacher only."""
    if recipe.objective.boundary and recipe.objective.boundary_teacher:
        raise InputError(f"{where}: objective.boundary_teacher names a transition model, which the device machine "
                         "does not have and this route does not carry: train that recipe here")


def start_weights(recipe: Any, folder: Path) -> Dict[str, Any]:
    """``model.init_checkpoint`` as it travels: its backbone tensors (over the recipe's backbone in ``folder``, which
    it must stand on), its head tensors and the record ``inputs.json`` keeps (name, fingerprint).

    Raises:
        InputError: a start on another backbone, with a sentence-level term, or cut to fewer layers.
    """
    from coherence_metric import CoherenceModel
    from coherence_metric.toolkit import BackboneSpec, read_checkpoint_config, resolve_model
    from coherence_metric.training.model_setup import start_from_checkpoint

    name = recipe.model.init_checkpoint
    model = CoherenceModel.from_backbone(folder, pooling=recipe.model.pooling, max_length=recipe.model.max_length)
    model.backbone_spec = BackboneSpec(name_or_path=recipe.model.backbone, revision=recipe.model.backbone_revision,
                                       model_type=model.backbone_spec.model_type,
                                       weights_sha256=sha256_of_file(folder / "model.safetensors"))
    start_from_checkpoint(model, name)  # refuses another backbone or a sentence-level term, in one line
    if model.num_layers is not None:
        raise InputError(f"model.init_checkpoint {name!r} is cut to {model.num_layers} layers, which this route "
                         "does not carry: train that recipe here")
    resolved = resolve_model(name, local_files_only=True)
    return {"backbone": model.backbone.state_dict(),
            "head": {"weight": model.head.weight.detach().float().contiguous(),
                     "bias": model.head.bias.detach().float().contiguous()},
            "record": {"name": name, "fingerprint": read_checkpoint_config(resolved.folder).fingerprint()}}


def export_teacher(out: Path, name: str, split_mb: float = 0.0) -> Dict[str, Any]:
    """``objective.score_teacher`` into ``out/teacher``: a full checkpoint (an adapter merged into its backbone),
    its weights in fp16, split into ``<out>-teacher-partN`` folders when ``split_mb`` is set. Returns the record
    ``inputs.json`` keeps: name, fingerprint, parts."""
    from coherence_metric import load_checkpoint, save_checkpoint
    from coherence_metric.toolkit import resolve_model
    from coherence_metric.training.pointwise.objective import refuse_added_terms

    loaded = load_checkpoint(resolve_model(name, local_files_only=True).folder)
    refuse_added_terms(name, loaded.model)
    loaded.model.backbone.half()  # load_encoder reads it back in fp32 there (fp16 moved 70 dev scores <= 0.0034)
    target = out / TEACHER_DIR
    save_checkpoint(loaded.model, target, loaded.tokenizer, flavour="full",
                    training={"carried_from": name, "carried_fingerprint": loaded.config.fingerprint()})
    record: Dict[str, Any] = {"name": name, "fingerprint": loaded.config.fingerprint(), "parts": []}
    if split_mb > 0:
        parts = transfer.split_into_folders(target / BACKBONE_DIR / "model.safetensors", out.parent / f"{out.name}-"
                                            f"{TEACHER_PARTS}", int(split_mb * transfer.MIB), label=f"{TEACHER_PARTS}-")
        record["parts"] = [part.parent.name for part in parts]
    return record


def carried_parts(manifest: Dict[str, Any]) -> List[str]:
    """Every part folder of an export, in the order the calls carry them: the backbone's, then a teacher's."""
    teacher = manifest.get("carried", {}).get("teacher") or {}
    return [*manifest["backbone"]["parts"], *teacher.get("parts", [])]


def export_pointwise(out: Path, values: Dict[str, Any], where: str, max_sentences: int = 40,
                     documents: Optional[Dict[str, Sequence[Any]]] = None, dev_data: Any = None,
                     backbone: Optional[Path] = None, split_mb: float = 0.0) -> Dict[str, Any]:
    """A ``family: pointwise`` recipe's inputs; ``documents`` (``train`` and ``dev`` lists of Document) and
    ``dev_data`` (a ``DevData``) stand in for the corpora and human_dev (tests), ``backbone`` for the folder the
    package finds. Returns the manifest written to ``inputs.json``."""
    from coherence_metric.training.pointwise.recipe import recipe_from_mapping

    recipe = recipe_from_mapping(copy.deepcopy(values), where)
    _refuse_what_cannot_travel(recipe, where)
    if documents is None:
        from coherence_metric.training.pointwise.texts import sample_documents

        documents = {split: sample_documents(recipe.data, split) for split in ("train", "dev")}
    packed = {split: [{"id": document.id, "source": document.source, "title": document.title,
                       "sentences": list(document.sentences[:max_sentences])} for document in documents[split]]
              for split in ("train", "dev")}
    with gzip.open(out / DOCUMENTS_FILE, "wt", encoding="utf-8") as handle:
        json.dump(packed, handle)
    if dev_data is None:
        from coherence_metric.training.pointwise.dev_report import load_dev_data

        dev_data = load_dev_data()
    write_dev_ruler(dev_data, out / DEV_DATA_FILE)
    folder = backbone or find_backbone_folder(recipe.model.backbone, recipe.model.backbone_revision)
    carried: Dict[str, Any] = {}
    start = start_weights(recipe, folder) if recipe.model.init_checkpoint else None
    if start is not None:
        from safetensors.torch import save_file

        save_file(start["head"], str(out / START_HEAD_FILE))
        carried["start"] = start["record"]
    record = export_backbone(out, recipe.model.backbone, folder, split_mb, start and start["backbone"])
    record["revision"] = recipe.model.backbone_revision
    if recipe.objective.score_teacher:
        carried["teacher"] = export_teacher(out, recipe.objective.score_teacher, split_mb)
    counts: Dict[str, int] = {}
    for item in packed["train"]:
        counts[item["source"]] = counts.get(item["source"], 0) + 1
    return {"family": "pointwise", "recipe": values, "backbone": record, "carried": carried,
            "documents": {"train": counts, "dev": len(packed["dev"]), "max_sentences": max_sentences}}


def export_transitions(out: Path, values: Dict[str, Any], where: str,
                       documents: Optional[Sequence[Sequence[str]]] = None,
                       dev_sets: Optional[Dict[str, List[Any]]] = None, backbone: Optional[Path] = None,
                       continue_from: Optional[Path] = None) -> Dict[str, Any]:
    """A ``family: transition_model`` recipe's inputs; ``documents`` (sentence lists) and ``dev_sets`` (kind ->
    LocalisationItem list) stand in for the corpora (tests). ``continue_from`` packs a trained transition model
    to train on: its layers in fp16 in ``backbone/model.safetensors`` (its frozen embeddings are the backbone's, so
    the recorded sha256 stays the original's) and its head as ``head.safetensors``."""
    from coherence_metric.training.transition_model.data import index_documents
    from coherence_metric.training.transition_model.recipe import (
        BACKBONE,
        DevLocalisation,
        recipe_from_mapping,
        training_documents,
    )

    recipe = recipe_from_mapping(copy.deepcopy(values), where)
    indexed = index_documents(training_documents(recipe.data) if documents is None else documents)
    with gzip.open(out / DOCUMENTS_FILE, "wt", encoding="utf-8") as handle:
        json.dump(dataclasses.asdict(indexed), handle)
    sets = DevLocalisation.from_data(recipe.data).sets if dev_sets is None else dev_sets
    (out / DEV_SETS_FILE).write_text(json.dumps({kind: [dataclasses.asdict(item) for item in items]
                                                 for kind, items in sets.items()}), encoding="utf-8")
    record = export_backbone(out, BACKBONE, backbone or find_backbone_folder(BACKBONE))
    if continue_from is not None:
        _pack_trained_transitions(Path(continue_from), out)
    return {"family": "transition_model", "recipe": values, "backbone": record,
            "documents": {"train": len(indexed.rows), "sentences": len(indexed.sentences)},
            "continue_from": None if continue_from is None else str(continue_from)}


def _pack_trained_transitions(checkpoint: Path, out: Path) -> None:
    """A trained transition model's backbone tensors (fp16) over the exported backbone's, its head beside them."""
    import torch
    from safetensors.torch import save_file

    from coherence_metric.toolkit import TransitionModel

    model = TransitionModel(checkpoint).model
    tensors = {name: tensor.detach().to(torch.float16).contiguous() for name, tensor in
               model.backbone.state_dict().items() if not name.startswith("pooler.")}
    save_file(tensors, str(out / BACKBONE_DIR / "model.safetensors"), metadata={"format": "pt"})
    shutil.copyfile(checkpoint / HEAD_FILE, out / HEAD_FILE)


def export_inputs(recipe_path: Path, out: Path, overrides: Optional[Dict[str, Any]] = None, max_sentences: int = 40,
                  backbone: Optional[Path] = None, split_mb: float = 0.0, continue_from: Optional[Path] = None,
                  limit: Optional[int] = None, **stand_ins: Any) -> Dict[str, Any]:
    """Write the inputs of ``recipe_path`` (with dotted ``overrides``) to ``out``, replacing an earlier export there,
    and check that every folder a call carries fits the transfer (``limit``, default 64 MiB). Returns the manifest
    with ``sizes`` (bytes per carried folder). ``stand_ins``: ``documents``, ``dev_data`` / ``dev_sets`` (tests).

    Only what an export wrote is ever deleted: an earlier export's files and part folders, by the names its
    ``inputs.json`` lists (``written``, the parts), and what this export wrote when it stops half-way. A folder
    holding anything else is refused, and so is a part folder name already taken when parts are to be written.

    Raises:
        InputError: a family this route does not train, a recipe with a boundary teacher, options of another family,
            an output folder holding files no export wrote, or a carried folder over the limit (the export stays,
            for a look).
    """
    from coherence_metric.training.config import read_recipe_mapping

    limit = transfer.TRANSFER_LIMIT if limit is None else limit
    if not 0 <= split_mb < limit / transfer.MIB:
        raise InputError(f"--split-mb must be between 0 and {limit // transfer.MIB} (one call's transfer)")
    values = read_recipe_mapping(recipe_path, overrides)
    family = recipe_family(values, str(recipe_path))
    if family not in DEVICE_FAMILIES:
        raise InputError(f"{recipe_path}: family {family!r} is not trained on a device machine by this route "
                         f"(it trains {' and '.join(DEVICE_FAMILIES)} recipes)")
    earlier = earlier_export(out)
    taken = [folder for folder in part_folders(out) if folder not in earlier]
    if split_mb and taken:
        raise InputError(f"{taken[0]} is there already and no export in {out} wrote it: the parts go into new "
                         "folders of that name (move it away, or name another --output)")
    remove_exactly(earlier)
    out.mkdir(parents=True, exist_ok=True)
    try:
        manifest = _export_family(family, recipe_path, out, values, max_sentences, backbone, split_mb,
                                  continue_from, stand_ins)
    except BaseException:
        remove_exactly([*out.iterdir(), *(folder for folder in part_folders(out) if folder not in taken)])
        raise
    manifest["written"] = sorted({path.name for path in out.iterdir()} | {INPUTS_FILE})
    (out / INPUTS_FILE).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    sizes = {out.name: transfer.folder_bytes(out)}
    sizes.update({name: transfer.folder_bytes(out.parent / name) for name in carried_parts(manifest)})
    over = [f"{name} ({transfer.mib(size)})" for name, size in sizes.items() if size > limit]
    travelling = carried_parts(manifest)
    if travelling and sizes[out.name] + sizes[travelling[-1]] > limit:  # the last call carries both
        over.append(f"{out.name} with {travelling[-1]} ({transfer.mib(sizes[out.name] + sizes[travelling[-1]])})")
    if over:
        hint = ("fewer documents (--set data.train_documents=N), or --split-mb 55 to send the backbone's weights "
                "in parts" if not split_mb else "a smaller --split-mb")
        raise InputError(f"{', '.join(over)} over the {transfer.mib(limit)} one device call carries: {hint}")
    return {**manifest, "sizes": sizes}


def _export_family(family: str, recipe_path: Path, out: Path, values: Dict[str, Any], max_sentences: int,
                   backbone: Optional[Path], split_mb: float, continue_from: Optional[Path],
                   stand_ins: Dict[str, Any]) -> Dict[str, Any]:
    """The inputs of one family written to ``out``; returns the manifest (without ``written``)."""
    if family == "pointwise":
        if continue_from is not None:
            raise InputError("--continue-from continues a transition model; a pointwise recipe starts from its "
                             "backbone")
        return export_pointwise(out, values, str(recipe_path), max_sentences, stand_ins.get("documents"),
                                stand_ins.get("dev_data"), backbone, split_mb)
    if split_mb:
        raise InputError("--split-mb splits a backbone too large for one call; the transition model's fits")
    return export_transitions(out, values, str(recipe_path), stand_ins.get("documents"),
                              stand_ins.get("dev_sets"), backbone, continue_from)


def part_folders(out: Path) -> List[Path]:
    """The folders beside ``out`` named as the parts of an export to ``out`` are (``<out>-partN``,
    ``<out>-teacher-partN``), whoever wrote them."""
    if not out.parent.is_dir():
        return []
    pattern = re.compile(rf"{re.escape(out.name)}-(?:{TEACHER_PARTS}-)?part[0-9]+")
    return sorted(path for path in out.parent.iterdir() if pattern.fullmatch(path.name))


def earlier_export(out: Path) -> List[Path]:
    """What an earlier export to ``out`` wrote, to be replaced: the entries of ``out`` and the part folders beside
    it that its ``inputs.json`` lists; nothing when ``out`` is missing or empty.

    Raises:
        InputError: ``out`` holds an entry its export did not write, has no ``inputs.json`` listing what it wrote,
            or that list names a part folder that is not one (nothing is deleted).
    """
    if (out.exists() or out.is_symlink()) and not out.is_dir():
        raise InputError(f"{out} is not a folder: name a new or empty folder (an ignored one, e.g. under .dev/)")
    present = sorted(out.iterdir()) if out.is_dir() else []
    if not present:
        return []
    record = out / INPUTS_FILE
    if not record.is_file():
        raise InputError(f"{out} holds other files: name a new or empty folder (an ignored one, e.g. under .dev/)")
    manifest = read_json(record)
    if not isinstance(manifest, dict) or "written" not in manifest:
        raise InputError(f"{record} does not list what its export wrote (an export of an older version?): remove "
                         f"{out} yourself, or name a new folder")
    written = set(plain_names(manifest["written"], record, "written"))
    others = [path.name for path in present if path.name not in written]
    if others:
        raise InputError(f"{out} holds {', '.join(others[:3])}, which its export did not write: move "
                         f"{'them' if len(others) > 1 else 'it'} away, or name a new folder")
    return [*present, *_recorded_part_folders(out, manifest, record)]


def _recorded_part_folders(out: Path, manifest: Dict[str, Any], record: Path) -> List[Path]:
    """The part folders an earlier export's manifest lists that are still there, each checked to be one: named as
    an export's parts are, holding part files only."""
    names: List[str] = []
    carried = manifest.get("carried")
    teacher = carried.get("teacher") if isinstance(carried, dict) else None
    for field, holder in (("backbone.parts", manifest.get("backbone")), ("carried.teacher.parts", teacher)):
        if isinstance(holder, dict):
            names += plain_names(holder.get("parts", []), record, field)
    ours = set(part_folders(out))
    folders = [out.parent / name for name in names if (out.parent / name).exists()]
    for folder in folders:
        if folder not in ours or folder.is_symlink() or not all(
                item.is_file() and not item.is_symlink() and ".part" in item.name for item in folder.iterdir()):
            raise InputError(f"{record} lists {folder.name} as a part folder, but {folder} is not one (named "
                             f"{out.name}-partN, holding parts only): move it away")
    return folders


def remove_exactly(paths: Sequence[Path]) -> None:
    """Delete each of ``paths`` (a folder with what it holds; a link, not what it points to)."""
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def size_report(out: Path, manifest: Dict[str, Any], root: Optional[Path] = None) -> List[str]:
    """Lines that say what each call carries and what the working tree adds: the call is refused over 64 MiB."""
    sizes = manifest["sizes"]
    lines = [f"{name}: {transfer.mib(size)}" for name, size in sizes.items()]
    parts = carried_parts(manifest)
    largest_call = max(sizes.values())
    if parts:
        last = sizes[out.name] + sizes[parts[-1]]
        largest_call = max(largest_call, last)
        lines.append(f"{len(parts)} calls on one warm machine carry {', '.join(parts)} in turn (each copied to the "
                     f"same folder there); the last also carries {out.name} ({transfer.mib(last)} together) and runs "
                     "`on-device --parts`")
    root = root or Path(__file__).resolve().parents[2]  # the checkout this file is in (tools/gpu_route/inputs.py)
    tree = transfer.travelling_tree(root)
    if tree is None:
        return lines
    total, large = tree
    lines.append(f"the working tree adds {transfer.mib(total)}: with the largest carried folder "
                 f"{transfer.mib(total + largest_call)} of the {transfer.mib(transfer.TRANSFER_LIMIT)} a call moves")
    if total + largest_call > transfer.TRANSFER_LIMIT and large:
        freed = sum(size for _, size in large)
        shown = ", ".join(f"{name} ({transfer.mib(size)})" for name, size in large[:3])
        fits = "fits" if total - freed + largest_call <= transfer.TRANSFER_LIMIT else "still does not fit"
        lines.append(f"without the {len(large)} tracked files of 256 KiB or more ({transfer.mib(freed)}: {shown}"
                     f"{', ...' if len(large) > 3 else ''}) a call moves {transfer.mib(total - freed + largest_call)} "
                     f"and {fits}: delete them for the calls and check them out again after (docs/training.md, "
                     "\"Training on a lent GPU\")")
    try:
        relative = out.resolve().relative_to(root)
    except ValueError:
        lines.append(f"{out} is outside the checkout: the device call carries only paths inside it")
    else:
        ignored = subprocess.run(["git", "check-ignore", "-q", str(relative)], cwd=root).returncode == 0
        if not ignored:
            lines.append(f"{relative} is not ignored by git: it would travel as part of the tree, not as a carried "
                         "path; add it to .git/info/exclude")
    return lines


__all__ = ["BACKBONE_DIR", "DEVICE_FAMILIES", "DEV_DATA_FILE", "DEV_SETS_FILE", "DOCUMENTS_FILE", "HEAD_FILE",
           "INPUTS_FILE", "START_HEAD_FILE", "TEACHER_DIR", "carried_parts", "earlier_export", "export_backbone",
           "export_inputs", "export_pointwise", "export_teacher", "export_transitions", "part_folders",
           "remove_exactly", "size_report", "start_weights"]
