"""Scoring speed of both tiers on a GPU (issue 52 item 1, issue 56 item 4): texts/s through ``CoherenceScorer`` at
128 / 256 / 512 tokens, batch 64 and a sweep for the fastest batch, in bf16, fp16 and fp32, with peak GPU memory.

Speed depends on the architecture, not on the weights, so each tier is built from its backbone's ``config.json`` with
random weights (the device holds no backbone weights; a LoRA adapter is merged at load, so the accurate tier runs as
a plain MPNet): what is timed is the scorer's whole path (tokenising, length sorting, batching, the document pass,
pooling and head), as a user's ``score`` call runs it. Texts are cut by the speed suite's ``TextBuilder`` from real
news sentences. Each measurement scores enough texts for about ``--seconds`` (after a warm-up), and the results are
written after every measurement, so a run cut short still returns what it measured.

    python -m experiments.gpu_joint.gpu_speed --export .dev/gpuspeed               # here: configs, tokenizers, texts
    python3 -m experiments.gpu_joint.gpu_speed --inputs .dev/gpuspeed --out "$OUT"  # on the device
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from experiments.gpu_joint.train_variants import package_from_checkout

package_from_checkout()

#: Tier name -> (checkpoint it stands for, backbone Hub id).
TIERS = {"default": ("cm-minilm-gpu-joint-2026.11", "sentence-transformers/all-MiniLM-L6-v2"),
         "accurate": ("cm-mpnet-lora-joint-2026.11", "sentence-transformers/all-mpnet-base-v2")}
FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")
LENGTHS = (128, 256, 512)
DTYPES = ("bf16", "fp16", "fp32")
SWEEP = (32, 64, 128, 256, 512)


def export(out: Path, sentences: int = 4000) -> None:
    """Write each tier's backbone config and tokenizer (no weights) and ``sentences`` news sentences to ``out``."""
    from coherence_metric.benchmarks.speed import news_sentences
    from coherence_metric.models.backbones import resolve_backbone_folder
    from coherence_metric.models.checkpoint_config import read_checkpoint_config
    from coherence_metric.models.registry import resolve_model

    for tier, (name, _) in TIERS.items():
        folder = resolve_model(name, local_files_only=True).folder
        config = read_checkpoint_config(folder)
        backbone = resolve_backbone_folder(config.backbone, checkpoint=folder, listed=config.files)
        (out / tier).mkdir(parents=True, exist_ok=True)
        for file_name in FILES:
            if (backbone / file_name).is_file():
                shutil.copyfile(backbone / file_name, out / tier / file_name)
    (out / "sentences.json").write_text(json.dumps(news_sentences()[:sentences]), encoding="utf-8")


def build_scorer(folder: Path, device: str, dtype: str, batch_size: int, length: int) -> Any:
    """A scorer over a random-weight model of the tier's architecture (mean pooling, a linear head)."""
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    from coherence_metric import CoherenceScorer
    from coherence_metric.models.checkpoint_config import BackboneSpec
    from coherence_metric.models.model import CoherenceModel

    torch.manual_seed(0)
    config = AutoConfig.from_pretrained(str(folder))
    backbone = AutoModel.from_config(config)
    spec = BackboneSpec(name_or_path=str(folder), model_type=str(config.model_type))
    model = CoherenceModel(backbone, "mean", spec, length)
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    return CoherenceScorer.from_model(model.to(device), tokenizer, label=folder.name, device=device, dtype=dtype,
                                      batch_size=batch_size, max_length=length,
                                      max_tokens_per_batch=batch_size * length)


def timed(scorer: Any, texts: List[str], seconds: float, probe: int = 256) -> Dict[str, Any]:
    """Texts/s of ``scorer.score`` on enough of ``texts`` for about ``seconds`` (a ``probe``-text run sizes it)."""
    import torch

    cuda = str(scorer.device).startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    scorer.score(texts[:probe])
    sync()
    started = time.perf_counter()
    scorer.score(texts[:probe])
    sync()
    rate = probe / (time.perf_counter() - started)
    count = max(probe, min(len(texts), int(rate * seconds)))
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    scorer.score(texts[:count])
    sync()
    elapsed = time.perf_counter() - started
    peak = round(torch.cuda.max_memory_allocated() / 2 ** 20, 1) if cuda else None
    return {"texts": count, "seconds": round(elapsed, 3), "texts_per_second": round(count / elapsed, 1),
            "peak_gpu_mb": peak}


def run(inputs: Path, out: Path, seconds: float, tiers: List[str], device: str = "cuda", probe: int = 256) -> None:
    """Every (tier, length, batch, dtype) of the plan, in order; ``gpu-speed.json`` rewritten after each."""
    import torch
    import transformers

    from coherence_metric.benchmarks.speed import TextBuilder

    sentences = json.loads((inputs / "sentences.json").read_text(encoding="utf-8"))
    name = torch.cuda.get_device_name(0) if device.startswith("cuda") else platform.processor() or "cpu"
    report: Dict[str, Any] = {"device": name, "torch": torch.__version__,
                              "transformers": transformers.__version__, "python": platform.python_version(),
                              "command": "python3 -m experiments.gpu_joint.gpu_speed", "rows": []}
    for tier in tiers:
        folder = inputs / tier
        tokenizer_scorer = build_scorer(folder, device, "fp32", 64, 512)
        builder = TextBuilder(tokenizer_scorer.tokenizer, sentences)
        texts = {length: builder.fixed(length, 8192 if tier == "default" else 4096) for length in LENGTHS}
        del tokenizer_scorer
        dtypes = DTYPES if device.startswith("cuda") else ("fp32",)
        plan = [(length, 64, dtype) for dtype in dtypes for length in LENGTHS]
        plan += [(256, batch, dtype) for dtype in dtypes for batch in SWEEP if batch != 64]
        for length, batch, dtype in plan:
            scorer = build_scorer(folder, device, dtype, batch, length)
            row = {"tier": tier, "checkpoint": TIERS[tier][0], "tokens": length, "batch": batch, "dtype": dtype,
                   **timed(scorer, texts[length], seconds, probe)}
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
            (out / "gpu-speed.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
            del scorer
            torch.cuda.empty_cache()


def table(report: Dict[str, Any]) -> str:
    """The docs' Markdown table of a report: texts/s per tier, length and dtype at batch 64, and the fastest batch at
    256 tokens (peak GPU memory beside it)."""
    rows = report["rows"]
    lines = [f"| {report['device']}, texts/s | tokens | bf16, batch 64 | fp16, batch 64 | fp32, batch 64 |"
             " fastest at 256 tokens (batch, dtype) | peak GPU memory, batch 64 bf16 |",
             "|---|---:|---:|---:|---:|---|---:|"]
    for tier in dict.fromkeys(row["tier"] for row in rows):
        for length in LENGTHS:
            at = {row["dtype"]: row for row in rows
                  if row["tier"] == tier and row["tokens"] == length and row["batch"] == 64}
            fastest = ""
            if length == 256:
                best = max((row for row in rows if row["tier"] == tier and row["tokens"] == 256),
                           key=lambda row: row["texts_per_second"])
                fastest = f"{best['texts_per_second']:,.0f} ({best['batch']}, {best['dtype']})"
            cells = [f"{at[dtype]['texts_per_second']:,.0f}" if dtype in at else "" for dtype in DTYPES]
            memory = f"{at['bf16']['peak_gpu_mb']:,.0f} MiB" if "bf16" in at else ""
            lines.append(f"| {tier} (`{TIERS[tier][0]}`) | {length} | "
                         + " | ".join(cells) + f" | {fastest} | {memory} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", type=Path, help="write the inputs here (on the machine with the checkpoints)")
    parser.add_argument("--inputs", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--seconds", type=float, default=1.0, help="about this long per measurement")
    parser.add_argument("--tiers", default="default,accurate")
    parser.add_argument("--device", default="cuda", help="cuda (the point); cpu only to rehearse the script")
    parser.add_argument("--probe", type=int, default=256, help="texts of the sizing run")
    parser.add_argument("--table", type=Path, help="print the docs' Markdown table of this gpu-speed.json")
    args = parser.parse_args(argv)
    if args.export:
        export(args.export)
        return
    if args.table:
        print(table(json.loads(args.table.read_text(encoding="utf-8"))))
        return
    random.seed(0)
    args.out.mkdir(parents=True, exist_ok=True)
    run(args.inputs, args.out, args.seconds, args.tiers.split(","), args.device, args.probe)


if __name__ == "__main__":
    main()
