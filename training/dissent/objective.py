"""The DisSent objective for :class:`coherence_metric.training.loop.ObjectiveLoop`: marker cross-entropy over pairs.

One objective serves both models (BiLSTM and fine-tuned transformer): each maps lists of S1 and S2
texts to marker logits. Batches are addressed by position: position p lies in epoch p // n_batches, whose
order is a shuffle seeded with (seed, epoch), so a resumed run sees exactly the batches it would have.
Held-out numbers are accuracy and macro-F1 over the markers (scikit-learn), the paper's two columns of
Table 5; "accuracy" is what the loop selects on and what the plateau rule watches.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Dict, List, Tuple, Union

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from coherence_metric.errors import InputError

from .dataset import PairSet
from .encoder import save_trained
from .finetune import PairTransformer
from .model import DisSentBiLSTM

Model = Union[DisSentBiLSTM, PairTransformer]


def marker_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the true markers (softmax over the marker set)."""
    return F.cross_entropy(logits, labels)


def marker_scores(labels: List[int], predictions: List[int], classes: int) -> Dict[str, float]:
    """Accuracy and macro-F1 (unweighted mean over all markers of the set, absent ones scoring 0)."""
    from sklearn.metrics import accuracy_score, f1_score

    if not labels:
        raise InputError("no held-out pairs to score")
    return {"accuracy": float(accuracy_score(labels, predictions)),
            "macro_f1": float(f1_score(labels, predictions, labels=list(range(classes)), average="macro",
                                       zero_division=0))}


class DisSentObjective:
    """Marker prediction over a train :class:`PairSet`, evaluated on a dev one."""

    def __init__(self, model: Model, train: PairSet, dev: PairSet, batch_size: int = 64,
                 eval_batch_size: int = 256, seed: int = 0) -> None:
        if len(train) == 0:
            raise InputError("no training pairs for this marker set: extract from more text or use a larger set")
        if len(dev) == 0:
            raise InputError("no dev pairs for this marker set: extract from more documents")
        if batch_size < 1 or eval_batch_size < 1:
            raise InputError("objective.batch_size and objective.eval_batch_size must be positive")
        self.module: nn.Module = model
        self.train = train
        self.dev = dev
        self.batch_size = batch_size
        self.eval_batch_size = eval_batch_size
        self.seed = seed
        self.batches_per_epoch = math.ceil(len(train) / batch_size)

    def batch(self, position: int) -> List[int]:
        """Row numbers of the training pairs at a stream position (deterministic in the position)."""
        epoch, slot = divmod(position, self.batches_per_epoch)
        order = list(range(len(self.train)))
        random.Random(self.seed * 1_000_003 + epoch).shuffle(order)
        return order[slot * self.batch_size: (slot + 1) * self.batch_size]

    def loss(self, batch: List[int]) -> Tuple[torch.Tensor, Dict[str, float]]:
        """Cross-entropy of the batch, and its accuracy."""
        logits = self.module([self.train.s1[row] for row in batch], [self.train.s2[row] for row in batch])
        labels = torch.tensor([self.train.labels[row] for row in batch], device=logits.device)
        loss = marker_loss(logits, labels)
        accuracy = float((logits.argmax(dim=-1) == labels).float().mean())
        return loss, {"train_accuracy": accuracy}

    def predict(self, pairs: PairSet) -> List[int]:
        """The most likely marker index of every pair (eval mode, no gradients)."""
        was_training = self.module.training
        self.module.eval()
        predictions: List[int] = []
        with torch.no_grad():
            for start in range(0, len(pairs), self.eval_batch_size):
                logits = self.module(pairs.s1[start: start + self.eval_batch_size],
                                     pairs.s2[start: start + self.eval_batch_size])
                predictions.extend(int(index) for index in np.asarray(logits.argmax(dim=-1).cpu()))
        self.module.train(was_training)
        return predictions

    def evaluate(self) -> Dict[str, float]:
        """Dev accuracy (the selection key) and macro-F1."""
        return marker_scores(self.dev.labels, self.predict(self.dev), len(self.dev.markers))

    def after_step(self) -> None:
        """Nothing: the model has no post-step constraint."""

    def save(self, folder: Path) -> None:
        """Weights, tokenizer and ``trained_encoder.json`` (see :mod:`coherence_metric.training.dissent.encoder`)."""
        save_trained(self.module, folder, self.train.markers)


__all__ = ["DisSentObjective", "marker_loss", "marker_scores"]
