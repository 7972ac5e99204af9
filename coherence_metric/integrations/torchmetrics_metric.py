"""``CoherenceMetric``: the metric as a torchmetrics ``Metric``, so Lightning validation loops can log it.

``update(texts)`` scores a batch of generated texts and keeps the per-text scores; ``compute()`` returns the system
score (their mean) as a scalar tensor, which ``self.log(...)`` accepts. The scores are a list state reduced by
concatenation, so under DDP every process's scores are gathered before ``compute`` (each rank scores only its own
shard of the validation set, and the logged number is the mean over all of them, not over rank 0's shard).

The scorer is not part of the module: it is the process's cached one (``coherence_metric.get_scorer``) or the one
passed in, so the checkpoint is loaded once per process, never saved in the Lightning checkpoint, and not copied
when torchmetrics copies a metric.
"""

from __future__ import annotations

import math
import os
from typing import Any, Iterable, List, Optional, Union

import torch
import torchmetrics
from torchmetrics.utilities import dim_zero_cat

__all__ = ["CoherenceMetric"]

from ..errors import InputError
from ..inputs.containers import as_text_list
from ..inputs.empty import check_on_empty, errors_renamed, input_positions, split_empty_texts
from ..models.registry import DEFAULT_MODEL, resolve_model
from ..scoring.runtime import resolve_device, resolve_dtype
from ..settings import ScorerSettings


def _check_early(model: Any, settings: ScorerSettings) -> None:
    """Refuse what the first ``update()`` would refuse (an unknown model, a device or dtype this machine cannot
    run) when the metric is built: a Lightning run otherwise found out after its first training epoch. The other
    settings were checked when ``settings`` was built."""
    if not isinstance(model, (str, os.PathLike)):
        if not callable(getattr(model, "score", None)):
            raise InputError(f"model must be a model name, a checkpoint folder or a CoherenceScorer, got "
                             f"{type(model).__name__}")
        return
    resolve_dtype(settings.dtype, resolve_device(settings.device))
    resolve_model(model, revision=settings.revision, local_files_only=settings.local_files_only)


class CoherenceMetric(torchmetrics.Metric):
    """Coherence of generated texts for training loops; higher is better.

    Args:
        model: a model name or checkpoint folder (a string or a ``pathlib.Path``) for the cached scorer, or a
            ``CoherenceScorer``. A name that resolves to nothing and bad settings are refused here, not at the first
            ``update()``; the checkpoint itself loads at the first ``update()``.
        on_empty: what an empty text given to ``update`` (None, NaN, or whitespace or invisible characters only)
            does: ``"error"`` (the default) refuses the batch, naming every one; ``"skip"`` leaves it out;
            ``"nan"`` keeps a NaN in ``per_text_scores()``. Either way ``compute()`` is the mean of the texts
            scored, and each ``update`` with empty texts warns how many; a batch of empty texts only is no error.
        settings: the cached scorer's settings, a ``coherence_metric.ScorerSettings`` (ignored when ``model`` is a
            scorer, as are its fields below).
        **kwargs: ``ScorerSettings`` fields by name (``dtype="fp32"``, ``batch_size=32``), in place of those of
            ``settings``; every other keyword is a torchmetrics ``Metric`` option (``sync_on_compute``,
            ``process_group``, ...).

    Attributes:
        signature: the signature of the last scores (a string), to log beside the number.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    scores: List[torch.Tensor]

    def __init__(self, model: Union[str, Any] = DEFAULT_MODEL, *, on_empty: str = "error",
                 settings: Optional[ScorerSettings] = None, **kwargs: Any) -> None:
        names = ScorerSettings.names()
        overrides = {name: kwargs.pop(name) for name in list(kwargs) if name in names}
        self._on_empty = check_on_empty(on_empty)
        super().__init__(**kwargs)
        # not self._device/_dtype: torchmetrics keeps its states' device and dtype there
        self._scorer_settings = ScorerSettings.of(settings, overrides)
        _check_early(model, self._scorer_settings)
        self._model = model
        self.signature: Optional[str] = None
        self.add_state("scores", default=[], dist_reduce_fx="cat")

    def _scorer(self) -> Any:
        if not isinstance(self._model, (str, os.PathLike)):
            return self._model
        from ..scorer import get_scorer

        return get_scorer(self._model, settings=self._scorer_settings)

    def update(self, texts: Union[str, Iterable[Any]]) -> None:
        """Score ``texts`` (a string, or any list of texts or sentence lists) and keep their scores; empty texts
        as ``on_empty`` says."""
        if self._on_empty == "error":
            result = self._scorer().score(texts)  # refuses empty texts, naming every one
            self.signature = str(result.signature)
            self.scores.append(torch.tensor(result.scores, dtype=torch.float64, device=self.device))
            return
        documents = as_text_list(texts, keep_missing=True)
        # stacklevel 4: torchmetrics wraps update, so the user's call is one frame further out
        split = split_empty_texts(documents, self._on_empty, stacklevel=4, refuse_all_empty=False)
        scores: List[float] = []
        if split.kept:
            with errors_renamed(input_positions(split.kept)):
                result = self._scorer().score([documents[position] for position in split.kept])
            self.signature = str(result.signature)
            scores = list(result.scores)
        if self._on_empty == "nan":
            by_position = dict(zip(split.kept, scores))
            scores = [by_position.get(position, math.nan) for position in range(len(documents))]
        self.scores.append(torch.tensor(scores, dtype=torch.float64, device=self.device))

    def compute(self) -> torch.Tensor:
        """The system score: the mean of every scored text's score since the last reset, over all processes (NaN
        entries, empty texts under ``on_empty="nan"``, left out)."""
        scores = self._scores()
        scored = scores[~torch.isnan(scores)]
        if scored.numel() == 0:
            raise InputError(f"CoherenceMetric has no scored texts: the {scores.numel()} given to update() were all "
                             "empty")
        return scored.mean()

    def per_text_scores(self) -> torch.Tensor:
        """Every text's score since the last reset, over all processes (rank 0's texts, then rank 1's, ...).
        Under DDP this gathers, so every rank must call it, as with ``compute``."""
        if self._is_synced or not self.sync_on_compute:
            return self._scores()
        with self.sync_context(should_sync=True, should_unsync=True):  # a no-op outside torch.distributed
            return self._scores()

    def _scores(self) -> torch.Tensor:
        scores: Any = self.scores
        if isinstance(scores, list):
            scores = dim_zero_cat(scores) if scores else None
        if scores is None or scores.numel() == 0:
            raise InputError("CoherenceMetric has no texts: call update(texts) before compute()")
        return scores
