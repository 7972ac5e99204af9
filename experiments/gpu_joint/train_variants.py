"""Train variants of the joint recipe side by side on one GPU and keep the best snapshots by dev (issue 41).

Runs on the device machine over the inputs of :mod:`experiments.gpu_joint.export_inputs` (no corpora, backbone or
human_dev files there). Each variant is ``training/configs/cpu-minilm-joint.yaml`` plus dotted overrides, trained by
the project's own objective and loop in its own process. At every evaluation the model is also scored on the dev ruler
of ``dev_report`` (human_dev's dev-select half, synthetic dev, order and truncation checks) and saved as a snapshot.
At the end the chosen snapshots (see :func:`choose`) are packed for the trip back; the full dev table of every
snapshot comes back too. Nothing here reads a test set.

    python -m experiments.gpu_joint.train_variants --inputs .dev/gpu --work /tmp/gpu-runs --out "$OUT" \\
        --deadline 420
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import pickle
import tarfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "training" / "configs" / "cpu-minilm-joint.yaml"
COMMON: Dict[str, Any] = {
    "model.device": "cuda", "objective.batch_size": 32, "objective.tokens_per_pass": 16384,
    "loop.max_steps": 1200, "loop.eval_every": 200, "loop.save_every": 100000, "loop.log_every": 50,
    "loop.lr": 4.0e-5, "loop.warmup_steps": 100, "data.train_documents": 5000, "data.dev_documents": 30,
}
WIKI = ["bbc", "reuters", "lee", "abc", "mctest", "tales", "wiki"]
VARIANTS: Dict[str, Dict[str, Any]] = {
    "long": {},
    "long-wiki": {"data.corpora": WIKI},
    "long-wiki-short": {"data.corpora": WIKI, "data.long_share": 0.1, "objective.own_ranking_weight": 0.5},
}
SPLIT_BYTES = 15 * 1024 * 1024


def package_from_checkout() -> None:
    """Make ``coherence_metric.training`` / ``.research`` / ``.benchmarks`` importable from a checkout that was never
    installed (the device machine): setup.py maps those top-level folders inside the package."""
    import coherence_metric

    try:
        import coherence_metric.training  # noqa: F401
    except ImportError:
        coherence_metric.__path__.append(str(ROOT))


package_from_checkout()  # at import, so that every spawned variant process gets it too


class Prefetcher:
    """Batches made ahead by worker processes, in order: an example costs ~3 ms of Python, which would leave the GPU
    idle half of each step. Batches are addressed by position (the loop's contract), so the workers make exactly the
    batches ``objective.batch`` would."""

    def __init__(self, train: List[Any], data: Any, section: Any, workers: int, start: int = 0,
                 ahead: int = 24) -> None:
        context = multiprocessing.get_context("fork")  # before CUDA is initialised in this process
        self.pool = context.Pool(workers, initializer=_init_batch_worker, initargs=(train, data, section))
        self.position, self.ahead = start, ahead
        # A bounded window of submitted positions: Pool.imap over an endless iterator would queue tasks forever
        # from a feeder thread that holds the GIL, which once made every step ten times slower.
        self.pending = {position: self.pool.apply_async(_make_batch, (position,))
                        for position in range(start, start + ahead)}

    def batch(self, position: int) -> Any:
        if position != self.position:
            raise RuntimeError(f"prefetcher expected position {self.position}, got {position}")
        self.position += 1
        self.pending[position + self.ahead] = self.pool.apply_async(_make_batch, (position + self.ahead,))
        return self.pending.pop(position).get()

    def close(self) -> None:
        self.pool.terminate()


_WORKER: Dict[str, Any] = {}


def _init_batch_worker(train: List[Any], data: Any, section: Any) -> None:
    from coherence_metric.training.pointwise.objective import PointwiseObjective

    maker = PointwiseObjective.__new__(PointwiseObjective)  # only what batch() reads: no model in the workers
    maker.train, maker.data, maker.section = train, data, section
    _WORKER["maker"] = maker


def _make_batch(position: int) -> Any:
    return _WORKER["maker"].batch(position)


class Deadline(Exception):
    """Raised inside the loop when the time given to training is spent (snapshots so far are kept)."""


def dev_numbers(dev_data: Any, model: Any, tokenizer: Any, max_length: int) -> Dict[str, Any]:
    """``dev_report``'s numbers for an in-memory model (whole-text scores only: no local term)."""
    from coherence_metric.training.evaluation import score_documents
    from coherence_metric.training.pointwise.dev_report import dev_documents, evaluate_option

    whole = {key: score_documents(model, tokenizer, texts, max_length, batch_size=128)
             for key, texts in dev_documents(dev_data).items()}
    model.train()
    result = evaluate_option(dev_data, whole, {key: [] for key in whole}, 0.0)
    result.pop("credits")
    return result


def train_variant(name: str, inputs: Path, work: Path, deadline: float, extra: Dict[str, Any], workers: int) -> None:
    """Train one variant; writes ``work/name/step-N`` snapshots and ``work/name/dev.jsonl``."""
    import torch

    from coherence_metric.research.documents import Document
    from coherence_metric.training.loop import ObjectiveLoop
    from coherence_metric.training.pointwise import recipe as recipe_module
    from coherence_metric.training.pointwise.objective import PointwiseObjective

    torch.set_num_threads(2)
    with gzip.open(inputs / "documents.json.gz", "rt", encoding="utf-8") as handle:
        packed = json.load(handle)
    with open(inputs / "dev_data.pkl", "rb") as binary:  # written by export_inputs in this same workflow
        dev_data = pickle.load(binary)
    overrides = {**COMMON, **VARIANTS[name], **extra, "model.backbone": str(inputs / "backbone"),
                 "loop.output_dir": str(work / name / "loop")}
    recipe = recipe_module.load_pointwise_recipe(RECIPE, overrides)

    def documents(split: str) -> List[Document]:
        return [Document(item["id"], item["source"], item["sentences"], item["title"]) for item in packed[split]
                if item["source"] in recipe.data.corpora]

    train = documents("train")
    prefetcher = Prefetcher(train, recipe.data, recipe.objective, workers) if workers else None
    model, tokenizer = recipe_module.build_model(recipe)
    digest = (inputs / "backbone" / "weights_sha256.txt").read_text(encoding="utf-8").strip()
    model.backbone_spec = replace(model.backbone_spec, name_or_path="sentence-transformers/all-MiniLM-L6-v2",
                                  weights_sha256=digest)
    info = {"objective": "pointwise", "family": "pointwise", "seed": recipe.loop.seed, "recipe": asdict(recipe),
            "variant": name, "trained_on": "gpu"}
    objective = PointwiseObjective(model, tokenizer, train, documents("dev"), recipe.data,
                                   recipe.objective, recipe.model.max_length, recipe.loop.lr, info)
    loop = ObjectiveLoop(objective, recipe.loop, recipe=asdict(recipe), progress=False)
    evaluate, batch = objective.evaluate, (prefetcher.batch if prefetcher else objective.batch)
    started = time.time()

    def evaluate_and_snapshot() -> Dict[str, float]:
        result = evaluate()
        numbers = dev_numbers(dev_data, model, tokenizer, recipe.model.max_length)
        folder = work / name / f"step-{loop.step}"
        objective.save(folder)
        record = {"variant": name, "step": loop.step, "seconds": round(time.time() - started, 1),
                  "synthetic_select_joint": result["select_joint"], **numbers}
        with open(work / name / "dev.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        return result

    def batch_before_deadline(position: int) -> Any:
        if time.time() > deadline:
            raise Deadline(f"{name}: deadline at step {loop.step}")
        return batch(position)

    objective.evaluate = evaluate_and_snapshot
    objective.batch = batch_before_deadline
    try:
        loop.run()
    except Deadline as stop:
        print(stop, flush=True)
    finally:
        if prefetcher:
            prefetcher.close()


def choose(records: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Up to three snapshots: the best human_dev dev-select mean; the best among those whose first sentence beats the
    whole in <= 60% of dev texts with own-shuffle >= 0.75 (the ship rule's checks); the best synthetic select_joint."""
    picks: List[Dict[str, Any]] = []
    rules = [
        (lambda r: True, "human_mean"),
        (lambda r: r["first_beats_whole"] <= 0.6 and r["own_shuffle"] >= 0.75, "human_mean"),
        (lambda r: True, "synthetic_select_joint"),
    ]
    for keep, key in rules:
        candidates = [record for record in records if keep(record) and record not in picks]
        if candidates:
            picks.append(max(candidates, key=lambda record: record[key]))
    return picks


def pack(picks: List[Dict[str, Any]], work: Path, out: Path) -> None:
    """The picked snapshots in one tar.gz, split into <= 15 MiB parts (the device returns files of <= 16 MiB)."""
    archive = work / "snapshots.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        for pick in picks:
            folder = work / pick["variant"] / f"step-{pick['step']}"
            tar.add(folder, arcname=f"{pick['variant']}-step-{pick['step']}")
    data = archive.read_bytes()
    for index in range(0, len(data), SPLIT_BYTES):
        (out / f"snapshots.part{index // SPLIT_BYTES}").write_bytes(data[index:index + SPLIT_BYTES])


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--deadline", type=float, default=420.0, help="seconds of training from now, then stop")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--workers", type=int, default=3, help="batch-making processes per variant (0: none)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                        help="override for every variant, e.g. loop.max_steps=4 (a CPU rehearsal)")
    args = parser.parse_args(argv)
    extra = {key: json.loads(value) for key, value in (item.split("=", 1) for item in args.set)}
    deadline = time.time() + args.deadline
    names = args.variants.split(",")
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=train_variant,
                                 args=(name, args.inputs, args.work, deadline, extra, args.workers))
                 for name in names]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    records = []
    for name in names:
        log = args.work / name / "dev.jsonl"
        if log.is_file():
            records += [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    picks = choose(records)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dev.json").write_text(json.dumps({"records": records, "picks": picks}, indent=1), encoding="utf-8")
    with tarfile.open(args.out / "logs.tar.gz", "w:gz") as tar:
        for name in names:
            if (args.work / name / "loop" / "log.jsonl").is_file():
                tar.add(args.work / name / "loop" / "log.jsonl", arcname=f"{name}.log.jsonl")
    pack(picks, args.work, args.out)
    print(json.dumps([{key: pick[key] for key in ("variant", "step", "human_mean", "own_shuffle",
                                                   "first_beats_whole", "synthetic_select_joint")}
                      for pick in picks]))


if __name__ == "__main__":
    main()
