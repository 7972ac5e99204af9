"""Dev evaluation during training: does the positive beat every one of its negatives? Ties reported."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from coherence_metric import CoherenceModel, CoherenceScorer
from coherence_metric.errors import TruncationWarning
from coherence_metric.toolkit import SentenceEmbedder

from .data.examples import TrainingItem
from .data.intrusions import Intrusion, intrusion_document


@dataclass(frozen=True)
class DevResult:
    """Accuracy (the positive beats all its permutations, strictly), ties, pairwise accuracy, and with intrusion
    negatives the share of (positive, intrusion) pairs the positive wins."""

    accuracy: float
    ties: int
    pairwise_accuracy: float
    items: int
    intrusion_accuracy: Optional[float] = None
    intrusion_pairs: int = 0

    @property
    def selection_score(self) -> float:
        """What picks the best checkpoint: beat-all accuracy, averaged with intrusion accuracy when measured,
        so a run trained on both kinds of negative keeps the checkpoint that is good at both."""
        if self.intrusion_accuracy is None:
            return self.accuracy
        return (self.accuracy + self.intrusion_accuracy) / 2

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready form for the training log."""
        record = {"dev_accuracy": self.accuracy, "dev_ties": self.ties,
                  "dev_pairwise_accuracy": self.pairwise_accuracy, "dev_items": self.items}
        if self.intrusion_accuracy is not None:
            record.update(dev_intrusion_accuracy=self.intrusion_accuracy, dev_intrusion_pairs=self.intrusion_pairs,
                          dev_selection_score=self.selection_score)
        return record


def score_documents(model: CoherenceModel, tokenizer: Any, documents: Sequence[List[str]], max_length: int,
                    batch_size: int = 32, sentence_embedder: Optional[SentenceEmbedder] = None) -> List[float]:
    """Scores of sentence-list documents in eval mode, through the metric's own batched inference path.

    Training and scoring share one code path, so dev accuracy measures exactly what users will get (the
    cohesion term included, with ``cohesion`` the already loaded sentence encoder).
    The model is left in eval mode; the caller switches it back to training.
    """
    scorer = CoherenceScorer.from_model(model, tokenizer, label="training", device=str(next(model.parameters()).device),
                                        batch_size=batch_size, max_length=max_length,
                                        sentence_embedder=sentence_embedder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)  # training data is capped when prepared
        return scorer.score([list(document) for document in documents]).scores


#: Where an item's documents lie in a flat list: (start of the positive, permutations, intrusions).
Span = Tuple[int, int, int]


def group_documents(items: Sequence[TrainingItem], negatives: int,
                    intrusions: Optional[Mapping[str, Sequence[Intrusion]]] = None
                    ) -> Tuple[List[List[str]], List[Span]]:
    """Each item's positive, its first ``negatives`` permutations and its intrusion negatives, in one flat list."""
    documents: List[List[str]] = []
    spans: List[Span] = []
    for item in items:
        negative_documents = item.negative_documents()[:negatives]
        intruded = [intrusion_document(item, intrusion) for intrusion in (intrusions or {}).get(item.id, ())]
        spans.append((len(documents), len(negative_documents), len(intruded)))
        documents.append(item.pos)
        documents.extend(negative_documents)
        documents.extend(intruded)
    return documents, spans


def dev_result(scores: Sequence[float], spans: Sequence[Span], with_intrusions: bool) -> DevResult:
    """Beat-all, pairwise and (``with_intrusions``) intrusion accuracy of scores laid out as ``spans`` say."""
    wins = ties = pair_wins = pairs = intrusion_wins = intrusion_pairs = 0
    for start, count, intruded_count in spans:
        positive, others = scores[start], scores[start + 1 : start + 1 + count]
        hardest = max(others)
        wins += positive > hardest
        ties += positive == hardest
        pair_wins += sum(positive > other for other in others)
        pairs += len(others)
        intruded_scores = scores[start + 1 + count : start + 1 + count + intruded_count]
        intrusion_wins += sum(positive > other for other in intruded_scores)
        intrusion_pairs += intruded_count
    intrusion_accuracy = intrusion_wins / intrusion_pairs if with_intrusions and intrusion_pairs else None
    return DevResult(accuracy=wins / len(spans), ties=ties, pairwise_accuracy=pair_wins / max(pairs, 1),
                     items=len(spans), intrusion_accuracy=intrusion_accuracy, intrusion_pairs=intrusion_pairs)


def evaluate(model: CoherenceModel, tokenizer: Any, items: Sequence[TrainingItem], negatives: int,
             max_length: int, intrusions: Optional[Mapping[str, Sequence[Intrusion]]] = None,
             sentence_embedder: Optional[SentenceEmbedder] = None) -> DevResult:
    """Score each dev item's positive and its first ``negatives`` permutations; report beat-all accuracy.

    With ``intrusions`` (item id -> intrusions), each item's intrusion negatives are scored too and reported
    apart, so the permutation numbers stay comparable with runs trained without them.
    """
    documents, spans = group_documents(items, negatives, intrusions)
    scores = score_documents(model, tokenizer, documents, max_length, sentence_embedder=sentence_embedder)
    return dev_result(scores, spans, intrusions is not None)
