"""Held-out CONPONO accuracy per distance k (the paper's Figure 2) for finished runs, on as many examples as asked.

Training evaluates a small fixed slice (``objective.eval_examples``, 100 in the CPU recipe: ~25 per k, too few
to compare k=1 with k=2); the paper reports 5,000 held-out examples. This reloads a run's saved checkpoint
(``best/`` or ``final/``: encoder + W_k) and scores the first N examples of the same held-out stream (dev-split
paragraphs, example i seeded by ``dev:<seed>:i``), so the first ``eval_examples`` are the ones training saw.

    python -m coherence_metric.training.conpono.heldout runs/conpono-cpu-minilm runs/conpono-cpu-k1 --examples 1000
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import torch

from coherence_metric.errors import CoherenceMetricError, InputError

from ..loop import read_loop_log
from ..state_files import write_text_atomically
from .model import ConponoModel, load_backbone
from .objective import FAMILY, HEAD_FILE, ConponoObjective, ObjectiveSettings
from .recipe import load_paragraphs, recipe_from_mapping


def heldout_accuracy(run_dir: Path, examples: int, checkpoint: str = "best",
                     batch_size: Optional[int] = None) -> Dict[str, Any]:
    """Per-k accuracy, mean and loss of a run's saved checkpoint on the first ``examples`` held-out examples.

    Raises:
        InputError: not a CONPONO run folder, or the checkpoint is missing.
    """
    from transformers import AutoTokenizer

    run_dir = Path(run_dir)
    recipe_path = run_dir / "recipe.json"
    if not recipe_path.is_file():
        raise InputError(f"{run_dir}: no recipe.json; give the output_dir of a CONPONO training run")
    try:
        values = json.loads(recipe_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{recipe_path} is not valid JSON: {error}") from None
    if values.get("family") != FAMILY:
        raise InputError(f"{run_dir} is a {values.get('family')!r} run, not a CONPONO one")
    folder = run_dir / checkpoint
    if not (folder / HEAD_FILE).is_file():
        raise InputError(f"{folder}: no {HEAD_FILE}; has the run saved its {checkpoint}/ checkpoint yet?")
    if examples < 1:
        raise InputError(f"examples must be at least 1, got {examples}")
    recipe = recipe_from_mapping(values, str(recipe_path))
    settings = recipe.objective.example_settings()
    dev = load_paragraphs(recipe.data, settings, "dev", recipe.data.dev_max_documents)
    if not dev:
        raise InputError(f"{run_dir}: its corpora have no held-out (dev) paragraphs")
    encoder, _ = load_backbone(folder, with_mlm=False)
    model = ConponoModel(encoder, None, recipe.objective.encoding, recipe.objective.max_distance,
                         recipe.model.pooling)
    head = torch.load(folder / HEAD_FILE, map_location="cpu", weights_only=True)
    with torch.no_grad():
        model.distance_weights.copy_(head["distance_weights"])
    objective_settings = ObjectiveSettings(
        batch_size=1, max_length=recipe.model.max_length, mlm_weight=0.0,
        mlm_probability=recipe.objective.mlm_probability, eval_examples=examples,
        eval_batch_size=batch_size or recipe.objective.eval_batch_size, seed=recipe.loop.seed)
    tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    objective = ConponoObjective(model, tokenizer, dev, dev, settings, objective_settings, {})
    model.eval()
    numbers = objective.evaluate()
    return {**numbers, "run": str(run_dir), "checkpoint": checkpoint, "step": _checkpoint_step(run_dir, checkpoint),
            "max_distance": recipe.objective.max_distance,
            "candidates": 1 + settings.hard_negatives + settings.random_negatives, "examples": examples}


def _checkpoint_step(run_dir: Path, checkpoint: str) -> Optional[int]:
    """The step whose evaluation saved ``best/`` (the first with the best accuracy), or the last for ``final/``."""
    evaluations = [record for record in read_loop_log(run_dir) if "eval_accuracy" in record]
    if not evaluations:
        return None
    if checkpoint == "final":
        return int(max(record["step"] for record in read_loop_log(run_dir)))
    best = max(record["eval_accuracy"] for record in evaluations)
    return int(next(record["step"] for record in evaluations if record["eval_accuracy"] == best))


def render_table(results: Sequence[Dict[str, Any]]) -> str:
    """Markdown: one row per run, accuracy (%) per distance k, the mean over k and chance."""
    widest = max(result["max_distance"] for result in results)
    distances = [k for k in range(-widest, widest + 1) if k != 0]
    lines = ["| Run | K | Step | Examples | " + " | ".join(f"k={k:+d}" for k in distances)
             + " | Mean | Chance |", "|---|---:|---:|---:|" + "---:|" * (len(distances) + 2)]
    for result in results:
        cells = [f"{100 * result[f'accuracy_k{k:+d}']:.1f}" if f"accuracy_k{k:+d}" in result else "-"
                 for k in distances]
        lines.append(f"| {result['run']} | {result['max_distance']} | {result['step']} | {result['examples']} | "
                     + " | ".join(cells) + f" | {100 * result['accuracy']:.1f} | {100 / result['candidates']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    """Print the per-k table and write ``heldout_<checkpoint>_<N>.json`` into each run folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="a CONPONO run's output_dir")
    parser.add_argument("--examples", type=int, default=1000, help="held-out examples [default: 1000]")
    parser.add_argument("--checkpoint", choices=("best", "final"), default="best")
    args = parser.parse_args(argv)
    try:
        results = []
        for run_dir in args.runs:
            result = heldout_accuracy(run_dir, args.examples, args.checkpoint)
            report = run_dir / f"heldout_{args.checkpoint}_{args.examples}.json"
            write_text_atomically(json.dumps(result, indent=2), report)
            results.append(result)
        print(render_table(results), end="")
    except CoherenceMetricError as error:
        parser.exit(2, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
