"""The training loop of the other papers' objectives: CONPONO, DisSent, DiscoEval's criteria, multi-view.

The coherence objectives (pairwise, contrastive, full) run in :mod:`coherence_metric.training.trainer`, whose data,
mining and momentum queue are specific to them. Everything else plugs an :class:`Objective` into
:class:`ObjectiveLoop`, which owns what every recipe needs and nothing more: the optimizer (AdamW, Adam
or SGD), the learning-rate schedule (constant, warmup + linear, or DisSent's "divide by 5 when held-out
accuracy drops"), gradient accumulation, periodic held-out evaluation with the best model kept, a JSONL
log, a progress bar with ETA, and exact resume after an interruption.

Resume is exact because batches are addressed by position: ``objective.batch(position)`` must return
the same batch for the same position in every run (seed a ``random.Random`` with the position), so the
loop only needs to remember how many steps it took.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Protocol, Tuple

import torch
from torch import nn

from coherence_metric.errors import InputError

from .checks import refuse_failed
from .resume import check_same_recipe, random_states, restore_random_states
from .run_log import append_record, cut_log_after_step
from .state_files import (
    read_state,
    recover_directory,
    remove_unfinished_files,
    replace_directory,
    save_atomically,
    write_text_atomically,
)

logger = logging.getLogger("coherence_metric.training")

STATE_FILE = "loop_state.pt"
LOG_FILE = "log.jsonl"
OPTIMIZERS = ("adamw", "adam", "sgd")
LOOP_SCHEDULES = ("constant", "linear", "shrink_on_plateau")
# What may change when a run resumes (see coherence_metric.training.resume): how long it trains, how often it logs,
# evaluates
# and saves, and where its folder is.
RESUMABLE_CHANGES = ("loop.output_dir", "loop.max_steps", "loop.eval_every", "loop.log_every", "loop.save_every")


class Objective(Protocol):
    """What a training objective gives the loop."""

    module: nn.Module
    """Every trained parameter (and any buffer a resume needs) lives under this module."""

    def batch(self, position: int) -> Any:
        """The batch at a stream position; the same position must give the same batch in every run."""

    def loss(self, batch: Any) -> Tuple[torch.Tensor, Dict[str, float]]:
        """The scalar loss to minimise and named numbers to log (each a float)."""

    def evaluate(self) -> Dict[str, float]:
        """Held-out numbers; the loop keeps the model with the best value of ``LoopConfig.select``."""

    def after_step(self) -> None:
        """Called after each optimizer step (e.g. the multi-view orthonormal update); may do nothing."""

    def save(self, folder: Path) -> None:
        """Write the trained model so the evaluation that reports it (e.g. DiscoEval) can load it.

        ``folder`` is a new, empty folder beside ``best/`` or ``final/`` that replaces it once this returns.
        """


@dataclass
class LoopConfig:
    """The ``loop:`` section of a recipe.

    ``shrink_on_plateau`` divides the rate by ``shrink_factor`` whenever the selected held-out number does
    not improve on the previous evaluation (DisSent / InferSent's SGD rule) and stops once it falls
    below ``min_lr``. The resume state is written at every evaluation and, with ``save_every``, also every
    that many steps: slow objectives (CONPONO's steps take ~20 s on a CPU) then lose minutes, not an
    evaluation interval, when a session ends mid-run.
    """

    output_dir: str = "runs/objective"
    max_steps: int = 1000
    optimizer: str = "adamw"
    lr: float = 1e-3
    weight_decay: float = 0.0
    sgd_momentum: float = 0.0
    grad_clip: Optional[float] = None
    schedule: str = "constant"
    warmup_steps: int = 0
    final_lr: float = 0.0
    shrink_factor: float = 5.0
    min_lr: float = 1e-5
    accumulation: int = 1
    eval_every: int = 500
    log_every: int = 50
    save_every: Optional[int] = None
    seed: int = 0
    select: str = "accuracy"

    def check(self, where: str) -> None:
        """Raise InputError naming the bad key."""
        checks = [
            (self.optimizer in OPTIMIZERS, f"loop.optimizer must be one of {', '.join(OPTIMIZERS)}"),
            (self.schedule in LOOP_SCHEDULES, f"loop.schedule must be one of {', '.join(LOOP_SCHEDULES)}"),
            (self.max_steps >= 1 and self.accumulation >= 1, "loop.max_steps and loop.accumulation must be >= 1"),
            (self.eval_every >= 1 and self.log_every >= 1, "loop.eval_every and loop.log_every must be >= 1"),
            (self.save_every is None or self.save_every >= 1, "loop.save_every must be >= 1 (or null)"),
            (self.lr > 0, "loop.lr must be positive"),
            (self.shrink_factor > 1, "loop.shrink_factor must be above 1"),
        ]
        refuse_failed(checks, where)


def make_optimizer(parameters: List[Any], config: LoopConfig) -> torch.optim.Optimizer:
    """AdamW, Adam or SGD over the trainable parameters (or parameter groups)."""
    if not parameters:
        raise InputError("the objective has no trainable parameters")
    if config.optimizer == "sgd":
        return torch.optim.SGD(parameters, lr=config.lr, momentum=config.sgd_momentum,
                               weight_decay=config.weight_decay)
    if config.optimizer == "adam":
        return torch.optim.Adam(parameters, lr=config.lr, weight_decay=config.weight_decay)
    return torch.optim.AdamW(parameters, lr=config.lr, weight_decay=config.weight_decay)


def scheduled_lr(config: LoopConfig, step: int, plateau_scale: float) -> float:
    """The learning rate for optimizer step ``step`` (0-based): warmup, then the schedule."""
    if config.warmup_steps and step < config.warmup_steps:
        return config.lr * (step + 1) / config.warmup_steps
    if config.schedule == "linear":
        span = max(config.max_steps - config.warmup_steps, 1)
        progress = min(max(step - config.warmup_steps, 0) / span, 1.0)
        return config.lr + progress * (config.final_lr - config.lr)
    if config.schedule == "shrink_on_plateau":
        return config.lr * plateau_scale
    return config.lr


def trainable_groups(objective: Objective) -> List[Any]:
    """The trainable parameters, or the objective's own groups when it has ``parameter_groups()`` (a list of
    ``{"params": [...], "lr_scale": x}``: each group steps at ``x`` times the scheduled rate, e.g. a fresh head
    faster than a pretrained encoder)."""
    grouped = getattr(objective, "parameter_groups", None)
    if grouped is not None:
        return [group for group in grouped() if group["params"]]
    return [parameter for parameter in objective.module.parameters() if parameter.requires_grad]


class ObjectiveLoop:
    """Trains one objective to ``max_steps`` (or until ``shrink_on_plateau`` runs out of rate).

    Writes into ``output_dir``: ``log.jsonl``, ``best/`` and ``final/`` (``objective.save`` fills a new folder
    that then replaces the old one, see :mod:`coherence_metric.training.state_files`), ``recipe.json`` (the ``loop:``
    section alone when no recipe is given) and ``loop_state.pt`` for resuming; a resume under a recipe that differs
    outside :data:`RESUMABLE_CHANGES` is refused, naming the keys.
    """

    def __init__(self, objective: Objective, config: LoopConfig, recipe: Optional[Dict[str, Any]] = None,
                 progress: bool = True) -> None:
        config.check("recipe")
        self.objective = objective
        self.config = config
        self.recipe = recipe or {"loop": asdict(config)}
        self.progress = progress
        self.output_dir = Path(config.output_dir)
        torch.manual_seed(config.seed)
        self.optimizer = make_optimizer(trainable_groups(objective), config)
        self.step = 0
        self.best: Optional[float] = None
        self.last_selected: Optional[float] = None
        self.plateau_scale = 1.0
        self.stopped_early = False

    # ------------------------------------------------------------------------------------------ state

    def state_dict(self) -> Dict[str, Any]:
        """Everything a resumed run needs to continue exactly."""
        return {"step": self.step, "best": self.best, "last_selected": self.last_selected,
                "plateau_scale": self.plateau_scale, "stopped_early": self.stopped_early,
                "module": self.objective.module.state_dict(), "optimizer": self.optimizer.state_dict(),
                "rng": random_states(), "recipe": self.recipe}

    def save_state(self) -> None:
        """Atomically replace the resume state."""
        save_atomically(self.state_dict(), self.output_dir / STATE_FILE)

    def load_state(self) -> bool:
        """Resume from ``output_dir`` when a state file is there; returns whether it did."""
        path = self.output_dir / STATE_FILE
        if not path.is_file():
            return False
        # a truncated or foreign file: one line naming it; the file is kept for inspection
        state = read_state(path, keys=("recipe", "module", "step"))
        check_same_recipe(path, state["recipe"], self.recipe, RESUMABLE_CHANGES)
        try:
            self.objective.module.load_state_dict(state["module"])
        except RuntimeError:
            raise InputError(f"{path} was written by a different model: use a new output_dir") from None
        self.optimizer.load_state_dict(state["optimizer"])
        restore_random_states(state["rng"])
        self.step, self.best = state["step"], state["best"]
        self.last_selected, self.plateau_scale = state["last_selected"], state["plateau_scale"]
        self.stopped_early = state["stopped_early"]
        return True

    def _log(self, record: Dict[str, Any]) -> None:
        append_record(self.output_dir / LOG_FILE, record)  # strict JSON: NaN is written as null

    # ------------------------------------------------------------------------------------------- steps

    def current_lr(self) -> float:
        """The rate the next optimizer step uses."""
        return scheduled_lr(self.config, self.step, self.plateau_scale)

    def train_step(self) -> Dict[str, float]:
        """One optimizer step over ``accumulation`` batches; returns the averaged logged numbers."""
        config = self.config
        self.objective.module.train()
        for group in self.optimizer.param_groups:
            group["lr"] = self.current_lr() * group.get("lr_scale", 1.0)
        totals: Dict[str, float] = {}
        for slot in range(config.accumulation):
            batch = self.objective.batch(self.step * config.accumulation + slot)
            loss, numbers = self.objective.loss(batch)
            (loss / config.accumulation).backward()
            for key, value in {"loss": float(loss.item()), **numbers}.items():
                totals[key] = totals.get(key, 0.0) + float(value) / config.accumulation
        if config.grad_clip:
            torch.nn.utils.clip_grad_norm_(self.objective.module.parameters(), config.grad_clip)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.objective.after_step()
        self.step += 1
        return totals

    def evaluate_and_keep_best(self) -> Dict[str, float]:
        """Held-out numbers now; a new best is saved to ``best/``; the plateau rule applied."""
        self.objective.module.eval()
        with torch.no_grad():
            numbers = self.objective.evaluate()
        self.objective.module.train()
        if self.config.select not in numbers:
            raise InputError(f"the objective's evaluation has no {self.config.select!r} (loop.select); "
                             f"it reports: {', '.join(sorted(numbers))}")
        selected = float(numbers[self.config.select])
        if self.best is None or selected > self.best:
            self.best = selected
            replace_directory(self.output_dir / "best", self.objective.save)
        if (self.config.schedule == "shrink_on_plateau" and self.last_selected is not None
                and selected < self.last_selected):
            self.plateau_scale /= self.config.shrink_factor
            self.stopped_early = self.current_lr() < self.config.min_lr
        self.last_selected = selected
        self._log({"step": self.step, **{f"eval_{key}": value for key, value in numbers.items()},
                   "best": self.best, "lr": self.current_lr()})
        return numbers

    def _steps(self) -> Iterator[int]:
        if not self.progress:
            yield from range(self.step, self.config.max_steps)
            return
        from tqdm.auto import tqdm

        yield from tqdm(range(self.step, self.config.max_steps), initial=self.step, total=self.config.max_steps,
                        desc="training", unit="step")

    def run(self) -> Dict[str, Any]:
        """Train (resuming if possible) and return the final numbers."""
        self.output_dir.mkdir(parents=True, exist_ok=True)
        for name in ("best", "final"):  # a kill while one was replaced left the previous one aside
            recover_directory(self.output_dir / name)
        for name in (STATE_FILE, "recipe.json", LOG_FILE):  # a SIGKILL mid-write leaves <name>.tmp-<pid>
            remove_unfinished_files(self.output_dir / name)
        resumed = self.load_state()  # refuses a changed recipe before recipe.json is rewritten
        if resumed:  # records of steps after the saved state are written again from here on
            cut_log_after_step(self.output_dir / LOG_FILE, self.step)
        write_text_atomically(json.dumps(self.recipe, indent=2), self.output_dir / "recipe.json")
        logger.info("%s at step %d of %d", "resuming" if resumed else "starting", self.step, self.config.max_steps)
        if not resumed:
            self.evaluate_and_keep_best()
        started, first_step = time.perf_counter(), self.step
        window: List[Dict[str, float]] = []
        for _ in self._steps():
            if self.stopped_early:
                break
            numbers = self.train_step()
            if not math.isfinite(numbers["loss"]):
                raise InputError(f"loss became {numbers['loss']} at step {self.step}: lower loop.lr")
            window.append(numbers)
            last = self.step == self.config.max_steps
            if self.step % self.config.log_every == 0 or last:
                averaged = {key: sum(entry[key] for entry in window) / len(window) for key in window[0]}
                elapsed = time.perf_counter() - started
                self._log({"step": self.step, **averaged, "lr": self.current_lr(),
                           "seconds_per_step": elapsed / max(self.step - first_step, 1)})
                window = []
            if self.step % self.config.eval_every == 0 or last:
                self.evaluate_and_keep_best()
                self.save_state()
            elif self.config.save_every and self.step % self.config.save_every == 0:
                self.save_state()
        replace_directory(self.output_dir / "final", self.objective.save)
        self.save_state()
        return {"steps": self.step, "best": self.best, "select": self.config.select,
                "seconds": time.perf_counter() - started, "output_dir": str(self.output_dir),
                "stopped_early": self.stopped_early}


def read_loop_log(output_dir: Path) -> List[Dict[str, Any]]:
    """The JSONL log as records."""
    path = Path(output_dir) / LOG_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


__all__ = ["LoopConfig", "Objective", "ObjectiveLoop", "make_optimizer", "read_loop_log", "scheduled_lr"]
