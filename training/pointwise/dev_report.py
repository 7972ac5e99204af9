"""Rank options on dev data only (issue 41): synthetic dev, the order and truncation checks, and the dev-select half
of human_dev, for each checkpoint and each local-term weight, with paired bootstraps against a baseline option.

Every option is scored on the *same* dev texts and pairs, so two options are compared by a paired bootstrap of the
difference (groups resampled together), not by two overlapping marginal intervals: a 1-2 point gain is either shown
or ruled out. Nothing here reads a test set.

    python -m coherence_metric.training.pointwise.dev_report CHECKPOINT [CHECKPOINT ...] \\
        --weights 0,0.25,0.5,0.75 --out runs/dev-report.json

A checkpoint's global score (the whole text) and its transitions (each adjacent pair scored alone) are computed once;
each weight w mixes them as the local term does (``coherence_metric.local_term.mix``), so a weight is chosen before
it is written into a checkpoint (``coherence_metric.checkpoint.set_local_term``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from coherence_metric.local_term import adjacent_pairs, group_by_owner, mix
from coherence_metric.research.datasets.ratings import (
    DEV_SELECT,
    HUMAN_DEV_SETS,
    RatedSet,
    dev_half,
    group_credits,
    load_human_dev_set,
)

from ..config import read_recipe_mapping
from .dev_checks import DevTexts, build_dev_texts, run_dev_checks, win_credit
from .objective import ranking_auc
from .recipe import recipe_from_mapping
from .texts import PointwiseExample, make_example, sample_documents

#: The recipe whose dev split and negative kinds define synthetic dev for every option.
DEV_RECIPE = Path(__file__).resolve().parents[1] / "configs" / "cpu-minilm-joint.yaml"
RESAMPLES = 2000
SEED = 12345


@dataclass
class DevData:
    """Everything an option is scored on: human_dev's dev-select texts, synthetic dev examples and check texts."""

    rated: List[RatedSet]
    rated_texts: Dict[str, List[int]]  # set name -> indices of its dev-select texts
    examples: List[PointwiseExample]
    checks: DevTexts


def load_dev_data(recipe_path: Path = DEV_RECIPE) -> DevData:
    """The dev-select half of each human_dev set and the recipe's synthetic dev (dev split of its corpora)."""
    recipe = recipe_from_mapping(read_recipe_mapping(recipe_path, {}), str(recipe_path))
    dev_documents = sample_documents(recipe.data, "dev")
    examples = [make_example(document, dev_documents, recipe.data, epoch=0) for document in dev_documents]
    rated = [load_human_dev_set(name) for name in HUMAN_DEV_SETS]
    rated_texts = {item.name: [index for index, text in enumerate(item.texts)
                               if dev_half(item.name, text.group) == DEV_SELECT] for item in rated}
    return DevData(rated, rated_texts, examples, build_dev_texts(dev_documents))


class GlobalAndLocal:
    """A checkpoint's whole-text scores and pair scores of sentence lists, each distinct text scored once."""

    def __init__(self, model: str) -> None:
        from coherence_metric import CoherenceScorer

        self.scorer = CoherenceScorer(model, dtype="fp32")
        self.scorer.model.local_weight = None  # the parts, unmixed: mixing happens per weight below
        self._cache: Dict[str, float] = {}

    def _score(self, texts: List[str]) -> List[float]:
        missing = sorted({text for text in texts if text not in self._cache})
        if missing:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for text, value in zip(missing, self.scorer.score(missing).scores):
                    self._cache[text] = value
        return [self._cache[text] for text in texts]

    def parts(self, documents: Sequence[Sequence[str]]) -> Tuple[List[float], List[List[float]]]:
        """Whole-text scores and per-text transition scores."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            whole = self.scorer.score([list(document) for document in documents]).scores
        pairs, owners = adjacent_pairs(documents)
        return whole, group_by_owner(self._score(pairs), owners, len(documents))


def evaluate_option(data: DevData, whole: Dict[str, List[float]], transitions: Dict[str, List[List[float]]],
                    weight: float) -> Dict[str, Any]:
    """Every dev number of one (checkpoint, weight): human_dev dev-select per set and mean, synthetic dev, checks."""
    mixed = {key: mix(whole[key], transitions[key], weight) if weight > 0 else list(whole[key]) for key in whole}
    result: Dict[str, Any] = {"weight": weight, "human": {}, "credits": {}}
    for rated in data.rated:
        indices = data.rated_texts[rated.name]
        scores = dict(zip(indices, mixed[rated.name]))
        credits = {group: entry[:2] for group, entry in group_credits(rated, scores, DEV_SELECT).items()}
        result["credits"][rated.name] = credits
        result["human"][rated.name] = sum(c for c, _ in credits.values()) / sum(n for _, n in credits.values())
    result["human_mean"] = statistics.fmean(result["human"].values())
    synthetic = mixed["synthetic"]
    positives, cursor, wins, negatives = synthetic[: len(data.examples)], len(data.examples), [], []
    for example, positive in zip(data.examples, positives):
        for _ in example.negatives:
            wins.append(win_credit(positive, synthetic[cursor]))
            negatives.append(synthetic[cursor])
            cursor += 1
    result["synthetic_accuracy"] = statistics.fmean(wins)
    result["synthetic_auc"] = ranking_auc(positives, negatives)
    checks_scores = iter(mixed["checks"])
    result.update(run_dev_checks(data.checks, lambda texts: [next(checks_scores) for _ in texts]))
    return result


def _check_documents(checks: DevTexts) -> List[List[str]]:
    """The texts ``run_dev_checks`` scores, in its order."""
    return checks.texts + checks.shuffles + [text[:1] for text in checks.texts] + checks.lengths


def dev_documents(data: DevData) -> Dict[str, List[List[str]]]:
    """Every dev text an option is scored on, keyed by part (each human_dev set's dev-select texts, ``synthetic``:
    positives then each example's negatives, ``checks``), in the order :func:`evaluate_option` reads the scores."""
    documents: Dict[str, List[List[str]]] = {
        rated.name: [list(rated.texts[index].sentences) for index in data.rated_texts[rated.name]]
        for rated in data.rated}
    documents["synthetic"] = ([example.positive for example in data.examples]
                              + [negative for example in data.examples for _, negative in example.negatives])
    documents["checks"] = _check_documents(data.checks)
    return documents


def score_checkpoint(data: DevData, model: str) -> Tuple[Dict[str, List[float]], Dict[str, List[List[float]]]]:
    """A checkpoint's whole-text and transition scores on every dev text, keyed by part."""
    scorer = GlobalAndLocal(model)
    whole, transitions = {}, {}
    for key, texts in dev_documents(data).items():
        whole[key], transitions[key] = scorer.parts(texts)
    return whole, transitions


def paired_difference(first: Dict[str, Dict[str, Tuple[float, int]]], second: Dict[str, Dict[str, Tuple[float, int]]],
                      resamples: int = RESAMPLES, seed: int = SEED) -> Dict[str, Any]:
    """Mean over sets of (second - first) dev-select accuracy, with a paired bootstrap over each set's groups."""
    rng = np.random.default_rng(seed)
    differences = np.zeros(resamples)
    observed = 0.0
    for name in first:
        groups = sorted(first[name])
        a = np.array([first[name][group] for group in groups], dtype=float)
        b = np.array([second[name][group] for group in groups], dtype=float)
        observed += b[:, 0].sum() / b[:, 1].sum() - a[:, 0].sum() / a[:, 1].sum()
        draws = rng.integers(0, len(groups), size=(resamples, len(groups)))
        differences += b[draws, 0].sum(1) / b[draws, 1].sum(1) - a[draws, 0].sum(1) / a[draws, 1].sum(1)
    observed /= len(first)
    differences /= len(first)
    low, high = np.percentile(differences, [2.5, 97.5])
    return {"difference": float(observed), "interval": [float(low), float(high)],
            "p_not_better": float((differences <= 0).mean())}


def option_summary(option: Dict[str, Any], comparisons: Sequence[Tuple[str, str]] = ()) -> str:
    """One line of an option's dev numbers (what :func:`evaluate_option` returns): human_dev dev-select mean and per
    set, then each paired difference ``option[key]`` named in ``comparisons`` as ``(label, key)``, then synthetic
    dev and the order and truncation checks."""
    note = "".join(f" {label} {option[key]['difference']:+.3f} {option[key]['interval']}"
                   for label, key in comparisons if key in option)
    return (f"human {option['human_mean']:.3f} "
            f"({', '.join(f'{k} {v:.3f}' for k, v in option['human'].items())}){note} | "
            f"synth acc {option['synthetic_accuracy']:.3f} auc {option['synthetic_auc']:.3f} | "
            f"own_shuffle {option['own_shuffle']:.3f} first>whole {option['first_beats_whole']:.3f} "
            f"gap_sd {option['truncation_gap_sd']:+.2f} count_rho {option['count_spearman']:+.2f}")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+")
    parser.add_argument("--weights", default="0", help="local-term weights to try, comma-separated")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    weights = [float(value) for value in args.weights.split(",")]
    started = time.perf_counter()
    data = load_dev_data()
    options: List[Dict[str, Any]] = []
    for checkpoint in args.checkpoints:
        whole, transitions = score_checkpoint(data, checkpoint)
        for weight in weights:
            option = evaluate_option(data, whole, transitions, weight)
            option["checkpoint"] = checkpoint
            options.append(option)
    baseline = options[0]
    for option in options:
        option["vs_first"] = paired_difference(baseline["credits"], option["credits"])
    for option in options:
        del option["credits"]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"options": options, "seconds": time.perf_counter() - started}, indent=1))
    for option in options:
        print(f"{option['checkpoint']} w={option['weight']}: "
              + option_summary(option, [("vs first", "vs_first")]))


if __name__ == "__main__":
    main()
