"""``python -m tools.gpu_route on-device`` and ``unpack-outputs``: train exported inputs on the device machine and
pack what comes back; here, check and unpack it.

On the device, under ``out`` (the call's ``$OUT``): ``result.json`` (the family, every evaluation's dev record, what
was packed and what did not fit), ``<name>.partN`` (the chosen checkpoints as one tar.gz cut into parts of at most
15 MiB: ``snapshots`` for a pointwise recipe, ``checkpoint`` for a transition model) and, for a pointwise recipe,
``logs.tar.gz`` (each variant's loop log and every snapshot's dev scores). Everything fits what the device tool
brings back: at most 8 files, 16 MiB each, 64 MiB in all.
"""

from __future__ import annotations

import json
import shutil
import tarfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from coherence_metric.errors import InputError
from coherence_metric.toolkit import plain_name, plain_names, read_json
from coherence_metric.training.state_files import write_text_atomically

from . import transfer
from .inputs import BACKBONE_DIR, INPUTS_FILE, TEACHER_DIR

RESULT_FILE = "result.json"
LOGS_FILE = "logs.tar.gz"
#: The name of the one variant trained when none is given: the exported recipe as written.
AS_WRITTEN = "as-written"
#: Bytes of the return kept for result.json beside the logs.
RESULT_ROOM = 1 * transfer.MIB


def read_manifest(inputs: Path) -> Dict[str, Any]:
    """``inputs/inputs.json``.

    Raises:
        InputError: the folder is not an export of ``export-inputs`` (no inputs.json, or not an object naming a
            family and a backbone).
    """
    path = inputs / INPUTS_FILE
    if not path.is_file():
        raise InputError(f"{inputs} has no {INPUTS_FILE}: export it with `python -m tools.gpu_route export-inputs` "
                         "and carry that folder")
    manifest = read_json(path)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("backbone"), dict) or "family" not in manifest:
        raise InputError(f"{path} is not an export's manifest (an object with family, backbone and recipe)")
    return manifest


def join_backbone(inputs: Path, manifest: Dict[str, Any], parts: Sequence[Path]) -> None:
    """Join the backbone's weights, and a carried teacher's, from their parts when they were exported in parts
    (``parts``: the folders the earlier calls copied them to; the part folders carried by this call, beside
    ``inputs``, are searched too). The teacher's parts list goes once its file is whole: its checkpoint lists every
    file it holds, and loading refuses one it does not. Every part folder's name is a plain name beside
    ``inputs``."""
    record = inputs / INPUTS_FILE
    carried = manifest.get("carried")
    teacher = (carried.get("teacher") if isinstance(carried, dict) else None) or {}
    if not isinstance(teacher, dict):
        raise InputError(f"{record}: carried.teacher must be an object (name, fingerprint, parts)")
    for folder, names in ((inputs / BACKBONE_DIR, plain_names(manifest["backbone"].get("parts", []), record,
                                                              "backbone.parts")),
                          (inputs / TEACHER_DIR / BACKBONE_DIR, plain_names(teacher.get("parts", []), record,
                                                                            "carried.teacher.parts"))):
        if not names or (folder / "model.safetensors").is_file():
            continue
        transfer.join_parts(folder, [*parts, *(inputs.parent / name for name in names)])
        if folder.parent.name == TEACHER_DIR:
            (folder / transfer.PARTS_FILE).unlink()


def _pack_logs(work: Path, variants: Sequence[str], out: Path) -> None:
    with tarfile.open(out / LOGS_FILE, "w:gz") as tar:
        for name in variants:
            if (work / name / "loop" / "log.jsonl").is_file():
                tar.add(work / name / "loop" / "log.jsonl", arcname=f"{name}.log.jsonl")
            for scores in sorted((work / name).glob("scores-*.json.gz")):
                tar.add(scores, arcname=f"{name}.{scores.name}")


#: The dev numbers a pick's line shows.
PICK_KEYS = ("variant", "step", "human_mean", "own_shuffle", "first_beats_whole", "synthetic_select_joint")


def run_on_device(inputs: Path, out: Path, work: Path, seconds: float,
                  variants: Sequence[Tuple[str, Dict[str, Any]]] = (), overrides: Optional[Dict[str, Any]] = None,
                  workers: int = 12, fit_steps: bool = True, device: str = "cuda", parts: Sequence[Path] = ()
                  ) -> Dict[str, Any]:
    """Train the exported recipe for ``seconds`` (pointwise: each of ``variants`` in turn, the recipe as written
    when none is given) and write what comes back to ``out``; returns ``result.json``'s content."""
    started = time.time()
    manifest = read_manifest(inputs)
    names = [name for name, _ in variants]
    if len(set(names)) != len(names):
        raise InputError(f"variant names must differ: {', '.join(names)}")
    join_backbone(inputs, manifest, parts)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    overrides = dict(overrides or {})
    result: Dict[str, Any] = {"family": manifest["family"], "inputs": inputs.name, "device": device}
    if manifest["family"] == "pointwise":
        from .pointwise_device import choose, run_variants

        variants = list(variants) or [(AS_WRITTEN, {})]
        records = run_variants(inputs, manifest, work, seconds, variants, {**overrides, "model.device": device},
                               workers, fit_steps, started)
        _pack_logs(work, [name for name, _ in variants], out)
        candidates = {f"{record['variant']}-step-{record['step']}": record for record in choose(records)}
        kept, left = transfer.fitting([(name, work / record["variant"] / f"step-{record['step']}")
                                       for name, record in candidates.items()], transfer.RETURN_LIMIT,
                                      transfer.folder_bytes(out / LOGS_FILE) + RESULT_ROOM)
        result.update(records=records, logs=LOGS_FILE, left_out=left,
                      picks=[{"name": name, **{key: candidates[name].get(key) for key in PICK_KEYS}}
                             for name, _ in kept])
        result["archive"] = transfer.pack(dict(kept), work, out, "snapshots") if kept else None
    else:
        from .transitions_device import train_transitions

        if variants:
            raise InputError("--variant trains pointwise recipes; a transition model trains its recipe with --set")
        summary = train_transitions(inputs, manifest, work, started + seconds, overrides, device)
        result.update(records=summary["records"], left_out=[],
                      picks=[{"name": "checkpoint", "step": summary["best_step"], "steps_run": summary["steps_run"],
                              "mean_top1": summary["dev"]["mean_top1"]}])
        result["archive"] = transfer.pack({"checkpoint": work / "checkpoint"}, work, out, "checkpoint")
    result["seconds"] = round(time.time() - started, 1)
    write_text_atomically(json.dumps(result, indent=1), out / RESULT_FILE)
    return result


def unpack_outputs(outputs: Path, target: Path) -> Dict[str, Any]:
    """The files a device call brought back (``outputs``) unpacked under ``target``: the checkpoints (every part's
    archive sha256 checked), the logs under ``target/logs`` and ``result.json``. Returns result.json's content with
    ``folders``, the checkpoint folders written.

    Raises:
        InputError: result.json is missing, not JSON, not an object, or names a file that is not a plain file name
            in ``outputs`` (checked before anything is written); a part is missing or altered.
    """
    path = outputs / RESULT_FILE
    if not path.is_file():
        raise InputError(f"{outputs} has no {RESULT_FILE}: name the folder the device call's files came back to")
    result = read_json(path)
    if not isinstance(result, dict):
        raise InputError(f"{path} is not a device call's result (a JSON object), but a {type(result).__name__}")
    archive = transfer.archive_record(result["archive"], str(path)) if result.get("archive") else None
    logs = plain_name(result["logs"], path, "logs") if result.get("logs") else None
    folders: List[Path] = []
    if archive:
        folders = transfer.unpack(outputs, archive, target, str(path))
    target.mkdir(parents=True, exist_ok=True)
    if logs and (outputs / logs).is_file():
        (target / "logs").mkdir(exist_ok=True)
        transfer.extract(outputs / logs, target / "logs")
    shutil.copyfile(path, target / RESULT_FILE)
    return {**result, "folders": [str(folder) for folder in folders]}


__all__ = ["AS_WRITTEN", "LOGS_FILE", "RESULT_FILE", "join_backbone", "read_manifest", "run_on_device",
           "unpack_outputs"]
