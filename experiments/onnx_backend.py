"""Would ONNX Runtime beat torch on this CPU? The measurement behind not shipping ``backend="onnx"`` (README, "Speed").

Exports a checkpoint's document model (backbone, pooling, head) with ``torch.onnx.export``, quantises a copy with
ONNX Runtime's dynamic int8 quantisation (weights int8, activations quantised per batch), and times the forward pass
alone on the speed suite's texts, pre-tokenised and padded into the scorer's batches, back to back and interleaved
(``--rounds`` rounds of every configuration, best and median reported): torch fp32, torch bf16 autocast, ONNX Runtime
fp32 and int8. Beside each, the max and mean |score difference| from torch fp32::

    python -m experiments.onnx_backend --model /work/main/runs/pointwise-1000/best --tokens 256 --texts 128

Needs ``pip install onnxruntime onnx`` (not a dependency of the package).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence


def export(model: Any, example: Dict[str, Any], path: Path) -> None:
    """The document model as ONNX with dynamic batch and sequence axes."""
    import torch

    class DocumentModel(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.inner(input_ids, attention_mask)

    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(DocumentModel(model).eval(), (example["input_ids"], example["attention_mask"]), str(path),
                      input_names=["input_ids", "attention_mask"], output_names=["scores"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes}, opset_version=17, dynamo=False)


def main(argv: Optional[Sequence[str]] = None) -> None:
    import numpy as np
    import onnxruntime
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from coherence_metric.benchmarks.speed import TextBuilder, news_sentences
    from coherence_metric.scorer import CoherenceScorer
    from coherence_metric.scoring.batching import plan_batches

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--texts", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    scorer = CoherenceScorer(args.model, dtype="fp32")
    texts = TextBuilder(scorer.tokenizer, news_sentences(), 0).fixed(args.tokens, args.texts)
    ids = scorer.tokenizer(texts, truncation=True, max_length=scorer.max_length)["input_ids"]
    batches = [scorer.tokenizer.pad({"input_ids": [ids[index] for index in batch]}, return_tensors="pt")
               for batch in plan_batches([len(sequence) for sequence in ids], scorer.max_tokens_per_batch,
                                         scorer.batch_size)]
    folder = Path(tempfile.mkdtemp(prefix="onnx-backend-"))
    started = time.perf_counter()
    export(scorer.model, batches[0], folder / "fp32.onnx")
    exported = time.perf_counter() - started
    quantize_dynamic(str(folder / "fp32.onnx"), str(folder / "int8.onnx"), weight_type=QuantType.QInt8)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    options.inter_op_num_threads = 1
    sessions = {name: onnxruntime.InferenceSession(str(folder / f"{name}.onnx"), options,
                                                   providers=["CPUExecutionProvider"]) for name in ("fp32", "int8")}

    def run_torch(dtype: str) -> List[float]:
        scores: List[float] = []
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=dtype == "bf16"):
            for batch in batches:
                scores += scorer.model(batch["input_ids"], batch["attention_mask"]).float().tolist()
        return scores

    def run_onnx(name: str) -> List[float]:
        scores: List[float] = []
        for batch in batches:
            feed = {"input_ids": batch["input_ids"].numpy(), "attention_mask": batch["attention_mask"].numpy()}
            scores += sessions[name].run(None, feed)[0].tolist()
        return scores

    configurations: Dict[str, Callable[[], List[float]]] = {
        "torch fp32": lambda: run_torch("fp32"), "torch bf16": lambda: run_torch("bf16"),
        "onnxruntime fp32": lambda: run_onnx("fp32"), "onnxruntime int8": lambda: run_onnx("int8"),
    }
    reference = np.array(run_torch("fp32"))
    deviation = {}
    for name, run in configurations.items():
        difference = np.abs(np.array(run()) - reference)  # also the warm-up
        deviation[name] = (float(difference.max()), float(difference.mean()))
    rates: Dict[str, List[float]] = {name: [] for name in configurations}
    for _ in range(args.rounds):
        for name, run in configurations.items():
            started = time.perf_counter()
            run()
            rates[name].append(len(texts) / (time.perf_counter() - started))
    print(f"{args.model}: {len(texts)} texts of {args.tokens} tokens, {torch.get_num_threads()} threads, "
          f"export {exported:.1f} s")
    print("| configuration | docs/s best | docs/s median | max abs score diff | mean abs score diff |")
    print("|---|---:|---:|---:|---:|")
    for name in configurations:
        print(f"| {name} | {max(rates[name]):.1f} | {statistics.median(rates[name]):.1f} | "
              f"{deviation[name][0]:.4f} | {deviation[name][1]:.4f} |")


if __name__ == "__main__":
    main()
