"""Pack what a GPU machine needs to train the joint recipe longer, within the device tool's 64 MiB transfer (issue 41).

The device machine has PyTorch and transformers but no corpora, no installed backbone and no route to the Hub. This
writes, under ``--out`` (an ignored folder that the device call carries):

- ``documents.json.gz``: the sampled, decontaminated train documents (``--train-documents`` per corpus, each cut to its
  first ``--max-sentences`` sentences) and dev documents of every corpus, exactly as ``sample_documents`` picks them;
- ``dev_data.pkl``: the dev ruler of ``dev_report`` (human_dev's dev-select half, synthetic dev, the order and
  truncation check texts), made here so the device never reads human_dev's files;
- ``backbone/``: the backbone (all-MiniLM-L6-v2 by default) with its weights in fp16 (46 MB instead of 91 MB) and
  ``weights_sha256.txt``, the sha256 of the original fp32 file, which the trained checkpoints record (their frozen
  weights are read from that file when they load; fp16 rounding of a frozen matrix is far below the bf16 noise of
  training itself).

A backbone whose fp16 weights exceed one call's transfer (all-mpnet-base-v2: 219 MB) is split with ``--split-mb``:
its weights go to ``<out>-part1/``, ``<out>-part2/``, ... (one folder carried per call on one warm machine, each
copied to the same place there) and the device joins them with ``cat`` before training; ``backbone/parts.json``
holds the parts' sha256 and the joined file's, which the device checks.

    python -m experiments.gpu_joint.export_inputs --out .dev/gpu
    python -m experiments.gpu_joint.export_inputs --out .dev/gpum --backbone sentence-transformers/all-mpnet-base-v2 \
        --backbone-folder /path/to/all-mpnet-base-v2 --split-mb 56
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import pickle
import shutil
from pathlib import Path
from typing import Dict, List, Optional

from coherence_metric.models.checkpoint_config import sha256_of_file
from coherence_metric.research.corpora import CORPORA
from coherence_metric.training.model_setup import backbone_folder
from coherence_metric.training.pointwise.dev_report import DEV_RECIPE, load_dev_data
from coherence_metric.training.pointwise.recipe import load_pointwise_recipe
from coherence_metric.training.pointwise.texts import sample_documents

BACKBONE = "sentence-transformers/all-MiniLM-L6-v2"
BACKBONE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def export_documents(out: Path, train_documents: int, max_sentences: int,
                     corpora: Optional[List[str]] = None) -> Dict[str, int]:
    """Train and dev documents of ``corpora`` (default: every corpus but the held-out-only WSJ sample); returns counts
    per corpus."""
    allowed = [name for name, corpus in CORPORA.items() if not corpus.held_out_only]
    corpora = allowed if corpora is None else [name for name in corpora if name in allowed]
    recipe = load_pointwise_recipe(DEV_RECIPE, {"data.corpora": corpora, "data.train_documents": train_documents})
    packed: Dict[str, List[Dict[str, object]]] = {}
    for split in ("train", "dev"):
        packed[split] = [{"id": document.id, "source": document.source, "title": document.title,
                          "sentences": list(document.sentences[:max_sentences])}
                         for document in sample_documents(recipe.data, split)]
    with gzip.open(out / "documents.json.gz", "wt", encoding="utf-8") as handle:
        json.dump(packed, handle)
    counts: Dict[str, int] = {}
    for document in packed["train"]:
        counts[str(document["source"])] = counts.get(str(document["source"]), 0) + 1
    return counts


def export_backbone(out: Path, name: str = BACKBONE, folder: Optional[Path] = None, split_mb: float = 0.0) -> str:
    """The backbone in fp16 under ``out/backbone`` (its weights split over ``<out>-partN/`` folders when
    ``split_mb`` is set); returns the original weights' sha256."""
    import torch
    from safetensors.torch import load_file, save_file

    folder = folder or backbone_folder(name)
    target = out / "backbone"
    target.mkdir(parents=True, exist_ok=True)
    for file_name in BACKBONE_FILES:
        shutil.copyfile(folder / file_name, target / file_name)
    weights = load_file(str(folder / "model.safetensors"))
    # The pooler is never read (pooling reads the hidden states): left out of the transfer.
    half = {key: tensor.to(torch.float16) for key, tensor in weights.items() if not key.startswith("pooler.")}
    save_file(half, str(target / "model.safetensors"), metadata={"format": "pt"})
    digest = sha256_of_file(folder / "model.safetensors")
    (target / "weights_sha256.txt").write_text(digest + "\n", encoding="utf-8")
    (target / "backbone_name.txt").write_text(name + "\n", encoding="utf-8")
    if split_mb > 0:
        split_weights(target / "model.safetensors", out, int(split_mb * 1024 * 1024))
    return digest


def split_weights(weights: Path, out: Path, part_bytes: int) -> List[Path]:
    """Move ``weights`` into parts of at most ``part_bytes``, each in its own folder ``<out>-partN``; the folder
    beside ``weights`` keeps ``parts.json`` (the parts' names and sha256, and the whole file's)."""
    data = weights.read_bytes()
    parts, records = [], []
    for index, start in enumerate(range(0, len(data), part_bytes), start=1):
        folder = out.parent / f"{out.name}-part{index}"
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f"model.safetensors.part{index}"
        part.write_bytes(data[start:start + part_bytes])
        parts.append(part)
        records.append({"name": part.name, "sha256": hashlib.sha256(data[start:start + part_bytes]).hexdigest()})
    (weights.parent / "parts.json").write_text(json.dumps({"whole_sha256": hashlib.sha256(data).hexdigest(),
                                                          "parts": records}, indent=1), encoding="utf-8")
    weights.unlink()
    return parts


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--train-documents", type=int, default=5000, help="per corpus")
    parser.add_argument("--max-sentences", type=int, default=40, help="each document cut to its first N sentences")
    parser.add_argument("--backbone", default=BACKBONE, help="the backbone's Hub id (recorded in checkpoints)")
    parser.add_argument("--backbone-folder", type=Path, default=None,
                        help="a local copy of it (default: found as the package finds backbones)")
    parser.add_argument("--split-mb", type=float, default=0.0,
                        help="split the fp16 weights into parts of at most this many MiB (0: one file)")
    parser.add_argument("--corpora", default=None,
                        help="comma-separated corpora to pack (default: all but the WSJ sample; leaving Wikipedia "
                             "out saves 6 MB of the transfer)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    counts = export_documents(args.out, args.train_documents, args.max_sentences,
                              args.corpora.split(",") if args.corpora else None)
    with open(args.out / "dev_data.pkl", "wb") as handle:  # read back only by train_variants, in the same workflow
        pickle.dump(load_dev_data(), handle)
    digest = export_backbone(args.out, args.backbone, args.backbone_folder, args.split_mb)
    print(json.dumps({"train_documents": counts, "backbone_sha256": digest}))


if __name__ == "__main__":
    main()
