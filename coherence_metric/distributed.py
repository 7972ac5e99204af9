"""Scoring millions of texts on a Ray cluster: ``score_dataset`` maps a Ray Data dataset through scorer actors.

One actor per worker slot loads the checkpoint once and scores batch after batch (``map_batches`` with a callable
class), so the cost of loading is paid per actor, not per batch, and Ray handles scheduling, retries, spilling and
reading/writing JSONL or Parquet from local disks or object stores. A text's score does not depend on which other
texts share its batch (up to float noise, about 1e-6), so the scores equal single-process ones within 1e-5. Ray is
imported only when this runs (``pip install 'coherence-metric[integrations]'``); pointing at a cluster is Ray's
business: ``ray.init(address=...)`` or ``RAY_ADDRESS`` before calling, as docs/integrations.md shows.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from .errors import InputError
from .registry import DEFAULT_MODEL

__all__ = ["ScorerActor", "dataset_signature", "score_dataset"]

DEFAULT_TEXTS_PER_BATCH = 256
"""Texts handed to an actor at once; the scorer then batches them by tokens (length-sorted) inside."""


class ScorerActor:
    """A Ray Data callable class: loads ``CoherenceScorer(model, **settings)`` once, then scores each batch's
    ``column`` into ``output_column``."""

    def __init__(self, model: str, column: str, output_column: str, threads: int, settings: Dict[str, Any]) -> None:
        import torch

        from .scorer import CoherenceScorer

        torch.set_num_threads(max(1, threads))  # one actor per CPU slot: without this each would use every core
        self.scorer = CoherenceScorer(model, **settings)
        self.column = column
        self.output_column = output_column

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, Any]:
        import numpy as np

        if self.column not in batch:
            raise InputError(f"the dataset has no column {self.column!r} (its columns: {', '.join(batch)})")
        result = self.scorer.score(batch[self.column])
        return {**batch, self.output_column: np.asarray(result.scores, dtype=np.float64)}


def score_dataset(dataset: Any, column: str = "text", output_column: str = "coherence",
                  model: str = DEFAULT_MODEL, *, actors: Optional[int] = None, cpus_per_actor: float = 1,
                  gpus_per_actor: float = 0, texts_per_batch: int = DEFAULT_TEXTS_PER_BATCH,
                  device: Optional[str] = None, dtype: Optional[str] = None, batch_size: int = 32,
                  max_length: Optional[int] = None, truncation: str = "window", revision: Optional[str] = None,
                  local_files_only: bool = False) -> Any:
    """A lazy Ray dataset: ``dataset`` with ``output_column`` holding each row's coherence score.

    Args:
        dataset: a ``ray.data.Dataset`` with a ``column`` of texts (strings or lists of sentences).
        actors: scorer actors (each loads the checkpoint once); None: the cluster's CPUs less one (left to the
            read and write tasks) divided by what one actor asks for, or its GPUs with ``gpus_per_actor``. Actors
            asking for every CPU starve the read and write tasks, and the job never ends.
        cpus_per_actor: CPUs of one actor; its torch threads follow it.
        gpus_per_actor: GPUs of one actor.
        texts_per_batch: rows handed to an actor at a time.
        device: ``CoherenceScorer``'s setting, as are the six below.
        dtype: the compute dtype.
        batch_size: most texts per forward pass.
        max_length: most tokens per text.
        truncation: the policy for longer texts.
        revision: the Hub revision.
        local_files_only: never use the network.

    Nothing runs until the dataset is consumed (``write_parquet``, ``take``, ``iter_batches``...). Call
    ``ray.init(...)`` first to pick the cluster; otherwise Ray starts a local one.
    """
    if not isinstance(texts_per_batch, int) or texts_per_batch < 1:
        raise InputError(f"texts_per_batch must be a positive integer, got {texts_per_batch!r}")
    if actors is not None and (not isinstance(actors, int) or actors < 1):
        raise InputError(f"actors must be a positive integer, got {actors!r}")
    if actors is None:
        actors = _default_actors(cpus_per_actor, gpus_per_actor)
    settings = {"device": device, "dtype": dtype, "batch_size": batch_size, "max_length": max_length,
                "truncation": truncation, "revision": revision, "local_files_only": local_files_only}
    return dataset.map_batches(
        ScorerActor,
        fn_constructor_kwargs={"model": model, "column": column, "output_column": output_column,
                               "threads": int(cpus_per_actor), "settings": settings},
        batch_size=texts_per_batch,
        batch_format="numpy",
        concurrency=actors,
        num_cpus=cpus_per_actor,
        num_gpus=gpus_per_actor,
    )


def _default_actors(cpus_per_actor: float, gpus_per_actor: float) -> int:
    """As many actors as the cluster fits, less one CPU's worth (at least one): actors holding every CPU left the
    read and write tasks none, and the job waited forever (seen on a 2-CPU cluster with 2 actors)."""
    import ray

    if not ray.is_initialized():
        ray.init()
    resources = ray.cluster_resources()
    if gpus_per_actor:
        return max(1, int(resources.get("GPU", 0) // gpus_per_actor))
    return max(1, int((resources.get("CPU", 1) - 1) // max(cpus_per_actor, 1e-9)))


def dataset_signature(model: str = DEFAULT_MODEL, *, device: Optional[str] = None, dtype: Optional[str] = None,
                      max_length: Optional[int] = None, truncation: str = "window", revision: Optional[str] = None,
                      local_files_only: bool = False) -> str:
    """The signature of scores from ``score_dataset`` with these settings (loads the scorer on the caller once).

    Each actor counts its own truncated texts and nobody adds them up, so the count reads ``ntrunc:n/a``;
    everything else is what a single-process run prints.
    """
    from .scorer import get_scorer

    scorer = get_scorer(model, device=device, dtype=dtype, max_length=max_length, truncation=truncation,
                        revision=revision, local_files_only=local_files_only)
    return str(scorer.signature).replace("|ntrunc:0|", "|ntrunc:n/a|")
