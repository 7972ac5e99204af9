"""Scoring millions of texts on a Ray cluster: ``score_dataset`` maps a Ray Data dataset through scorer actors.

One actor per worker slot loads the checkpoint once and scores batch after batch (``map_batches`` with a callable
class), so the cost of loading is paid per actor, not per batch, and Ray handles scheduling, retries, spilling and
reading/writing JSONL or Parquet from local disks or object stores. A text's score does not depend on which other
texts share its batch (up to float noise, about 1e-6), so the scores equal single-process ones within 1e-5. Ray is
imported only when this runs (the ``integrations`` extra); pointing at a cluster is Ray's
business: ``ray.init(address=...)`` or ``RAY_ADDRESS`` before calling, as docs/integrations.md shows.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Tuple

from .errors import InputError
from .inputs.ray_io import json_line, scored_line
from .models.registry import DEFAULT_MODEL
from .settings import ScorerSettings

# The public API (docs/reference/api.md); JsonLinesScorer, fitting_actors and score_json_lines serve `score --ray`.
__all__ = ["ScorerActor", "dataset_signature", "score_dataset"]

logger = logging.getLogger("coherence_metric")

DEFAULT_TEXTS_PER_BATCH = 256
"""Texts handed to an actor at once; the scorer then batches them by tokens (length-sorted) inside."""


class SignatureTally:
    """What the actors scored with: each distinct signature (dtype and all, as the actor resolved it on its own
    hardware) with its texts and truncated texts. The driver's own signature could differ: a CPU driver with bf16
    actors signed ``dtype:fp32``, and it could not know the truncation count.

    ``create()`` starts it as a small Ray actor (no CPU); pass it to :func:`score_dataset`, consume the dataset, then
    ``signatures()``.
    """

    def __init__(self) -> None:
        self._counts: Dict[str, List[int]] = {}

    @classmethod
    def create(cls) -> Any:
        """A handle on a new tally actor."""
        import ray

        return ray.remote(num_cpus=0)(cls).remote()

    def add(self, signature: str, n_texts: int, n_truncated: int) -> None:
        """Count one scored batch."""
        counts = self._counts.setdefault(signature, [0, 0])
        counts[0] += n_texts
        counts[1] += n_truncated

    def signatures(self) -> List[str]:
        """Each distinct signature with its truncation count filled in, most texts first."""
        ordered = sorted(self._counts.items(), key=lambda item: -item[1][0])
        return [signature.replace("|ntrunc:0|", f"|ntrunc:{truncated}|") for signature, (_, truncated) in ordered]


class ScorerActor:
    """A Ray Data callable class: loads ``CoherenceScorer(model, settings=settings)`` once, then scores each batch's
    ``column`` into ``output_column``, reporting each batch's signature and truncation count to ``tally``.

    Batches are Arrow tables and the score is appended as one more column, so every other column keeps its type
    (through numpy, an integer column with nulls came back as floats)."""

    def __init__(self, model: str, column: str, output_column: str, threads: int, settings: ScorerSettings,
                 tally: Any = None) -> None:
        import torch

        from .scorer import CoherenceScorer

        torch.set_num_threads(max(1, threads))  # one actor per CPU slot: without this each would use every core
        self.scorer = CoherenceScorer(model, settings=settings)
        self.column = column
        self.output_column = output_column
        self.tally = tally

    def _score(self, texts: List[Any]) -> List[float]:
        if not texts:
            return []
        result = self.scorer.score(texts)
        if self.tally is not None:
            import ray

            # waited for, so every batch is counted before the driver reads the tally after consuming the dataset
            ray.get(self.tally.add.remote(str(self.scorer.signature), len(result.scores), result.n_truncated))
        return list(result.scores)

    def __call__(self, batch: Any) -> Any:
        import pyarrow

        if self.column not in batch.column_names:
            raise InputError(f"the dataset has no column {self.column!r} (its columns: "
                             f"{', '.join(batch.column_names)})")
        if self.output_column in batch.column_names:
            raise InputError(f"the dataset already has a column {self.output_column!r}: pass another output_column")
        scores = self._score(batch.column(self.column).to_pylist())
        return batch.append_column(self.output_column, pyarrow.array(scores, pyarrow.float64()))


class JsonLinesScorer(ScorerActor):
    """Scores rows of JSONL lines (``inputs.ray_io.json_lines_datasource``): each line's ``column`` field, written back
    as the same JSON object with ``output_column`` added (``line``), every other field exactly as it was."""

    def __call__(self, batch: Any) -> Any:
        import pyarrow

        parsed = [scored_line(line, number, name, self.column, self.output_column)
                  for line, number, name in zip(batch.column("line").to_pylist(), batch.column("number").to_pylist(),
                                                batch.column("file").to_pylist())]
        scores = self._score([text for text, _ in parsed])
        lines = [json_line(record, self.output_column, score) for (_, record), score in zip(parsed, scores)]
        return pyarrow.table({"line": pyarrow.array(lines, pyarrow.string())})


def score_dataset(dataset: Any, column: str = "text", output_column: str = "coherence",
                  model: str = DEFAULT_MODEL, *, actors: Optional[int] = None, cpus_per_actor: float = 1,
                  gpus_per_actor: float = 0, texts_per_batch: int = DEFAULT_TEXTS_PER_BATCH, tally: Any = None,
                  settings: Optional[ScorerSettings] = None, **overrides: Any) -> Any:
    """A lazy Ray dataset: ``dataset`` with ``output_column`` holding each row's coherence score.

    Args:
        dataset: a ``ray.data.Dataset`` with a ``column`` of texts (strings or lists of sentences), and no
            ``output_column`` (a dataset that has one is refused when its first batch is scored, never overwritten).
        actors: scorer actors (each loads the checkpoint once); None: the cluster's CPUs less one (left to the
            read and write tasks) divided by what one actor asks for, or its GPUs with ``gpus_per_actor``. Actors
            asking for every CPU starve the read and write tasks, and the job never ends: more than fit are cut to
            what fits, with a warning.
        cpus_per_actor: CPUs of one actor; its torch threads follow it.
        gpus_per_actor: GPUs of one actor.
        texts_per_batch: rows handed to an actor at a time.
        tally: a ``SignatureTally.create()`` handle; the actors report to it what they scored with, so the signature
            names the dtype they ran and the truncation count (``ray.get(tally.signatures.remote())`` after the
            dataset is consumed).
        settings: the actors' ``CoherenceScorer`` settings (a ``coherence_metric.ScorerSettings``; None: its
            defaults).
        **overrides: ``ScorerSettings`` fields by name (``dtype="fp32"``, ``batch_size=64``), in place of those of
            ``settings``.

    Nothing runs until the dataset is consumed (``write_parquet``, ``take``, ``iter_batches``...). Call
    ``ray.init(...)`` first to pick the cluster; otherwise Ray starts a local one. Every column other than
    ``output_column`` keeps its Arrow type.
    """
    return _map_scorer(ScorerActor, dataset, column, output_column, model, actors, cpus_per_actor, gpus_per_actor,
                       texts_per_batch, tally, ScorerSettings.of(settings, overrides))


def score_json_lines(dataset: Any, column: str, output_column: str, model: str, *, actors: Optional[int] = None,
                     tally: Any = None, settings: Optional[ScorerSettings] = None) -> Any:
    """``score_dataset`` for a dataset of JSONL lines (``inputs.ray_io.json_lines_datasource``): a dataset of one
    ``line`` column, each the input line's JSON object with ``output_column`` added."""
    return _map_scorer(JsonLinesScorer, dataset, column, output_column, model, actors, 1, 0,
                       DEFAULT_TEXTS_PER_BATCH, tally, settings or ScorerSettings())


def _map_scorer(actor_class: Any, dataset: Any, column: str, output_column: str, model: str, actors: Optional[int],
                cpus_per_actor: float, gpus_per_actor: float, texts_per_batch: int, tally: Any,
                settings: ScorerSettings) -> Any:
    if isinstance(texts_per_batch, bool) or not isinstance(texts_per_batch, int) or texts_per_batch < 1:
        raise InputError(f"texts_per_batch must be a positive integer, got {texts_per_batch!r}")
    if actors is not None and (isinstance(actors, bool) or not isinstance(actors, int) or actors < 1):
        raise InputError(f"actors must be a positive integer, got {actors!r}")
    actors, warning = fitting_actors(actors, cpus_per_actor, gpus_per_actor)
    if warning:
        logger.warning("%s", warning)
    import ray.data

    return dataset.map_batches(
        actor_class,
        fn_constructor_kwargs={"model": model, "column": column, "output_column": output_column,
                               "threads": int(cpus_per_actor), "settings": settings, "tally": tally},
        batch_size=texts_per_batch,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=actors),
        num_cpus=cpus_per_actor,
        num_gpus=gpus_per_actor,
    )


def fitting_actors(actors: Optional[int], cpus_per_actor: float = 1,
                   gpus_per_actor: float = 0) -> Tuple[int, Optional[str]]:
    """How many actors to start, and a warning when ``actors`` asked for more than the cluster fits.

    As many actors as the cluster fits, less one CPU's worth (at least one): actors holding every CPU left the read
    and write tasks none, and the job waited forever without a word (2 actors on a 2-CPU cluster; ``--actors 8``
    too). An explicit count above that is cut to it. The cluster is measured as it is now: an autoscaling cluster
    that would grow is not waited for."""
    import ray

    if not ray.is_initialized():
        ray.init()
    resources = ray.cluster_resources()
    if gpus_per_actor:
        fit = max(1, int(resources.get("GPU", 0) // gpus_per_actor))
        room = f"{resources.get('GPU', 0):g} GPUs"
    else:
        fit = max(1, int((resources.get("CPU", 1) - 1) // max(cpus_per_actor, 1e-9)))
        room = f"{resources.get('CPU', 0):g} CPUs, one left to reading and writing"
    if actors is None:
        return fit, None
    if actors <= fit:
        return actors, None
    return fit, (f"{actors} scorer actors do not fit this cluster ({room}): starting {fit}; more would wait for "
                 "resources that never come")


def dataset_signature(model: str = DEFAULT_MODEL, *, settings: Optional[ScorerSettings] = None,
                      **overrides: Any) -> str:
    """The signature of scores from ``score_dataset`` with these settings (a ``ScorerSettings`` and/or its fields by
    name, as ``score_dataset`` takes them), as the caller would compute them (loads the scorer here once). Actors on
    other hardware may resolve another dtype, and the truncation count is unknown here (``ntrunc:n/a``): pass a
    ``SignatureTally`` to ``score_dataset`` for what the actors did.
    """
    from .scorer import get_scorer

    scorer = get_scorer(model, settings=settings, **overrides)
    return str(scorer.signature).replace("|ntrunc:0|", "|ntrunc:n/a|")
