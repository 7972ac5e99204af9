"""Dev evaluation during training: does the positive beat every one of its negatives? Ties reported."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence

from coherence_metric.model import CoherenceModel
from coherence_metric.scorer import CoherenceScorer, TruncationWarning

from .data.examples import TrainingItem


@dataclass(frozen=True)
class DevResult:
    """Accuracy (the positive beats all negatives, strictly), ties, and pairwise accuracy."""

    accuracy: float
    ties: int
    pairwise_accuracy: float
    items: int

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready form for the training log."""
        return {"dev_accuracy": self.accuracy, "dev_ties": self.ties,
                "dev_pairwise_accuracy": self.pairwise_accuracy, "dev_items": self.items}


def score_documents(model: CoherenceModel, tokenizer: Any, documents: Sequence[List[str]], max_length: int,
                    batch_size: int = 32) -> List[float]:
    """Scores of sentence-list documents in eval mode, through the metric's own batched inference path.

    Training and scoring share one code path, so dev accuracy measures exactly what users will get.
    The model is left in eval mode; the caller switches it back to training.
    """
    scorer = CoherenceScorer.from_model(model, tokenizer, label="training", device=str(next(model.parameters()).device),
                                        batch_size=batch_size, max_length=max_length)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)  # training data is capped when prepared
        return scorer.score([list(document) for document in documents]).scores


def evaluate(model: CoherenceModel, tokenizer: Any, items: Sequence[TrainingItem], negatives: int,
             max_length: int) -> DevResult:
    """Score each dev item's positive and its first ``negatives`` negatives; report beat-all accuracy."""
    documents: List[List[str]] = []
    spans = []
    for item in items:
        negative_documents = item.negative_documents()[:negatives]
        spans.append((len(documents), len(negative_documents)))
        documents.append(item.pos)
        documents.extend(negative_documents)
    scores = score_documents(model, tokenizer, documents, max_length)
    wins = ties = pair_wins = pairs = 0
    for start, count in spans:
        positive, others = scores[start], scores[start + 1 : start + 1 + count]
        hardest = max(others)
        wins += positive > hardest
        ties += positive == hardest
        pair_wins += sum(positive > other for other in others)
        pairs += len(others)
    return DevResult(accuracy=wins / len(spans), ties=ties, pairwise_accuracy=pair_wins / max(pairs, 1),
                     items=len(spans))
