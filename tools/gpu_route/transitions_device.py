"""A ``family: transition_model`` recipe trained on the device machine from exported inputs.

The same model, examples, loss and dev ruler as ``coherence-metric train run`` of that family
(:mod:`coherence_metric.training.transition_model.recipe`), for as many steps as the deadline allows (at most
``train.steps``), evaluated every ``train.eval_every`` steps and at the last; the best step by dev mean top-1 becomes a
delta checkpoint. Inputs exported with ``--continue-from`` train that model on (its layers are the exported backbone,
its head ``head.safetensors``). Nothing here reads a test set.
"""

from __future__ import annotations

import gzip
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List

from coherence_metric.toolkit import read_json
from coherence_metric.training.config import apply_overrides


def train_transitions(inputs: Path, manifest: Dict[str, Any], work: Path, deadline: float,
                      overrides: Dict[str, Any], device: str) -> Dict[str, Any]:
    """Train until ``deadline`` (a ``time.time()``) or ``train.steps``; writes the best step's checkpoint to
    ``work/checkpoint`` and the dev log to ``work/dev.jsonl``; returns ``{"best_step", "dev", "steps_run",
    "records"}``."""
    import torch

    from coherence_metric import save_checkpoint
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

    from .inputs import BACKBONE_DIR, DEV_SETS_FILE, DOCUMENTS_FILE, HEAD_FILE

    started = time.time()
    work.mkdir(parents=True, exist_ok=True)
    values = apply_overrides(json.loads(json.dumps(manifest["recipe"])), overrides)
    recipe = recipe_from_mapping(values, "exported recipe")
    train, data = recipe.train, recipe.data
    with gzip.open(inputs / DOCUMENTS_FILE, "rt", encoding="utf-8") as handle:
        packed = json.load(handle)
    documents = IndexedDocuments(packed["sentences"], packed["rows"], packed["intruders"])
    sets = read_json(inputs / DEV_SETS_FILE)
    dev = DevLocalisation({kind: [LocalisationItem(**row) for row in rows] for kind, rows in sets.items()})
    torch.manual_seed(train.seed)
    model, tokenizer = build_transition_model(train.seed, folder=inputs / BACKBONE_DIR,
                                              weights_sha256=manifest["backbone"]["sha256"])
    model.backbone_spec = replace(model.backbone_spec, name_or_path=manifest["backbone"]["name"])
    if (inputs / HEAD_FILE).is_file():  # a continued run: the backbone folder already holds the trained layers
        from safetensors.torch import load_file

        model.head.load_state_dict({name: tensor for name, tensor in load_file(str(inputs / HEAD_FILE)).items()
                                    if name in ("weight", "bias")})
    model.float().to(device)
    optimizer = make_optimizer(model, train)
    stream = example_stream(documents, data, 0)
    log = work / "dev.jsonl"
    records: List[Dict[str, Any]] = []
    best: Dict[str, Any] = {"step": 0, "dev": {"mean_top1": -1.0}, "state": None}
    losses: List[float] = []
    step = 0
    for step in range(1, train.steps + 1):
        batch = [next(stream)[1:] for _ in range(train.batch_pairs)]
        losses.append(train_step(model, tokenizer, optimizer, batch, step, train, device))
        last = step == train.steps or time.time() > deadline
        if step % train.eval_every == 0 or last:
            measured = dev.measure(model, tokenizer, train.dtype, device)
            record = {"step": step, "loss": round(sum(losses) / len(losses), 5), "dev": measured,
                      "seconds": round(time.time() - started, 1)}
            losses = []
            records.append(record)
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
    where = torch.cuda.get_device_name(0) if device.startswith("cuda") else device
    training = {"recipe": values, "step": best["step"], "steps_run": step, "dev_localisation": best["dev"],
                "device": where, "input": "boundary pairs (coherence_metric.scoring.transition_pass.boundary_pairs)"}
    save_checkpoint(model, work / "checkpoint", tokenizer=tokenizer, flavour="delta", delta_dtype=torch.bfloat16,
                    training=training, overwrite=True)
    return {"best_step": best["step"], "dev": best["dev"], "steps_run": step, "records": records}


__all__ = ["train_transitions"]
