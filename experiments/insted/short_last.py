"""The fine-tuned model continued on lead-like items with one intrusion at the last position.

    python -m experiments.insted.short_last runs/insted-short-last [crop=1] [last=1] [steps=1000]
    python -m experiments.insted.eval_head runs/insted-short-last/final INSTED-WIKI NEWS-INTRUSION NEWS-PERMUTED

Starts from the fine-tuned model alone (``runs/base-852da``) with ``cpu-minilm-intrusion.yaml`` at lr 1e-5 annealed
over ``steps``, and changes two things: ``crop=1`` cuts half of the training items to their first 3-8 sentences
(with fresh permutations), ``last=1`` puts one of each item's two intrusions at its last sentence (the default is at
chance on INSTED-WIKI when the last sentence is the intruder). Dev intrusions are drawn the same way, so the step-0
evaluation is the fine-tuned model's own reference on that dev.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import List

import coherence_metric.training.data.intrusions as intrusions_module
from coherence_metric.training.config import load_recipe
from coherence_metric.training.data.examples import TrainingItem
from coherence_metric.training.trainer import Trainer
from experiments.insted.cropping import crop_half

original_load_data = Trainer._load_data


def last_then_others(rng: random.Random, item: TrainingItem, per_item: int) -> List[int]:
    """The last sentence, then distinct other positions (never the first)."""
    n = len(item.pos)
    return [n - 1] + rng.sample(range(1, n - 1), min(per_item - 1, n - 2))


def main(out: str, options: dict) -> None:
    steps = int(options.get("steps", 1000))
    if options.get("crop", "1") == "1":
        def load_data(self):  # type: ignore[no-untyped-def]
            train, dev = original_load_data(self)
            return crop_half(train, self.recipe.train.seed, 20), dev

        Trainer._load_data = load_data  # type: ignore[method-assign]
    if options.get("last", "1") == "1":
        intrusions_module._positions = last_then_others
    overrides = {"output_dir": out, "init_checkpoint": "runs/base-852da", "train.max_steps": steps,
                 "train.eval_every": 250, "schedule.anneal_steps": steps, "optimizer.lr": 1.0e-5}
    recipe = load_recipe(Path("training/configs/cpu-minilm-intrusion.yaml"), overrides)
    print(Trainer(recipe, progress=False).run())


if __name__ == "__main__":
    main(sys.argv[1], dict(arg.split("=", 1) for arg in sys.argv[2:]))
