"""Average the weights of checkpoints fine-tuned from one start (a "model soup"), written as a delta checkpoint.

Two runs of the boundary recipe from the 0.4.0 default's weights (0.7.0's distillation weight 0.5 and the 2.0 run)
land near each other in weight space; their average costs no training and keeps the architecture, so its speed and
size are the default's. For delta checkpoints, which tensors are stored (the backbone's encoder layers, in bf16, and
the head) follows the first checkpoint's delta file, so the result has the same layout as the shipped defaults; any
other flavour is written as a full checkpoint. Read it on dev with
``dev_report``; nothing here reads a test set.

    python -m experiments.weight_average cm-minilm-joint-boundary-2026.11 runs/joint-distil/final \\
        --out runs/soup --weights 0.5,0.5
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import List, Optional

import torch
from safetensors import safe_open

from coherence_metric.models.checkpoint import load_checkpoint, save_checkpoint
from coherence_metric.models.registry import resolve_model


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+", help="packaged names or folders, all trained from one start")
    parser.add_argument("--weights", default=None, help="comma-separated, one per checkpoint (default: equal)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    folders = [resolve_model(name).folder for name in args.checkpoints]
    weights = ([float(w) for w in args.weights.split(",")] if args.weights
               else [1.0 / len(folders)] * len(folders))
    if len(weights) != len(folders) or abs(sum(weights) - 1.0) > 1e-6:
        raise SystemExit("--weights: one per checkpoint, summing to 1")
    loaded = [load_checkpoint(folder) for folder in folders]
    starts = {json.dumps(item.config.training.get("recipe", {}).get("model", {}).get("init_checkpoint"))
              for item in loaded}
    states = [item.model.state_dict() for item in loaded]
    averaged = {key: sum(w * state[key].float() for w, state in zip(weights, states)) for key in states[0]}
    model = loaded[0].model
    model.load_state_dict(averaged)
    flavour = "delta" if loaded[0].config.flavour == "delta" else "full"
    stored = {name for name, _ in model.backbone.named_parameters()}
    if flavour == "delta":
        with safe_open(str(folders[0] / "backbone_delta.safetensors"), "pt") as delta:
            stored = set(delta.keys())
    for name, parameter in model.backbone.named_parameters():
        parameter.requires_grad_(name in stored)
    training = {"family": "weight_average",
                "weight_average": {"checkpoints": [str(name) for name in args.checkpoints], "weights": weights,
                                   "fingerprints": [item.config.fingerprint() for item in loaded],
                                   "starts": sorted(starts)}}
    save_checkpoint(model, args.out, tokenizer=loaded[0].tokenizer, flavour=flavour,
                    delta_dtype=torch.bfloat16 if flavour == "delta" else None, training=training, overwrite=True)
    print(f"wrote {args.out}: {len(stored)} backbone tensors, weights {weights}")


if __name__ == "__main__":
    main()
