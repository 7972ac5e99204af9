"""Pack what a GPU machine needs to train the transition model, within the device tool's 64 MiB transfer (issue 38).

Writes under ``--out`` (an ignored folder the device call carries): ``documents.json.gz``, the indexed training
documents of ``training/configs/cpu-minilm-transitions.yaml`` (sentence table, rows, INSteD-rule intruders, found
here where the corpora are), ``dev_sets.json``, the localisation recipe on the news corpora's *dev* documents (the
selection ruler; no test document leaves this machine), and ``backbone/``, all-MiniLM-L6-v2 in fp16 with the sha256 of
the original weights (:func:`experiments.gpu_joint.export_inputs.export_backbone`).

    python -m experiments.gpu_transitions.export --out .dev/gpu-tm --train-documents 1500

``--continue-from CHECKPOINT`` packs a trained transition model instead of the pretrained backbone, to train it on
(``train.py --init-head``): its layers in fp16 in ``backbone/model.safetensors`` (the frozen embeddings are the
backbone's, so the recorded sha256 stays the original's) and its head as ``head.safetensors``.

    python -m experiments.gpu_transitions.export --out .dev/gpu-tm2 --train-documents 1500 \
        --continue-from coherence_metric/transition_models/tm-minilm-2026.11
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
from pathlib import Path
from typing import List, Optional

from coherence_metric.training.config import read_recipe_mapping
from coherence_metric.training.transition_model.data import index_documents
from coherence_metric.training.transition_model.recipe import DevLocalisation, recipe_from_mapping, training_documents

from ..gpu_joint.export_inputs import export_backbone

RECIPE = Path(__file__).resolve().parents[2] / "training" / "configs" / "cpu-minilm-transitions.yaml"


def pack_trained(checkpoint: Path, out: Path) -> None:
    """A trained model's backbone tensors (fp16) over the exported backbone's, and its head file beside them."""
    import shutil

    import torch
    from safetensors.torch import save_file

    from coherence_metric.scoring.transition_pass import TransitionModel

    model = TransitionModel(checkpoint).model
    tensors = {name: tensor.detach().to(torch.float16).contiguous() for name, tensor in
               model.backbone.state_dict().items()}
    save_file(tensors, str(out / "backbone" / "model.safetensors"), metadata={"format": "pt"})
    shutil.copyfile(checkpoint / "head.safetensors", out / "head.safetensors")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--train-documents", type=int, default=1500, help="per corpus")
    parser.add_argument("--continue-from", type=Path, default=None, help="a trained transition model checkpoint")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    recipe = recipe_from_mapping(read_recipe_mapping(RECIPE, {"data.train_documents": args.train_documents}))
    documents = index_documents(training_documents(recipe.data))
    with gzip.open(args.out / "documents.json.gz", "wt", encoding="utf-8") as handle:
        json.dump({"recipe": dataclasses.asdict(recipe), **dataclasses.asdict(documents)}, handle)
    dev = DevLocalisation.from_data(recipe.data)
    (args.out / "dev_sets.json").write_text(json.dumps(
        {kind: [dataclasses.asdict(item) for item in items] for kind, items in dev.sets.items()}), encoding="utf-8")
    digest = export_backbone(args.out)
    if args.continue_from is not None:
        pack_trained(args.continue_from, args.out)
    print(json.dumps({"documents": len(documents.rows), "sentences": len(documents.sentences),
                      "backbone_sha256": digest}))


if __name__ == "__main__":
    main()
