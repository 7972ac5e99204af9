"""Run the DiscoEval probes for one frozen encoder and collect per-task, per-group and average accuracies.

This is the function the CLI wraps (``coherence-metric benchmark discoeval --encoder SPEC``): load each
task, encode its unique text units (through the on-disk cache), build the paper's features, train and tune the
probe, score test once. Group scores average a group's domains (SP = mean of wiki, arXiv, ROCStories, as in the
paper's Table 5 vs Table 2); ``avg`` is the mean of the seven groups and is only given when all of them ran.
"""

from __future__ import annotations

import logging
import math
import platform
import time
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from coherence_metric import __version__
from coherence_metric.research.encoders import SentenceEncoder

from .classifiers import describe_classifier, train_and_test
from .encoder_specs import resolve_encoder
from .encoding_cache import EncodingCache, unique_texts
from .features import build_features, segment_vectors
from .loaders import TaskData, discoeval_data_dir, load_task, overlap_groups
from .reporting import write_reports
from .task_checkpoints import TaskCheckpoints
from .tasks import GROUPS, DiscoEvalTask, select_tasks, tasks_in_group

logger = logging.getLogger("coherence_metric.benchmarks")

DEFAULT_SEED = 1111
"""SentEval's and the upstream DiscoEval evaluator's default seed."""


def run_discoeval(encoder_spec: Union[str, SentenceEncoder], tasks: Optional[Iterable[str]] = None,
                  limit: Optional[int] = None, out_dir: Union[str, Path, None] = None, seed: int = DEFAULT_SEED,
                  data_dir: Union[str, Path, None] = None, cache_dir: Union[str, Path, None] = None,
                  use_cache: bool = True) -> Dict[str, Any]:
    """Evaluate a frozen sentence encoder on DiscoEval.

    Args:
        encoder_spec: an encoder spec (``minilm``, ``hf:PATH[:layer=N][:pool=cls|mean]``, see
            :mod:`coherence_metric.benchmarks.discoeval.encoder_specs`) or a :class:`SentenceEncoder` object.
        tasks: task or group names (``SP``, ``SP/wiki``, ``PDTB-E``, ``RST``...); None runs all twelve tasks.
        limit: at most this many rows per split, a seeded subset (smoke runs; such results are flagged).
        out_dir: if given, write the JSON result, the Markdown table and the PNG chart there.
        seed: seeds the ``limit`` subsets, the inner valid split of tasks without train data and the DC MLP.
        data_dir: DiscoEval folder (default ``<shared data>/discoeval``).
        cache_dir: encoding cache folder (default ``~/.cache/coherence_metric/discoeval`` or
            ``$COHERENCE_METRIC_DISCOEVAL_CACHE``).
        use_cache: False encodes everything afresh and writes nothing to the cache.

    Returns:
        A JSON-ready dict: ``tasks`` (per-task accuracies, sizes, chosen settings, ``trained_on_valid``),
        ``domains`` (accuracy per group and domain), ``groups`` (SP ... RST-DT and ``avg``; None where a group
        is incomplete), ``flags``, ``encoder``, ``cache`` (hits/misses), ``seconds`` and, with ``out_dir``,
        ``outputs`` (written file paths).

    Raises:
        InputError: unknown task or encoder spec, bad limit, or missing data.
    """
    started = time.perf_counter()
    encoder = resolve_encoder(encoder_spec)
    selected = select_tasks(tasks)
    folder = discoeval_data_dir(data_dir)
    cache = EncodingCache(cache_dir, enabled=use_cache)
    checkpoints = TaskCheckpoints(Path(out_dir) if out_dir is not None and use_cache else None,
                                  _checkpoint_key(encoder, seed, limit, folder))
    task_results: Dict[str, Dict[str, Any]] = {}
    resumed: List[str] = []
    for task in selected:
        row = checkpoints.load(task.name)
        if row is not None and row.get("classifier") == describe_classifier(task.classifier):
            logger.info("%s: test %.2f, resumed from %s", task.name, row["test_accuracy"], checkpoints.folder)
            resumed.append(task.name)
        else:
            row = run_task(task, encoder, cache, folder, limit, seed)
            checkpoints.save(task.name, row)
        task_results[task.name] = row
    groups = group_scores(task_results, selected)
    incomplete = [group for group in GROUPS if groups.get(group) is None]
    result: Dict[str, Any] = {
        "suite": "discoeval",
        "encoder": {"spec": encoder_spec if isinstance(encoder_spec, str) else encoder.name,
                    "name": encoder.name, "signature": encoder.signature},
        "seed": seed,
        "limit": limit,
        "tasks": task_results,
        "domains": domain_scores(task_results),
        "groups": groups,
        "flags": {
            "trained_on_valid": [name for name, row in task_results.items() if row["trained_on_valid"]],
            "limited": limit is not None,
            "incomplete_groups": incomplete,
        },
        "cache": {"dir": str(cache.root) if use_cache else None, "hits": cache.stats.hits,
                  "misses": cache.stats.misses},
        "resumed": {"tasks": resumed, "seconds": round(sum(
            task_results[name]["seconds_encoding"] + task_results[name]["seconds_classifier"] for name in resumed), 2)},
        "versions": _versions(),
        "seconds": round(time.perf_counter() - started, 2),
    }
    if out_dir is not None:

        result["outputs"] = write_reports(result, out_dir)
        result["seconds"] = round(time.perf_counter() - started, 2)
        checkpoints.clear()
    logger.info("DiscoEval with %s done in %.1f s: avg %s", encoder.name, result["seconds"], groups.get("avg"))
    return result


def run_task(task: DiscoEvalTask, encoder: SentenceEncoder, cache: EncodingCache, data_dir: Path,
             limit: Optional[int], seed: int) -> Dict[str, Any]:
    """Load, encode, featurise, train and score one task.

    Args:
        task: the task.
        encoder: the frozen encoder.
        cache: encoding cache.
        data_dir: DiscoEval folder.
        limit: rows per split (None for all).
        seed: see :func:`run_discoeval`.

    Returns:
        The task's row of the result (accuracies in percent, sizes, chosen setting, timings, flags).
    """
    started = time.perf_counter()
    data = load_task(task, data_dir, limit=limit, seed=seed)
    matrices = {split: _features(task, data, split, encoder, cache) for split in data.splits}
    encoded = time.perf_counter()
    outcome = train_and_test(task.classifier, matrices.get("train"), matrices["valid"], matrices["test"],
                             num_classes=len(data.label_names), seed=seed,
                             valid_groups=overlap_groups(data.splits["valid"]) if data.train_from_valid else None)
    finished = time.perf_counter()
    logger.info("%s: test %.2f (valid %.2f, %s)%s", task.name, outcome.test_accuracy, outcome.valid_accuracy,
                outcome.chosen, " [trained on valid]" if outcome.trained_on_valid else "")
    return {
        "group": task.group,
        "domain": task.domain,
        "test_accuracy": outcome.test_accuracy,
        "valid_accuracy": outcome.valid_accuracy,
        "trained_on_valid": outcome.trained_on_valid,
        "n_train": len(data.splits["train"]) if "train" in data.splits else None,
        "n_valid": len(data.splits["valid"]),
        "n_test": len(data.splits["test"]),
        "n_fit": outcome.n_fit,
        "n_tune": outcome.n_tune,
        "num_labels": len(data.label_names),
        "feature_dim": int(matrices["test"][0].shape[1]),
        "classifier": outcome.classifier,
        "chosen": {key: _json_number(value) for key, value in outcome.chosen.items()},
        "tuning_curve": outcome.tuning_curve,
        "ldc_derived": task.licence_note is not None,
        "seconds_encoding": round(encoded - started, 2),
        "seconds_classifier": round(finished - encoded, 2),
    }


def domain_scores(task_results: Dict[str, Dict[str, Any]]) -> Dict[str, Dict[str, float]]:
    """Test accuracy per group and domain (``{"SP": {"wiki": 41.2, ...}, ...}``), the paper's Table 5 layout."""
    scores: Dict[str, Dict[str, float]] = {}
    for row in task_results.values():
        scores.setdefault(row["group"], {})[row["domain"]] = row["test_accuracy"]
    return scores


def group_scores(task_results: Dict[str, Dict[str, Any]], selected: List[DiscoEvalTask]) -> Dict[str, Any]:
    """Average test accuracy per group over its domains, and ``avg`` over the seven groups.

    A group is None unless all its domains ran; ``avg`` is None unless every group has a score, so a partial
    run is never compared with a published average.

    Args:
        task_results: per-task rows from :func:`run_task`.
        selected: the tasks that were asked for.

    Returns:
        ``{"SP": 47.1, ..., "RST-DT": ..., "avg": ...}`` in percent.
    """
    scores: Dict[str, Any] = {}
    for group in GROUPS:
        members = tasks_in_group(group)
        if all(task.name in task_results for task in members):
            scores[group] = float(np.mean([task_results[task.name]["test_accuracy"] for task in members]))
        else:
            scores[group] = None
    values = [scores[group] for group in GROUPS]
    scores["avg"] = float(np.mean(values)) if all(value is not None for value in values) else None
    return scores


def _features(task: DiscoEvalTask, data: TaskData, split: str, encoder: SentenceEncoder,
              cache: EncodingCache) -> tuple:
    examples = data.splits[split]
    texts = unique_texts([unit for example in examples for segment in example.segments for unit in segment])
    encodings = cache.encodings(encoder, task.name, split, texts)
    index = {text: row for row, text in enumerate(texts)}
    features = build_features(task.feature_kind, segment_vectors(examples, index, encodings))
    labels = np.array([example.label for example in examples], dtype=np.int64)
    return features, labels


def _checkpoint_key(encoder: SentenceEncoder, seed: int, limit: Optional[int], data_dir: Path) -> Dict[str, Any]:
    """What a task row depends on besides the task: a partial result is reused only when all of it matches."""
    return {"encoder": encoder.signature, "seed": seed, "limit": limit, "data_dir": str(Path(data_dir).resolve()),
            "versions": _versions()}


def _json_number(value: float) -> Optional[float]:
    return None if math.isnan(value) else float(value)


def _versions() -> Dict[str, str]:
    import sklearn

    return {"coherence_metric": __version__, "numpy": np.__version__, "scikit-learn": sklearn.__version__,
            "python": platform.python_version()}
