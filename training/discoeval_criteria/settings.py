"""The recipe sections of the DiscoEval criteria (``data:``, ``model:``, ``objective:``) and the paper's rows.

Defaults are the authors' released training code's (``train/config.py``, ``train/run.py``): BiGRU of 300 per
direction, 2-layer MLP decoders of 300, 50,000-word vocabularies, 20 position buckets, 7 nesting levels,
batches of 20; every loss weight 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from coherence_metric.errors import InputError

from ..checks import refuse_failed
from ..wordvec import DEFAULT_WORD_VECTORS

LOSSES: Tuple[str, ...] = ("nsp", "nl", "spp", "sdt")

# Table 2 of seed 002: every row trains with NSP; the others add criteria.
ROWS: Dict[str, Tuple[str, ...]] = {
    "Baseline (NSP)": ("nsp",),
    "+ SDT": ("nsp", "sdt"),
    "+ SPP": ("nsp", "spp"),
    "+ NL": ("nsp", "nl"),
    "+ SPP + NL": ("nsp", "spp", "nl"),
    "+ SDT + NL": ("nsp", "sdt", "nl"),
    "+ SDT + SPP": ("nsp", "sdt", "spp"),
    "ALL": ("nsp", "nl", "spp", "sdt"),
}


def row_name(losses: Sequence[str]) -> str:
    """The Table 2 row a set of criteria reproduces ("+ SPP + NL"); order in the list does not matter."""
    chosen = set(losses)
    for name, row in ROWS.items():
        if set(row) == chosen:
            return name
    raise InputError(f"no row of the paper's Table 2 trains with {sorted(chosen)}: every row includes nsp")


@dataclass
class DataSettings:
    """Which WikiExtractor files to read and how much of them.

    ``files``: the first N ``wiki_NN.xz`` files in name order (None: all 100). ``folder``: the corpus folder
    (None: ``<shared data>/corpora/enwiki_wikiextractor_2015``). Training uses the train split's articles
    (:mod:`coherence_metric.research.splits`, ids as the wiki reader makes them), evaluation a fixed shuffled slice of
    ``dev_sentences`` sentences of the dev split's; the test split is never read.
    """

    files: Optional[int] = None
    folder: Optional[str] = None
    min_article_sentences: int = 3
    max_train_articles: Optional[int] = None
    dev_sentences: int = 2000


@dataclass
class ModelSettings:
    """Encoder and decoder sizes; ``max_length`` is in word pieces per sentence; ``device``: where the model
    trains (``cpu``, ``cuda``, ``cuda:1``); batches are built on the CPU and moved there."""

    word_vectors: str = DEFAULT_WORD_VECTORS
    hidden_size: int = 300
    mlp_hidden_size: int = 300
    mlp_layers: int = 2
    dropout: float = 0.0
    max_length: int = 64
    device: str = "cpu"


@dataclass
class CriteriaSettings:
    """The ``objective:`` section: which criteria train (the row of Table 2) and their targets' shapes.

    ``ranking_candidates``: the NSP ranking accuracy of :meth:`DiscoEvalObjective.evaluate` picks the true
    next sentence among this many (chance ``1 / ranking_candidates``).
    """

    losses: List[str] = field(default_factory=lambda: ["nsp"])
    loss_weights: Optional[Dict[str, float]] = None
    batch_size: int = 20
    vocabulary_size: int = 50000
    title_vocabulary_size: int = 50000
    position_buckets: int = 20
    levels: int = 7
    ranking_candidates: int = 10
    eval_batch_size: int = 250

    def weight(self, loss: str) -> float:
        """The weight of a criterion in the total loss (1 unless ``loss_weights`` says otherwise)."""
        return float((self.loss_weights or {}).get(loss, 1.0))

    def check(self, where: str) -> None:
        """Raise InputError naming the bad key."""
        if not isinstance(self.losses, list) or not all(isinstance(loss, str) for loss in self.losses):
            raise InputError(f"{where}: objective.losses must be a list of names from {', '.join(LOSSES)}")
        unknown = sorted(set(self.losses) - set(LOSSES))
        if unknown:
            raise InputError(f"{where}: objective.losses: unknown criterion {unknown[0]!r} "
                             f"(known: {', '.join(LOSSES)})")
        if len(set(self.losses)) != len(self.losses):
            raise InputError(f"{where}: objective.losses lists a criterion twice: {self.losses}")
        if "nsp" not in self.losses:
            raise InputError(f"{where}: objective.losses must include nsp (every row of the paper's Table 2 "
                             "trains with it)")
        weights = self.loss_weights or {}
        if not isinstance(weights, dict):
            raise InputError(f"{where}: objective.loss_weights must map criterion names to numbers")
        for name, value in weights.items():
            if name not in self.losses:
                raise InputError(f"{where}: objective.loss_weights names {name!r}, which is not in "
                                 f"objective.losses {self.losses}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InputError(f"{where}: objective.loss_weights.{name} must be a non-negative number")
        checks = [
            (self.batch_size >= 1 and self.eval_batch_size >= 1, "objective.batch_size and eval_batch_size >= 1"),
            (self.vocabulary_size >= 1 and self.title_vocabulary_size >= 1, "vocabulary sizes must be >= 1"),
            (self.position_buckets >= 1, "objective.position_buckets must be >= 1"),
            (self.levels >= 2, "objective.levels must be >= 2"),
            (2 <= self.ranking_candidates <= self.eval_batch_size,
             "objective.ranking_candidates must be between 2 and objective.eval_batch_size"),
        ]
        refuse_failed(checks, where)


def check_data(data: DataSettings, where: str) -> None:
    """Raise InputError naming a bad ``data:`` key."""
    if data.files is not None and data.files < 1:
        raise InputError(f"{where}: data.files must be at least 1 (or null for all files)")
    if data.max_train_articles is not None and data.max_train_articles < 1:
        raise InputError(f"{where}: data.max_train_articles must be at least 1 (or null)")
    if data.min_article_sentences < 1 or data.dev_sentences < 1:
        raise InputError(f"{where}: data.min_article_sentences and data.dev_sentences must be at least 1")


def check_model(model: ModelSettings, where: str) -> None:
    """Raise InputError naming a bad ``model:`` key."""
    if model.hidden_size < 1 or model.mlp_hidden_size < 1 or model.max_length < 1 or model.mlp_layers < 0:
        raise InputError(f"{where}: model sizes must be positive (mlp_layers may be 0)")
    if not 0.0 <= model.dropout < 1.0:
        raise InputError(f"{where}: model.dropout must be in [0, 1)")
    import torch

    try:
        torch.device(model.device)
    except RuntimeError:
        raise InputError(f"{where}: model.device {model.device!r} is not a torch device (cpu, cuda, cuda:1)") from None


__all__ = ["CriteriaSettings", "DataSettings", "LOSSES", "ModelSettings", "ROWS", "check_data", "check_model",
           "row_name"]
