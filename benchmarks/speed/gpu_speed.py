"""Scoring speed of both tiers on a GPU: texts/s through ``CoherenceScorer`` at 128 / 256 / 512
tokens, batch 64 and a sweep for the fastest batch at 256 tokens, in bf16, fp16 and fp32, with peak GPU memory.

Speed depends on the architecture, not on the weights, so each tier is built from its backbone's ``config.json`` with
random weights (a device machine holds no backbone weights; the accurate tier's LoRA adapter is merged at load, so
it runs as a plain MPNet): what is timed is the scorer's whole path (tokenising, length sorting, batching, the
document pass, pooling and head), as a user's ``score`` call runs it. Texts are cut by the speed suite's
``TextBuilder`` from real news sentences. Each measurement scores enough texts for about ``--seconds`` (after a
warm-up), and the report is rewritten after every measurement, so a call cut short still returns what it measured.

Here, with the checkpoints: ``python -m coherence_metric.benchmarks.speed.gpu_speed --export .dev/gpuspeed`` (the tiers'
configs and tokenizers, no weights, and 4,000 news sentences: under 2 MiB). On the device, from the uninstalled
checkout the call carries (docs/benchmarks.md, "Speed on a GPU")::

    python3 -c 'from coherence_metric.cli.lazy import mount_checkout; mount_checkout(); \\
        from coherence_metric.benchmarks.speed.gpu_speed import main; main()' --inputs .dev/gpuspeed --out "$OUT"

Back here, the report goes to ``benchmarks/reports/gpu-speed/<device>-<date>.json``; ``make tables`` writes the docs'
table from the newest one (:func:`~..reporting.gpu_speed_markdown.render_gpu_speed_markdown`).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from coherence_metric.toolkit import (
    TOKENISE,
    BackboneSpec,
    read_checkpoint_config,
    resolve_backbone_folder,
    resolve_model,
)

from ..reporting.files import write_script_output
from ..reporting.gpu_speed_markdown import DTYPES, MAIN_BATCH, render_gpu_speed_markdown
from .cpu_speed import TextBuilder, news_sentences

#: Tier name (the alias that always names it) -> (the checkpoint it stands for, its backbone's Hub id). Reports
#: written before the ``fast`` alias call the fast tier "default"; the docs' tables label rows by checkpoint.
TIERS = {"fast": ("cm-minilm-gpu-joint-2026.11", "sentence-transformers/all-MiniLM-L6-v2"),
         "accurate": ("cm-mpnet-lora-joint-2026.11", "sentence-transformers/all-mpnet-base-v2")}
#: The backbone files a tier needs to be rebuilt with random weights.
FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")
LENGTHS = (128, 256, 512)
#: Batch sizes tried at 256 tokens for the fastest.
SWEEP = (32, 64, 128, 256, 512)
REPORT_NAME = "gpu-speed.json"
#: The host ceiling's stand-in: the tier's architecture cut to one layer this narrow, whose forward costs almost
#: nothing, so what is timed is the rest of a ``score`` call (tokenising, batching, padding, copies, the head).
CEILING_SHAPE = {"num_hidden_layers": 1, "hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 32}
COMMAND = "python -m coherence_metric.benchmarks.speed.gpu_speed"


def export(out: Path, sentences: int = 4000) -> None:
    """Write each tier's backbone config and tokenizer (no weights) and ``sentences`` news sentences to ``out``."""
    for tier, (name, _) in TIERS.items():
        folder = resolve_model(name, local_files_only=True).folder
        config = read_checkpoint_config(folder)
        backbone = resolve_backbone_folder(config.backbone, checkpoint=folder, listed=config.files)
        (out / tier).mkdir(parents=True, exist_ok=True)
        for file_name in FILES:
            if (backbone / file_name).is_file():
                shutil.copyfile(backbone / file_name, out / tier / file_name)
    write_script_output(out / "sentences.json", json.dumps(news_sentences()[:sentences]))


def build_scorer(folder: Path, device: str, dtype: str, batch_size: int, length: int,
                 shape: Optional[Dict[str, int]] = None) -> Any:
    """A scorer over a random-weight model of the tier's architecture (mean pooling, a linear head); ``shape``
    overrides the architecture's sizes (:data:`CEILING_SHAPE` for the host ceiling)."""
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    from coherence_metric import CoherenceModel, CoherenceScorer

    torch.manual_seed(0)
    config = AutoConfig.from_pretrained(str(folder), **(shape or {}))
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
    count = max(min(probe, len(texts)), min(len(texts), int(rate * seconds)))
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    scorer.score(texts[:count])
    sync()
    elapsed = time.perf_counter() - started
    peak = round(torch.cuda.max_memory_allocated() / 2 ** 20, 1) if cuda else None
    return {"texts": count, "seconds": round(elapsed, 3), "texts_per_second": round(count / elapsed, 1),
            "peak_gpu_mb": peak}


def host_ceiling(folder: Path, device: str, length: int, texts: List[str], seconds: float, probe: int,
                 repeats: int = 3) -> Dict[str, Any]:
    """Texts/s of a ``score`` call whose model costs almost nothing (:data:`CEILING_SHAPE`, fp32, batch 64), and
    the share of that call spent tokenising: the most any GPU can give through this host, whatever its speed.
    The median of ``repeats`` calls: on a shared 2-core machine one call moves by 20-30% from the next."""
    scorer = build_scorer(folder, device, "fp32", MAIN_BATCH, length, shape=CEILING_SHAPE)
    count = timed(scorer, texts, seconds, probe)["texts"]  # warms up and sizes the measured calls
    calls = []
    for _ in range(repeats):
        with scorer.profile() as stages:
            started = time.perf_counter()
            scorer.score(texts[:count])  # ends in one copy to the host, so the device is done when it returns
            elapsed = time.perf_counter() - started
        calls.append((elapsed, stages.seconds[TOKENISE]))
    elapsed, tokenising = sorted(calls)[len(calls) // 2]
    return {"texts": count, "seconds": round(elapsed, 3), "texts_per_second": round(count / elapsed, 1),
            "batch": MAIN_BATCH, "repeats": repeats, "tokenise_share": round(tokenising / elapsed, 3)}


def run(inputs: Path, out: Path, seconds: float, tiers: Sequence[str], device: str = "cuda", probe: int = 256,
        lengths: Sequence[int] = LENGTHS, sweep: Sequence[int] = SWEEP, texts_per_length: int = 8192,
        host_only: bool = False) -> Dict[str, Any]:
    """Each tier's host ceiling per length, then every (tier, length, batch, dtype) of the plan, in order;
    ``out/gpu-speed.json`` rewritten after each. On a CPU (``device="cpu"``, to rehearse the call) only fp32 is
    measured; ``host_only`` measures the host ceilings alone (what a machine without a GPU can say)."""
    import torch
    import transformers

    from coherence_metric.toolkit import cpu_description


    sentences = json.loads((inputs / "sentences.json").read_text(encoding="utf-8"))
    cuda = device.startswith("cuda")
    name = torch.cuda.get_device_name(0) if cuda else platform.processor() or "cpu"
    report: Dict[str, Any] = {"device": name, "torch": torch.__version__, "transformers": transformers.__version__,
                              "python": platform.python_version(), "command": COMMAND, "cpu": cpu_description(),
                              "cpu_threads": torch.get_num_threads(), "host_ceiling": [], "rows": []}
    middle = lengths[len(lengths) // 2]
    for tier in tiers:
        folder = inputs / tier
        tokenizer_scorer = build_scorer(folder, device, "fp32", MAIN_BATCH, max(lengths))
        builder = TextBuilder(tokenizer_scorer.tokenizer, sentences)
        count = texts_per_length if tier == "fast" else texts_per_length // 2
        texts = {length: builder.fixed(length, count) for length in lengths}
        del tokenizer_scorer
        for length in lengths:
            ceiling = {"tier": tier, "checkpoint": TIERS[tier][0], "tokens": length,
                       **host_ceiling(folder, device, length, texts[length], seconds, probe)}
            report["host_ceiling"].append(ceiling)
            print(json.dumps(ceiling), flush=True)
            write_script_output(out / REPORT_NAME, json.dumps(report, indent=1), "the report")
        dtypes = DTYPES if cuda else ("fp32",)
        plan = [] if host_only else [(length, MAIN_BATCH, dtype) for dtype in dtypes for length in lengths]
        plan += [] if host_only else [(middle, batch, dtype) for dtype in dtypes for batch in sweep
                                      if batch != MAIN_BATCH]
        for length, batch, dtype in plan:
            scorer = build_scorer(folder, device, dtype, batch, length)
            row = {"tier": tier, "checkpoint": TIERS[tier][0], "tokens": length, "batch": batch, "dtype": dtype,
                   **timed(scorer, texts[length], seconds, probe)}
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
            write_script_output(out / REPORT_NAME, json.dumps(report, indent=1), "the report")
            del scorer
            if cuda:
                torch.cuda.empty_cache()
    return report


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--export", type=Path, help="write the inputs here (on the machine with the checkpoints)")
    parser.add_argument("--inputs", type=Path, help="the exported inputs (on the device)")
    parser.add_argument("--out", type=Path, help="where gpu-speed.json goes (on the device: $OUT)")
    parser.add_argument("--seconds", type=float, default=1.0, help="about this long per measurement")
    parser.add_argument("--tiers", default="fast,accurate", help=f"comma-separated, of {', '.join(TIERS)}")
    parser.add_argument("--device", default="cuda", help="cuda (the point); cpu only to rehearse the call")
    parser.add_argument("--probe", type=int, default=256, help="texts of the sizing run")
    parser.add_argument("--host-only", action="store_true",
                        help="measure only the host ceilings (a machine without a GPU: --device cpu)")
    parser.add_argument("--table", type=Path, help="print the docs' Markdown table of this gpu-speed.json")
    args = parser.parse_args(argv)
    if args.export:
        export(args.export)
    elif args.table:
        print(render_gpu_speed_markdown(json.loads(args.table.read_text(encoding="utf-8"))), end="")
    elif args.inputs and args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        run(args.inputs, args.out, args.seconds, args.tiers.split(","), args.device, args.probe,
            host_only=args.host_only)
    else:
        parser.error("give --export DIR, --table REPORT, or --inputs DIR and --out DIR")


if __name__ == "__main__":
    main()
