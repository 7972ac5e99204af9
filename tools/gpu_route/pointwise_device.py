"""A ``family: pointwise`` recipe trained on the device machine from exported inputs, kept by dev.

Each variant is the exported recipe plus dotted overrides, trained by the project's own objective and loop, one
variant after another with an equal share of the deadline (three processes on one GPU time-sliced it and each ran
slower per text than a 2-core CPU: lease of 2026-11-26). Its step count is fitted to that share after timing
:data:`TIMED_STEPS` steps (``fit_steps=False`` keeps ``loop.max_steps``), so that the linear schedule reaches its
final rate instead of being cut off. At every evaluation the model is also scored on the dev ruler of ``dev_report``
(human_dev's dev-select half, synthetic dev, order and truncation checks) and saved as a snapshot, and its whole-text
scores of every dev text are kept (``scores-STEP.json.gz``: a dev check added later is computed from them on a CPU,
``dev_report --scores``). Nothing here reads a test set.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from coherence_metric.training.config import apply_overrides

#: Steps skipped before timing: the first ones wait for the batch-making workers to fill their queue (on the lease of
#: 2026-11-26 steps 1-21 took 0.32 s each, the steady rate was 0.11 s, so the run was fitted three times too short).
TIMING_FROM = 40
#: Steps timed before the step count is fitted to the deadline.
TIMED_STEPS = 20
#: Evaluations in a fitted run (the last at its final step).
FITTED_EVALUATIONS = 5
#: The ship rule's checks a snapshot must pass to be picked by its human_dev dev-select mean.
FIRST_BEATS_WHOLE_AT_MOST = 0.6
OWN_SHUFFLE_AT_LEAST = 0.75


class Prefetcher:
    """Batches made ahead by worker processes, in order: an example costs ~3 ms of Python, which would leave the GPU
    idle half of each step. Batches are addressed by position (the loop's contract), so the workers make exactly the
    batches ``objective.batch`` would."""

    def __init__(self, train: List[Any], data: Any, section: Any, workers: int, start: int = 0,
                 ahead: int = 24) -> None:
        context = multiprocessing.get_context("fork")  # the workers inherit the documents; no CUDA in them
        self.pool = context.Pool(workers, initializer=_init_batch_worker, initargs=(train, data, section))
        self.position, self.ahead = start, ahead
        # A bounded window of submitted positions: Pool.imap over an endless iterator would queue tasks forever
        # from a feeder thread that holds the GIL, which once made every step ten times slower.
        self.pending = {position: self.pool.apply_async(_make_batch, (position,))
                        for position in range(start, start + ahead)}

    def batch(self, position: int) -> Any:
        """The batch at ``position`` (positions come in order, one after another)."""
        if position != self.position:
            raise RuntimeError(f"prefetcher expected position {self.position}, got {position}")
        self.position += 1
        self.pending[position + self.ahead] = self.pool.apply_async(_make_batch, (position + self.ahead,))
        return self.pending.pop(position).get()

    def close(self) -> None:
        """Stop the workers."""
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
    """Raised inside the loop when the time given to a variant is spent (its snapshots so far are kept)."""


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


def train_variant(name: str, inputs: Path, manifest: Dict[str, Any], work: Path, deadline: float,
                  overrides: Dict[str, Any], workers: int, fit_steps: bool = True) -> None:
    """Train one variant (the exported recipe with ``overrides``) until ``deadline`` (a ``time.time()``); writes
    ``work/name/step-N`` snapshots, ``scores-N.json.gz`` and ``dev.jsonl``."""
    import torch

    from coherence_metric.research.documents import Document
    from coherence_metric.training.loop import ObjectiveLoop
    from coherence_metric.training.pointwise import recipe as recipe_module
    from coherence_metric.training.pointwise.objective import PointwiseObjective

    from .dev_ruler import read_dev_ruler
    from .inputs import BACKBONE_DIR, DEV_DATA_FILE, DOCUMENTS_FILE

    torch.set_num_threads(2)
    with gzip.open(inputs / DOCUMENTS_FILE, "rt", encoding="utf-8") as handle:
        packed = json.load(handle)
    dev_data = read_dev_ruler(inputs / DEV_DATA_FILE)
    values = apply_overrides(json.loads(json.dumps(manifest["recipe"])), overrides)
    named = carried_checkpoints(values, manifest, inputs, name)
    recorded = recipe_module.recipe_from_mapping(json.loads(json.dumps(values)), f"variant {name}")
    values = apply_overrides(values, {**named, "model.backbone": str(inputs / BACKBONE_DIR),
                                      "model.backbone_revision": None, "loop.output_dir": str(work / name / "loop")})
    recipe = recipe_module.recipe_from_mapping(values, f"variant {name}")

    def documents(split: str) -> List[Document]:
        return [Document(item["id"], item["source"], item["sentences"], item["title"]) for item in packed[split]
                if item["source"] in recipe.data.corpora]

    train = documents("train")
    prefetcher = Prefetcher(train, recipe.data, recipe.objective, workers) if workers else None
    model, tokenizer = recipe_module.build_model(recipe)
    if "model.init_checkpoint" in named:  # the start's layers are the exported backbone; its head is beside it
        from safetensors.torch import load_file

        from .inputs import START_HEAD_FILE

        model.head.load_state_dict(load_file(str(inputs / START_HEAD_FILE)))
    backbone = manifest["backbone"]
    model.backbone_spec = replace(model.backbone_spec, name_or_path=backbone["name"],
                                  revision=backbone.get("revision"), weights_sha256=backbone["sha256"])
    # The checkpoints record the recipe as written (the start and the teacher by name), not the device's paths.
    written = {**asdict(recipe), "model": {**asdict(recipe.model), "backbone": recorded.model.backbone,
                                           "backbone_revision": recorded.model.backbone_revision,
                                           "init_checkpoint": recorded.model.init_checkpoint},
               "objective": {**asdict(recipe.objective), "score_teacher": recorded.objective.score_teacher}}
    info = {"objective": "pointwise", "family": "pointwise", "seed": recipe.loop.seed, "recipe": written,
            "variant": name, "trained_on": "gpu" if recipe.model.device.startswith("cuda") else recipe.model.device}
    used = [what for key, what in (("model.init_checkpoint", "start"), ("objective.score_teacher", "teacher"))
            if key in named]
    if used:  # their names and fingerprints, as exported
        info["carried"] = {what: manifest["carried"][what] for what in used}
    objective = PointwiseObjective(model, tokenizer, train, documents("dev"), recipe.data,
                                   recipe.objective, recipe.model.max_length, recipe.loop.lr, info)
    loop = ObjectiveLoop(objective, recipe.loop, recipe=written, progress=False)
    evaluate, batch = objective.evaluate, (prefetcher.batch if prefetcher else objective.batch)
    started = time.time()
    timing: Dict[str, float] = {}

    def evaluate_and_snapshot() -> Dict[str, float]:
        began = time.time()
        result = evaluate()
        numbers, scores = dev_numbers(dev_data, model, tokenizer, recipe.model.max_length)
        with gzip.open(work / name / f"scores-{loop.step}.json.gz", "wt", encoding="utf-8") as handle:
            json.dump(scores, handle)
        objective.save(work / name / f"step-{loop.step}")
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
    (work / name).mkdir(parents=True, exist_ok=True)
    try:
        loop.run()
    except Deadline as stop:
        print(stop, flush=True)
    finally:
        if prefetcher:
            prefetcher.close()


def carried_checkpoints(values: Dict[str, Any], manifest: Dict[str, Any], inputs: Path, variant: str
                        ) -> Dict[str, Any]:
    """The overrides that point a variant's ``model.init_checkpoint`` and ``objective.score_teacher`` at what the
    export carried (the start: none, its layers are the backbone; the teacher: its folder). A variant may drop
    either (a control run without the teacher), never name one that did not travel.

    Raises:
        InputError: a variant naming a checkpoint the export did not carry.
    """
    from coherence_metric.errors import InputError

    from .inputs import TEACHER_DIR

    carried = manifest.get("carried", {})
    named: Dict[str, Any] = {}
    for key, what, replacement in (("model.init_checkpoint", "start", None),
                                   ("objective.score_teacher", "teacher", str(inputs / TEACHER_DIR))):
        section, field = key.split(".")
        value = (values.get(section) or {}).get(field)
        if not value:
            continue
        if what not in carried or carried[what]["name"] != value:
            travelled = carried[what]["name"] if what in carried else "none"
            raise InputError(f"variant {variant}: {key} is {value!r}, but the export carried {travelled}: export "
                             "the recipe with that checkpoint")
        named[key] = replacement
    return named


def choose(records: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The snapshots worth bringing back, best first: the best human_dev dev-select mean among those whose first
    sentence beats the whole in at most 60% of dev texts with own-shuffle accuracy of at least 0.75 (the ship rule's
    checks; the best mean overall when none passes), the best synthetic ``select_joint`` when it is another, then
    each variant's last snapshot. What fits the trip back is packed, in this order (two MiniLM deltas; an adapter's
    snapshots all)."""
    trained = [record for record in records if record["step"] > 0]
    if not trained:
        return []
    passing = [record for record in trained if record["first_beats_whole"] <= FIRST_BEATS_WHOLE_AT_MOST
               and record["own_shuffle"] >= OWN_SHUFFLE_AT_LEAST] or trained
    picks = [max(passing, key=lambda record: record["human_mean"])]
    synthetic = max(trained, key=lambda record: record["synthetic_select_joint"])
    if synthetic is not picks[0]:
        picks.append(synthetic)
    for variant in dict.fromkeys(record["variant"] for record in trained):
        final = max((record for record in trained if record["variant"] == variant), key=lambda record: record["step"])
        if all(final is not pick for pick in picks):
            picks.append(final)
    return picks


def run_variants(inputs: Path, manifest: Dict[str, Any], work: Path, seconds: float,
                 variants: Sequence[Tuple[str, Dict[str, Any]]], overrides: Dict[str, Any], workers: int,
                 fit_steps: bool = True, started: Optional[float] = None) -> List[Dict[str, Any]]:
    """Train every variant in turn (its own overrides over ``overrides``, those for every variant), the i-th of n
    until ``started + seconds * i / n``; returns every snapshot's dev record."""
    started = time.time() if started is None else started
    for index, (name, own) in enumerate(variants):
        deadline = started + seconds * (index + 1) / len(variants)
        train_variant(name, inputs, manifest, work, deadline, {**overrides, **own}, workers, fit_steps)
    records: List[Dict[str, Any]] = []
    for name, _ in variants:
        log = work / name / "dev.jsonl"
        if log.is_file():
            records += [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return records


__all__ = ["Deadline", "Prefetcher", "carried_checkpoints", "choose", "dev_numbers", "fitted_steps", "run_variants",
           "train_variant"]
