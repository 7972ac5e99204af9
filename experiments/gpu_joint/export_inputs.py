"""Pack what a GPU machine needs to train the joint recipe longer, within the device tool's 64 MiB transfer (issue 41).

The device machine has PyTorch and transformers but no corpora, no installed backbone and no route to the Hub. This
writes, under ``--out`` (an ignored folder that the device call carries):

- ``documents.json.gz``: the sampled, decontaminated train documents (``--train-documents`` per corpus, each cut to its
  first ``--max-sentences`` sentences) and dev documents of every corpus, exactly as ``sample_documents`` picks them;
- ``dev_data.pkl``: the dev ruler of ``dev_report`` (human_dev's dev-select half, synthetic dev, the order and
  truncation check texts), made here so the device never reads human_dev's files;
- ``backbone/``: all-MiniLM-L6-v2 with its weights in fp16 (46 MB instead of 91 MB) and ``weights_sha256.txt``, the
  sha256 of the original fp32 file, which the trained checkpoints record (their frozen embeddings are read from that
  file when they load; fp16 rounding of a frozen matrix is far below the bf16 noise of training itself).

    python -m experiments.gpu_joint.export_inputs --out .dev/gpu
"""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import shutil
from pathlib import Path
from typing import Dict, List, Optional

from coherence_metric.checkpoint_config import sha256_of_file
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


def export_backbone(out: Path) -> str:
    """The backbone in fp16 under ``out/backbone``; returns the original weights' sha256."""
    import torch
    from safetensors.torch import load_file, save_file

    folder = backbone_folder(BACKBONE)
    target = out / "backbone"
    target.mkdir(parents=True, exist_ok=True)
    for name in BACKBONE_FILES:
        shutil.copyfile(folder / name, target / name)
    weights = load_file(str(folder / "model.safetensors"))
    save_file({name: tensor.to(torch.float16) for name, tensor in weights.items()}, str(target / "model.safetensors"),
              metadata={"format": "pt"})
    digest = sha256_of_file(folder / "model.safetensors")
    (target / "weights_sha256.txt").write_text(digest + "\n", encoding="utf-8")
    return digest


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--train-documents", type=int, default=5000, help="per corpus")
    parser.add_argument("--max-sentences", type=int, default=40, help="each document cut to its first N sentences")
    parser.add_argument("--corpora", default=None,
                        help="comma-separated corpora to pack (default: all but the WSJ sample; leaving Wikipedia "
                             "out saves 6 MB of the transfer)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    counts = export_documents(args.out, args.train_documents, args.max_sentences,
                              args.corpora.split(",") if args.corpora else None)
    with open(args.out / "dev_data.pkl", "wb") as handle:  # read back only by train_variants, in the same workflow
        pickle.dump(load_dev_data(), handle)
    digest = export_backbone(args.out)
    print(json.dumps({"train_documents": counts, "backbone_sha256": digest}))


if __name__ == "__main__":
    main()
