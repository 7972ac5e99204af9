"""Train the transition model on a GPU over the inputs of :mod:`experiments.gpu_transitions.export` (issue 38).

The same model, examples, loss and dev ruler as ``family: transition_model`` (``training/transition_model``), with
larger batches and as many steps as the deadline allows; the best step by dev mean top-1 comes back as a delta
checkpoint packed into <= 15 MiB parts (``checkpoint.part*``), with the dev log. Nothing here reads a test set.

    python -m experiments.gpu_transitions.train --inputs .dev/gpu-tm --work /tmp/tm --out "$OUT" --deadline 400
"""

from __future__ import annotations

import argparse
import gzip
import json
import tarfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..gpu_joint.train_variants import SPLIT_BYTES, package_from_checkout

package_from_checkout()


def pack_folder(folder: Path, work: Path, out: Path, name: str) -> List[str]:
    """``folder`` as one tar.gz split into parts the device returns (<= 15 MiB each); returns their names."""
    archive = work / f"{name}.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(folder, arcname=name)
    data = archive.read_bytes()
    names = []
    for index in range(0, len(data), SPLIT_BYTES):
        part = out / f"{name}.part{index // SPLIT_BYTES}"
        part.write_bytes(data[index:index + SPLIT_BYTES])
        names.append(part.name)
    return names


def main(argv: Optional[List[str]] = None) -> None:
    import torch

    from coherence_metric.models.checkpoint import save_checkpoint
    from coherence_metric.research.localisation_sets import LocalisationItem
    from coherence_metric.training.transition_model.data import IndexedDocuments
    from coherence_metric.training.transition_model.recipe import (
        DevLocalisation,
        build_transition_model,
        example_stream,
        make_optimizer,
        recipe_from_mapping,
        train_step,
    )

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--deadline", type=float, default=400.0, help="seconds of training from now, then stop")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                        help="recipe override, e.g. train.batch_pairs=128")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--init-head", type=Path, default=None,
                        help="continue a trained model: its head's tensors (the backbone folder holds its layers)")
    args = parser.parse_args(argv)
    started = time.time()
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.inputs / "documents.json.gz", "rt", encoding="utf-8") as handle:
        packed = json.load(handle)
    overrides = {key: json.loads(value) for key, value in (item.split("=", 1) for item in args.set)}
    values: Dict[str, Any] = packed["recipe"]
    for dotted, value in overrides.items():
        section, key = dotted.split(".", 1)
        values[section][key] = value
    recipe = recipe_from_mapping(values, "exported recipe")
    train, data = recipe.train, recipe.data
    documents = IndexedDocuments(packed["sentences"], packed["rows"], packed["intruders"])
    sets = json.loads((args.inputs / "dev_sets.json").read_text(encoding="utf-8"))
    dev = DevLocalisation({kind: [LocalisationItem(**row) for row in rows] for kind, rows in sets.items()})
    backbone = args.inputs / "backbone"
    digest = (backbone / "weights_sha256.txt").read_text(encoding="utf-8").strip()
    torch.manual_seed(train.seed)
    model, tokenizer = build_transition_model(train.seed, folder=backbone, weights_sha256=digest)
    if args.init_head is not None:  # a continued run: the backbone folder already holds the trained layers
        from safetensors.torch import load_file

        model.head.load_state_dict({name: tensor for name, tensor in load_file(str(args.init_head)).items()
                                    if name in ("weight", "bias")})
    model.float().to(args.device)
    optimizer = make_optimizer(model, train)
    stream = example_stream(documents, data, 0)
    log = args.out / "dev.jsonl"
    best: Dict[str, Any] = {"dev": {"mean_top1": -1.0}}
    deadline = started + args.deadline
    losses: List[float] = []
    step = 0
    for step in range(1, train.steps + 1):
        batch = [next(stream)[1:] for _ in range(train.batch_pairs)]
        losses.append(train_step(model, tokenizer, optimizer, batch, step, train, args.device))
        last = step == train.steps or time.time() > deadline
        if step % train.eval_every == 0 or last:
            measured = dev.measure(model, tokenizer, train.dtype, args.device)
            record = {"step": step, "loss": round(sum(losses) / len(losses), 5), "dev": measured,
                      "seconds": round(time.time() - started, 1)}
            losses = []
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)
            if measured["mean_top1"] > best["dev"]["mean_top1"]:
                best = {"step": step, "dev": measured,
                        "state": {name: value.detach().cpu().clone() for name, value in model.state_dict().items()}}
        if last:
            break
    model.load_state_dict(best["state"])
    model.cpu()
    training = {"recipe": {**values, "train": {**values["train"]}}, "step": best["step"], "steps_run": step,
                "dev_localisation": best["dev"], "device": torch.cuda.get_device_name(0) if args.device == "cuda"
                else args.device, "input": "boundary pairs (coherence_metric.scoring.transition_pass.boundary_pairs)"}
    folder = save_checkpoint(model, args.work / "best", tokenizer=tokenizer, flavour="delta",
                             delta_dtype=torch.bfloat16, training=training, overwrite=True)
    parts = pack_folder(folder, args.work, args.out, "checkpoint")
    print(json.dumps({"best_step": best["step"], "dev": best["dev"], "parts": parts,
                      "seconds": round(time.time() - started, 1)}), flush=True)


if __name__ == "__main__":
    main()
