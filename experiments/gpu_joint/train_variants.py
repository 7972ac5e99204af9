"""Train variants of the joint recipe one after another on one GPU and keep the best snapshots by dev (issue 41).

Runs on the device machine over the inputs of :mod:`experiments.gpu_joint.export_inputs` (no corpora, backbone or
human_dev files there). Each variant is ``training/configs/cpu-minilm-joint.yaml`` plus dotted overrides, trained by
the project's own objective and loop in its own process, with an equal share of ``--deadline``; its step count is
fitted to that share after timing a few steps (``--fixed-steps`` keeps ``loop.max_steps``). At every evaluation the
model is also scored on the dev ruler of ``dev_report`` (human_dev's dev-select half, synthetic dev, order and
truncation checks) and saved as a snapshot. At the end the chosen snapshots (see :func:`choose`) are packed for the
trip back; the full dev table of every snapshot comes back too. Nothing here reads a test set.

    python -m experiments.gpu_joint.train_variants --inputs .dev/gpu --work /tmp/gpu-runs --out "$OUT" \\
        --deadline 420
    python -m experiments.gpu_joint.train_variants --inputs .dev/gpu --work /tmp/gpu-runs --out "$OUT" \\
        --deadline 400 --variants long --workers 12 --fixed-steps --set loop.max_steps=3000 --set loop.eval_every=500

With ``--recipe`` a GPU recipe is trained as written (no :data:`COMMON` scale overrides), e.g. the accurate tier's
``training/configs/gpu-mpnet-lora-joint.yaml`` (issue 52): ``--variants as-written`` or a name of
:data:`VARIANTS`. Each snapshot's whole-text scores of every dev text come back too (``scores-STEP.json.gz``), so a dev
check added later is computed on the CPU from them without the GPU.
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
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "training" / "configs" / "cpu-minilm-joint.yaml"
COMMON: Dict[str, Any] = {
    # tokens_per_pass None: a step's texts go through in one padded pass (a GPU's memory holds it); bucketed passes
    # made a step about 30 passes of tiny kernels, which left the GPU idle (lease of 2026-11-26)
    "model.device": "cuda", "objective.batch_size": 32, "objective.tokens_per_pass": None,
    "loop.max_steps": 3000, "loop.eval_every": 200, "loop.save_every": 100000, "loop.log_every": 50,
    "loop.lr": 4.0e-5, "loop.warmup_steps": 100, "data.train_documents": 5000, "data.dev_documents": 30,
}
WIKI = ["bbc", "reuters", "lee", "abc", "mctest", "tales", "wiki"]
VARIANTS: Dict[str, Dict[str, Any]] = {
    "long": {},
    "long-wiki": {"data.corpora": WIKI},
    "long-wiki-short": {"data.corpora": WIKI, "data.long_share": 0.1, "objective.own_ranking_weight": 0.5},
    "as-written": {},
}
SPLIT_BYTES = 15 * 1024 * 1024
#: The backbone of inputs exported before ``backbone_name.txt`` was written.
BACKBONE = "sentence-transformers/all-MiniLM-L6-v2"
#: Steps skipped before timing: the first ones wait for the batch-making workers to fill their queue (on the lease of
#: 2026-11-26 steps 1-21 took 0.32 s each, the steady rate was 0.11 s, so the run was fitted three times too short).
TIMING_FROM = 40
#: Steps timed before the step count is fitted to the deadline.
TIMED_STEPS = 20
#: Evaluations in a fitted run (the last at its final step).
FITTED_EVALUATIONS = 5


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


def dev_numbers(dev_data: Any, model: Any, tokenizer: Any, max_length: int
                ) -> Tuple[Dict[str, Any], Dict[str, List[float]]]:
    """``dev_report``'s numbers for an in-memory model (whole-text scores only: no local term), and the scores."""
    from coherence_metric.training.evaluation import score_documents
    from coherence_metric.training.pointwise.dev_report import dev_documents, evaluate_option

    whole = {key: score_documents(model, tokenizer, texts, max_length, batch_size=128)
             for key, texts in dev_documents(dev_data).items()}
    model.train()
    result = evaluate_option(dev_data, whole, {key: [] for key in whole}, 0.0)
    result.pop("credits")
    return result, whole


def fitted_steps(position: int, seconds_per_step: float, seconds_left: float, seconds_per_evaluation: float,
                 cap: int) -> int:
    """The step count that ends, with :data:`FITTED_EVALUATIONS` evaluations and a tenth of the time spare, before
    the deadline: the linear schedule then reaches its final rate instead of being cut off mid-way."""
    spare = 0.1 * seconds_left + FITTED_EVALUATIONS * seconds_per_evaluation
    return max(position + 1, min(cap, position + int((seconds_left - spare) / max(seconds_per_step, 1e-6))))


def train_variant(name: str, inputs: Path, work: Path, deadline: float, extra: Dict[str, Any], workers: int,
                  fit_steps: bool = True, recipe_path: Optional[Path] = None) -> None:
    """Train one variant; writes ``work/name/step-N`` snapshots and ``work/name/dev.jsonl``. With ``fit_steps`` the
    recipe's ``loop.max_steps`` is a cap: after :data:`TIMED_STEPS` timed steps the run is shortened to end before
    the deadline (schedule and evaluation interval follow)."""
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
    overrides = {**(COMMON if recipe_path is None else {}), **VARIANTS[name], **extra,
                 "model.backbone": str(inputs / "backbone"), "loop.output_dir": str(work / name / "loop")}
    recipe = recipe_module.load_pointwise_recipe(recipe_path or RECIPE, overrides)

    def documents(split: str) -> List[Document]:
        return [Document(item["id"], item["source"], item["sentences"], item["title"]) for item in packed[split]
                if item["source"] in recipe.data.corpora]

    train = documents("train")
    prefetcher = Prefetcher(train, recipe.data, recipe.objective, workers) if workers else None
    model, tokenizer = recipe_module.build_model(recipe)
    digest = (inputs / "backbone" / "weights_sha256.txt").read_text(encoding="utf-8").strip()
    named = inputs / "backbone" / "backbone_name.txt"
    backbone = named.read_text(encoding="utf-8").strip() if named.is_file() else BACKBONE
    model.backbone_spec = replace(model.backbone_spec, name_or_path=backbone, weights_sha256=digest)
    info = {"objective": "pointwise", "family": "pointwise", "seed": recipe.loop.seed, "recipe": asdict(recipe),
            "variant": name, "trained_on": "gpu"}
    objective = PointwiseObjective(model, tokenizer, train, documents("dev"), recipe.data,
                                   recipe.objective, recipe.model.max_length, recipe.loop.lr, info)
    loop = ObjectiveLoop(objective, recipe.loop, recipe=asdict(recipe), progress=False)
    evaluate, batch = objective.evaluate, (prefetcher.batch if prefetcher else objective.batch)
    started = time.time()
    timing: Dict[str, float] = {}

    def evaluate_and_snapshot() -> Dict[str, float]:
        began = time.time()
        result = evaluate()
        numbers, scores = dev_numbers(dev_data, model, tokenizer, recipe.model.max_length)
        with gzip.open(work / name / f"scores-{loop.step}.json.gz", "wt", encoding="utf-8") as handle:
            json.dump(scores, handle)
        folder = work / name / f"step-{loop.step}"
        objective.save(folder)
        record = {"variant": name, "step": loop.step, "seconds": round(time.time() - started, 1),
                  "synthetic_select_joint": result["select_joint"], **numbers}
        with open(work / name / "dev.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        timing["evaluation"] = max(timing.get("evaluation", 0.0), time.time() - began)
        return result

    def batch_before_deadline(position: int) -> Any:
        now = time.time()
        if now > deadline or position >= loop.config.max_steps:
            raise Deadline(f"{name}: stopped at step {loop.step} of {loop.config.max_steps}")
        if fit_steps and position == TIMING_FROM:
            timing["first"] = now
        if fit_steps and position == TIMING_FROM + TIMED_STEPS:
            per_step = (now - timing["first"]) / TIMED_STEPS
            steps = fitted_steps(position, per_step, deadline - now, timing.get("evaluation", 0.0),
                                 loop.config.max_steps)
            loop.config.max_steps = steps
            loop.config.eval_every = max(10, -(-steps // FITTED_EVALUATIONS))
            print(json.dumps({"variant": name, "seconds_per_step": round(per_step, 3), "max_steps": steps,
                              "eval_every": loop.config.eval_every}), flush=True)
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


def choose(records: List[Dict[str, Any]], last: bool = False) -> List[Dict[str, Any]]:
    """At most two snapshots (two ~21 MB deltas fit the device's 64 MiB return): the best human_dev dev-select mean
    among those whose first sentence beats the whole in <= 60% of dev texts with own-shuffle >= 0.75 (the ship rule's
    checks; the best mean overall when none passes), and the best synthetic select_joint when it is another one;
    with ``last`` also each variant's final snapshot (small adapters: three fit)."""
    trained = [record for record in records if record["step"] > 0]
    if not trained:
        return []
    passing = [r for r in trained if r["first_beats_whole"] <= 0.6 and r["own_shuffle"] >= 0.75] or trained
    picks = [max(passing, key=lambda record: record["human_mean"])]
    synthetic = max(trained, key=lambda record: record["synthetic_select_joint"])
    if synthetic is not picks[0]:
        picks.append(synthetic)
    if last:
        for variant in sorted({record["variant"] for record in trained}):
            final = max((r for r in trained if r["variant"] == variant), key=lambda record: record["step"])
            if all(final is not pick for pick in picks):
                picks.append(final)
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
    parser.add_argument("--variants", default="long,long-wiki,long-wiki-short")
    parser.add_argument("--recipe", type=Path, default=None,
                        help="a GPU recipe trained as written (default: cpu-minilm-joint.yaml at COMMON's scale)")
    parser.add_argument("--workers", type=int, default=3, help="batch-making processes per variant (0: none)")
    parser.add_argument("--fixed-steps", action="store_true",
                        help="train loop.max_steps as set (default: fit the step count to the deadline)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                        help="override for every variant, e.g. loop.max_steps=4 (a CPU rehearsal)")
    args = parser.parse_args(argv)
    extra = {key: json.loads(value) for key, value in (item.split("=", 1) for item in args.set)}
    started = time.time()
    names = args.variants.split(",")
    context = multiprocessing.get_context("spawn")
    # One variant at a time, each with an equal share of the time: three processes on one GPU time-sliced it and
    # each ran slower per text than this project's 2-core CPU (lease of 2026-11-26).
    for index, name in enumerate(names):
        deadline = started + args.deadline * (index + 1) / len(names)
        process = context.Process(target=train_variant, args=(name, args.inputs, args.work, deadline, extra,
                                                              args.workers, not args.fixed_steps, args.recipe))
        process.start()
        process.join()
    records = []
    for name in names:
        log = args.work / name / "dev.jsonl"
        if log.is_file():
            records += [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    picks = choose(records, last=args.recipe is not None)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dev.json").write_text(json.dumps({"records": records, "picks": picks}, indent=1), encoding="utf-8")
    with tarfile.open(args.out / "logs.tar.gz", "w:gz") as tar:
        for name in names:
            if (args.work / name / "loop" / "log.jsonl").is_file():
                tar.add(args.work / name / "loop" / "log.jsonl", arcname=f"{name}.log.jsonl")
            for scores in sorted((args.work / name).glob("scores-*.json.gz")):
                tar.add(scores, arcname=f"{name}.{scores.name}")
    pack(picks, args.work, args.out)
    print(json.dumps([{key: pick[key] for key in ("variant", "step", "human_mean", "own_shuffle",
                                                   "first_beats_whole", "synthetic_select_joint")}
                      for pick in picks]))


if __name__ == "__main__":
    main()
