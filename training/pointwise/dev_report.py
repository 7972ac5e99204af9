"""Rank options on dev data only: synthetic dev, the order and truncation checks, and the dev-select half
of human_dev, for each checkpoint and each local-term weight, with paired bootstraps against a baseline option.

Every option is scored on the *same* dev texts and pairs, so two options are compared by a paired bootstrap of the
difference (groups resampled together), not by two overlapping marginal intervals: a 1-2 point gain is either shown
or ruled out. Nothing here reads a test set.

    python -m coherence_metric.training.pointwise.dev_report CHECKPOINT [CHECKPOINT ...] \\
        --weights 0,0.25,0.5,0.75 --out runs/dev-report.json

A checkpoint's global score (the whole text) and its transitions (each adjacent pair scored alone) are computed once;
each weight w mixes them as the local term does (``coherence_metric.scoring.local_term.mix``), so a weight is chosen
before it is written into a checkpoint (``coherence_metric.models.checkpoint.set_local_term``).

Beside those checks, the report gives: extractive texts against the lead and a shuffle (``extractive``), first
sentence / third / half against the whole per length band (``bands``: the short check texts, and long texts: the
human-written HANNA stories of dev-select and long dev-split corpus documents), and system-level Kendall tau on
dev-select (``dev_systems``; no new texts: it reads the human_dev scores).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from coherence_metric import CoherenceScorer
from coherence_metric.research.datasets.ratings import (
    DEV_SELECT,
    HANNA,
    HUMAN_DEV_SETS,
    RatedSet,
    dev_half,
    group_credits,
    load_human_dev_set,
    word_count,
)
from coherence_metric.research.documents import Document
from coherence_metric.toolkit import adjacent_pairs, group_by_owner, mix

from ..config import read_recipe_mapping
from ..state_files import write_output
from .dev_checks import (
    LONG,
    SHORT,
    SHORT_BAND_TEXTS,
    DevTexts,
    ExtractiveTexts,
    Scorer,
    band_documents,
    build_dev_texts,
    build_extractive_texts,
    extractive_documents,
    run_band_checks,
    run_dev_checks,
    run_extractive_checks,
    spread,
    win_credit,
)
from .dev_systems import system_agreement
from .objective import ranking_auc
from .recipe import recipe_from_mapping
from .texts import PointwiseExample, make_example, sample_documents

#: The recipe whose dev split and negative kinds define synthetic dev for every option.
DEV_RECIPE = Path(__file__).resolve().parents[1] / "configs" / "cpu-minilm-joint.yaml"
RESAMPLES = 2000
SEED = 12345
#: A long-band text: 6+ sentences and this many words (HANNA's stories run ~250-400; news articles ~300-600).
LONG_WORDS = (250, 600)
#: The human-written HANNA stories: the one story per prompt whose whole is coherent by construction, so a lead
#: that beats it shows a length bias, not a generator's drift.
LONG_STORY_SYSTEM = "Human"


@dataclass
class DevData:
    """Everything an option is scored on: human_dev's dev-select texts, synthetic dev examples and check texts."""

    rated: List[RatedSet]
    rated_texts: Dict[str, List[int]]  # set name -> indices of its dev-select texts
    examples: List[PointwiseExample]
    checks: DevTexts
    # The extract and long-band checks; None (and an older dev ruler, which lacks them) leaves their numbers out.
    extractive: Optional[ExtractiveTexts] = None
    bands: Optional[Dict[str, List[List[str]]]] = None


def is_long(sentences: Sequence[str]) -> bool:
    """Whether a text belongs in the long band (see :data:`LONG_WORDS`)."""
    return len(sentences) >= 6 and LONG_WORDS[0] <= word_count(sentences) <= LONG_WORDS[1]


def long_texts(documents: Sequence[Document], rated: Sequence[RatedSet],
               rated_texts: Dict[str, List[int]]) -> List[List[str]]:
    """The long band: HANNA's dev-select human-written stories, then the dev-split corpus documents, that are long."""
    stories = [list(item.texts[index].sentences) for item in rated if item.name == HANNA
               for index in rated_texts[item.name] if item.texts[index].system == LONG_STORY_SYSTEM]
    articles = [[sentence for sentence in document.sentences if sentence.strip()] for document in documents]
    return [text for text in stories + articles if is_long(text)]


def load_dev_data(recipe_path: Path = DEV_RECIPE) -> DevData:
    """The dev-select half of each human_dev set and the recipe's synthetic dev (dev split of its corpora)."""
    recipe = recipe_from_mapping(read_recipe_mapping(recipe_path, {}), str(recipe_path))
    dev_documents = sample_documents(recipe.data, "dev")
    examples = [make_example(document, dev_documents, recipe.data, epoch=0) for document in dev_documents]
    rated = [load_human_dev_set(name) for name in HUMAN_DEV_SETS]
    rated_texts = {item.name: [index for index, text in enumerate(item.texts)
                               if dev_half(item.name, text.group) == DEV_SELECT] for item in rated}
    checks = build_dev_texts(dev_documents)
    bands = {SHORT: spread(checks.texts, SHORT_BAND_TEXTS), LONG: long_texts(dev_documents, rated, rated_texts)}
    return DevData(rated, rated_texts, examples, checks, build_extractive_texts(dev_documents), bands)


class GlobalAndLocal:
    """A checkpoint's whole-text scores and pair scores of sentence lists, each distinct text scored once."""

    def __init__(self, model: str) -> None:
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

    def parts_whole(self, documents: Sequence[Sequence[str]]) -> List[float]:
        """Whole-text scores alone."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(self.scorer.score([list(document) for document in documents]).scores)

    def parts(self, documents: Sequence[Sequence[str]]) -> Tuple[List[float], List[List[float]]]:
        """Whole-text scores and per-text transition scores."""
        whole = self.parts_whole(documents)
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
    result.update(run_dev_checks(data.checks, _given(mixed["checks"])))
    result.update(system_agreement(data.rated, data.rated_texts, mixed))
    if data.extractive is not None:
        result.update(run_extractive_checks(data.extractive, _given(mixed["extractive"])))
    if data.bands is not None:
        result.update(run_band_checks(data.bands, _given(mixed["bands"])))
    return result


def _given(scores: Sequence[float]) -> Scorer:
    """A scorer for a check that scores its texts in one call: the scores already computed for exactly those
    texts (a count that differs means the scores were made for other texts, so it is refused)."""
    def score(texts: List[List[str]]) -> List[float]:
        if len(texts) != len(scores):
            raise ValueError(f"{len(scores)} scores for {len(texts)} dev texts: score dev_documents(data) again")
        return list(scores)
    return score


def _check_documents(checks: DevTexts) -> List[List[str]]:
    """The texts ``run_dev_checks`` scores, in its order."""
    return checks.texts + checks.shuffles + [text[:1] for text in checks.texts] + checks.lengths


def dev_documents(data: DevData) -> Dict[str, List[List[str]]]:
    """Every dev text an option is scored on, keyed by part (each human_dev set's dev-select texts, ``synthetic``:
    positives then each example's negatives, ``checks``, ``extractive`` and ``bands`` when the data has them), in
    the order :func:`evaluate_option` reads the scores."""
    documents: Dict[str, List[List[str]]] = {
        rated.name: [list(rated.texts[index].sentences) for index in data.rated_texts[rated.name]]
        for rated in data.rated}
    documents["synthetic"] = ([example.positive for example in data.examples]
                              + [negative for example in data.examples for _, negative in example.negatives])
    documents["checks"] = _check_documents(data.checks)
    if data.extractive is not None:
        documents["extractive"] = extractive_documents(data.extractive)
    if data.bands is not None:
        documents["bands"] = band_documents(data.bands)
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
    dev, the order and truncation checks, and the style and length numbers where present (extract vs lead /
    shuffle, long first / third / half > whole, mean system tau)."""
    note = "".join(f" {label} {option[key]['difference']:+.3f} {option[key]['interval']}"
                   for label, key in comparisons if key in option)
    line = (f"human {option['human_mean']:.3f} "
            f"({', '.join(f'{k} {v:.3f}' for k, v in option['human'].items())}){note} | "
            f"synth acc {option['synthetic_accuracy']:.3f} auc {option['synthetic_auc']:.3f} | "
            f"own_shuffle {option['own_shuffle']:.3f} first>whole {option['first_beats_whole']:.3f} "
            f"gap_sd {option['truncation_gap_sd']:+.2f} count_rho {option['count_spearman']:+.2f}")
    if "extractive_vs_lead" in option:
        line += f" | extract>lead {option['extractive_vs_lead']:.3f} >shuf {option['extractive_vs_shuffle']:.3f}"
    if f"{LONG}_first_beats_whole" in option:
        line += " long>whole " + "/".join(f"{option[f'{LONG}_{cut}_beats_whole']:.2f}"
                                          for cut in ("first", "first_third", "first_half"))
    if option.get("system_tau_mean") is not None:
        line += f" | sys_tau {option['system_tau_mean']:+.2f}"
    return line


def score_whole(data: DevData, model: str) -> Dict[str, List[float]]:
    """A checkpoint's whole-text scores on every dev text, keyed by part (no transitions: weight 0 only)."""
    scorer = GlobalAndLocal(model)
    return {key: scorer.parts_whole(texts) for key, texts in dev_documents(data).items()}


def read_saved_scores(path: Path, data: DevData) -> Dict[str, List[float]]:
    """Whole-text scores a GPU run saved (``python -m tools.gpu_route on-device``: ``scores-STEP.json.gz``), checked
    against the dev texts they must belong to (same parts, same counts: the dev data of another commit is refused)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        scores = json.load(handle)
    expected = {key: len(texts) for key, texts in dev_documents(data).items()}
    found = {key: len(values) for key, values in scores.items()}
    if found != expected:
        raise SystemExit(f"{path}: scores for {found}, but this dev data has {expected} texts")
    return scores


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="*")
    parser.add_argument("--weights", default="0", help="local-term weights to try, comma-separated")
    parser.add_argument("--whole-only", action="store_true",
                        help="score whole texts only (weight 0, no transitions): several times faster")
    parser.add_argument("--scores", action="append", default=[], type=Path, metavar="SCORES_JSON_GZ",
                        help="also an option from whole-text scores a GPU run saved (weight 0), compared with the rest")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if not args.checkpoints and not args.scores:
        parser.error("name at least one checkpoint or --scores file")
    weights = [0.0] if args.whole_only else [float(value) for value in args.weights.split(",")]
    started = time.perf_counter()
    data = load_dev_data()
    options: List[Dict[str, Any]] = []
    for checkpoint in args.checkpoints:
        if args.whole_only:
            whole = score_whole(data, checkpoint)
            transitions: Dict[str, List[List[float]]] = {key: [] for key in whole}
        else:
            whole, transitions = score_checkpoint(data, checkpoint)
        for weight in weights:
            option = evaluate_option(data, whole, transitions, weight)
            option["checkpoint"] = checkpoint
            options.append(option)
    for path in args.scores:
        whole = read_saved_scores(path, data)
        option = evaluate_option(data, whole, {key: [] for key in whole}, 0.0)
        option["checkpoint"] = str(path)
        options.append(option)
    baseline = options[0]
    for option in options:
        option["vs_first"] = paired_difference(baseline["credits"], option["credits"])
    for option in options:
        del option["credits"]
    write_output(json.dumps({"options": options, "seconds": time.perf_counter() - started}, indent=1), args.out)
    for option in options:
        print(f"{option['checkpoint']} w={option['weight']}: "
              + option_summary(option, [("vs first", "vs_first")]))


if __name__ == "__main__":
    main()
