"""The DiscoEval criteria as an :class:`coherence_metric.training.loop.Objective`: batches, the weighted loss, held-out
numbers.

The total loss is ``sum_c weight_c * criterion_c`` over the selected criteria (NSP always; the authors' code
weights every term 1). ``evaluate()`` reports, on a fixed dev slice, each criterion's loss and:

- ``accuracy`` (what ``loop.select`` keeps by default) = ``nsp_ranking_accuracy``: NSP-based, so it exists
  for every row of Table 2, including the NSP-only baseline that has no classifier. The dev sentences
  (shuffled once with a fixed seed) are cut into groups of ``ranking_candidates``; the next-sentence
  decoder scores every pair (sentence i, next-sentence bag j of the group) by the bag's mean
  log-probability, each candidate's scores are centred over the group's sentences (``S_ij - mean_i' S_i'j``,
  a PMI estimate with the group as the marginal), and sentence i is right when its own next sentence scores
  highest (chance = 1 / ranking_candidates). Without the centring every sentence picks the candidate made
  of the most frequent words: we measured exactly chance (0.100) after 150 steps, where the centred score
  already gave 0.130.
- ``sdt_section_precision_at_1`` / ``sdt_title_precision_at_1``: the share of rows whose most probable word
  is in the heading's / title's bag (for NSP's bags the top word is "the" and this is ~0.76 for any model,
  so it is not reported).
- ``<decoder>_rows``: how many dev sentences each bag-of-words number averages over (rows whose bag is
  empty after the vocabulary cut, or masked, do not count); a number over no row is NaN. Dev articles'
  titles are other articles' titles, so ``sdt_title`` scores only the title words shared across articles
  ("history", "economy", country names): expect it low.
- ``nl_accuracy``, ``spp_sentence_accuracy``, ``spp_paragraph_accuracy``: classification accuracies, each
  beside its dev majority-class rate (``*_majority``: NL's lower-bound levels are ~85% level 1), and
  ``classification_accuracy``: their mean, when the row has a classifier.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import nn

from coherence_metric.errors import InputError

from ..wordvec import WordVectors
from .encoder import save_encoder
from .losses import bag_of_words_loss, classification_loss
from .model import DECODERS_OF, BiGRUEncoder, DiscoEvalModel
from .settings import CriteriaSettings, ModelSettings, row_name
from .targets import SentenceExample, Vocabularies, WordVocabulary, build_vocabularies


def bag_counts(id_lists: Sequence[Sequence[int]], size: int) -> torch.Tensor:
    """Dense word counts [len(id_lists), size] from each row's vocabulary ids (repeats add up)."""
    counts = torch.zeros(len(id_lists), size)
    rows = [row for row, ids in enumerate(id_lists) for _ in ids]
    columns = [column for ids in id_lists for column in ids]
    if columns:
        counts.index_put_((torch.tensor(rows), torch.tensor(columns)), torch.ones(len(columns)), accumulate=True)
    return counts


@dataclass
class DiscoBatch:
    """Word-piece ids [B, T] and lengths [B] of the sentences, and the targets the selected criteria need.

    ``bags`` and ``bag_masks`` are keyed by decoder name (``nsp_previous``, ``nsp_next``, ``sdt_section``,
    ``sdt_title``); ``labels`` by classifier name (``nl``, ``spp_sentence``, ``spp_paragraph``).
    """

    ids: torch.Tensor
    lengths: torch.Tensor
    bags: Dict[str, torch.Tensor] = field(default_factory=dict)
    bag_masks: Dict[str, torch.Tensor] = field(default_factory=dict)
    labels: Dict[str, torch.Tensor] = field(default_factory=dict)


class DiscoEvalObjective:
    """NSP (+ NL, SPP, SDT) on Wikipedia sentences; one batch = ``batch_size`` training sentences drawn at random.

    Args:
        settings: the ``objective:`` section (criteria, vocabulary sizes, buckets, levels).
        model_settings: the ``model:`` section.
        word_vectors: the frozen input vectors and their tokenizer.
        train: training sentences (train-split articles only).
        dev: the dev slice ``evaluate`` reports on.
        seed: mixes into every batch's sampling (``loop.seed``).
    """

    def __init__(self, settings: CriteriaSettings, model_settings: ModelSettings, word_vectors: WordVectors,
                 train: List[SentenceExample], dev: List[SentenceExample], seed: int = 0) -> None:
        settings.check("objective")
        if not train:
            raise InputError("the DiscoEval criteria need at least one training sentence")
        with_next = sum(example.next is not None for example in dev)
        if with_next < settings.ranking_candidates:
            raise InputError(f"the dev slice has {with_next} sentences with a next sentence, fewer than "
                             f"objective.ranking_candidates ({settings.ranking_candidates}): raise data.dev_sentences")
        self.settings = settings
        self.model_settings = model_settings
        self.word_vectors = word_vectors
        self.train_examples = train
        self.dev_examples = dev
        self.seed = seed
        self.losses = [loss for loss in ("nsp", "nl", "spp", "sdt") if loss in settings.losses]
        self.vocabularies: Vocabularies = build_vocabularies(train, settings.vocabulary_size,
                                                             settings.title_vocabulary_size)
        if "sdt" in self.losses and len(self.vocabularies.sections) == 0:
            raise InputError("objective.losses has sdt but no training article has a section heading")
        encoder = BiGRUEncoder(word_vectors.weights, model_settings.hidden_size, pad_id=word_vectors.pad_id)
        self.model = DiscoEvalModel(encoder, self._output_sizes(), model_settings.mlp_hidden_size,
                                    model_settings.mlp_layers, model_settings.dropout)
        self.device = torch.device(model_settings.device)
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise InputError(f"model.device is {model_settings.device!r} but torch sees no CUDA device here")
        self.model.to(self.device)
        self.module: nn.Module = self.model
        self._dev_batches: Optional[List[DiscoBatch]] = None

    # ------------------------------------------------------------------------------------------ shapes

    def _bag_vocabulary(self, decoder: str) -> WordVocabulary:
        return {"nsp_previous": self.vocabularies.sentences, "nsp_next": self.vocabularies.sentences,
                "sdt_section": self.vocabularies.sections, "sdt_title": self.vocabularies.titles}[decoder]

    def _output_sizes(self) -> Dict[str, int]:
        sizes: Dict[str, int] = {}
        for loss in self.losses:
            for decoder in DECODERS_OF[loss]:
                if decoder == "nl":
                    sizes[decoder] = self.settings.levels
                elif decoder.startswith("spp_"):
                    sizes[decoder] = self.settings.position_buckets
                else:
                    sizes[decoder] = len(self._bag_vocabulary(decoder))
        return sizes

    @property
    def row(self) -> str:
        """The Table 2 row these criteria reproduce."""
        return row_name(self.losses)

    # ----------------------------------------------------------------------------------------- batches

    def collate(self, examples: Sequence[SentenceExample]) -> DiscoBatch:
        """Tokenize the sentences and build the targets of the selected criteria."""
        ids, lengths = self.word_vectors.token_ids([example.sentence for example in examples],
                                                   self.model_settings.max_length)
        batch = DiscoBatch(ids=ids, lengths=lengths)
        buckets, levels = self.settings.position_buckets, self.settings.levels
        if "nsp" in self.losses:
            for decoder, texts in (("nsp_previous", [example.previous for example in examples]),
                                   ("nsp_next", [example.next for example in examples])):
                vocabulary = self._bag_vocabulary(decoder)
                batch.bags[decoder] = bag_counts([vocabulary.ids(text) for text in texts], len(vocabulary))
                batch.bag_masks[decoder] = torch.tensor([text is not None for text in texts])
        if "sdt" in self.losses:
            headings: List[Tuple[str, List[str]]] = [("sdt_section", [example.section for example in examples]),
                                                     ("sdt_title", [example.title for example in examples])]
            for decoder, titles in headings:
                vocabulary = self._bag_vocabulary(decoder)
                batch.bags[decoder] = bag_counts([vocabulary.ids(text) for text in titles], len(vocabulary))
                batch.bag_masks[decoder] = torch.tensor([bool(text) for text in titles])
        if "nl" in self.losses:
            batch.labels["nl"] = torch.tensor([example.level_class(levels) for example in examples])
        if "spp" in self.losses:
            batch.labels["spp_sentence"] = torch.tensor([example.sentence_bucket(buckets) for example in examples])
            batch.labels["spp_paragraph"] = torch.tensor([example.paragraph_bucket(buckets) for example in examples])
        return batch

    def batch(self, position: int) -> DiscoBatch:
        """``batch_size`` training sentences drawn with replacement by a generator seeded with the position."""
        generator = random.Random(f"discoeval:{self.seed}:{position}")
        count = len(self.train_examples)
        return self.collate([self.train_examples[generator.randrange(count)]
                             for _ in range(self.settings.batch_size)])

    def _on_device(self, batch: DiscoBatch) -> DiscoBatch:
        """The batch on the model's device (lengths stay on the CPU, where packing wants them)."""
        if self.device.type == "cpu":
            return batch
        device = self.device
        return DiscoBatch(ids=batch.ids.to(device), lengths=batch.lengths,
                          bags={key: value.to(device) for key, value in batch.bags.items()},
                          bag_masks={key: value.to(device) for key, value in batch.bag_masks.items()},
                          labels={key: value.to(device) for key, value in batch.labels.items()})

    # ------------------------------------------------------------------------------------------ losses

    def criterion_losses(self, logits: Dict[str, torch.Tensor], batch: DiscoBatch) -> Dict[str, torch.Tensor]:
        """Each selected criterion's loss (NSP, NL, SPP, SDT as in :mod:`.losses`), and each half of it."""
        parts: Dict[str, torch.Tensor] = {}
        for decoder, counts in batch.bags.items():
            parts[decoder] = bag_of_words_loss(logits[decoder], counts, batch.bag_masks[decoder])
        for decoder, labels in batch.labels.items():
            parts[decoder] = classification_loss(logits[decoder], labels)
        results = dict(parts)
        for loss in self.losses:
            zero = torch.zeros((), device=self.device)
            results[loss] = sum((parts[decoder] for decoder in DECODERS_OF[loss]), zero)
        return results

    def loss(self, batch: DiscoBatch) -> Tuple[torch.Tensor, Dict[str, float]]:
        """The weighted sum of the selected criteria; logs each criterion's value."""
        batch = self._on_device(batch)
        logits = self.model(batch.ids, batch.lengths)
        parts = self.criterion_losses(logits, batch)
        total = sum((self.settings.weight(loss) * parts[loss] for loss in self.losses),
                    torch.zeros((), device=self.device))
        return total, {f"{loss}_loss": float(parts[loss].detach()) for loss in self.losses}

    # -------------------------------------------------------------------------------------- evaluation

    def _dev(self) -> List[DiscoBatch]:
        if self._dev_batches is None:
            size = self.settings.eval_batch_size
            self._dev_batches = [self.collate(self.dev_examples[start: start + size])
                                 for start in range(0, len(self.dev_examples), size)]
        return self._dev_batches

    def _majority(self, label: str) -> float:
        buckets, levels = self.settings.position_buckets, self.settings.levels
        value = {"nl": lambda example: example.level_class(levels),
                 "spp_sentence": lambda example: example.sentence_bucket(buckets),
                 "spp_paragraph": lambda example: example.paragraph_bucket(buckets)}[label]
        counts = Counter(value(example) for example in self.dev_examples)
        return counts.most_common(1)[0][1] / len(self.dev_examples)

    def _ranking_hits(self, logits: torch.Tensor, counts: torch.Tensor, mask: torch.Tensor) -> Tuple[int, int]:
        """(right, scored) of next-sentence ranking inside groups of ``ranking_candidates`` consecutive rows."""
        keep = mask & (counts.sum(dim=1) > 0)
        log_probabilities = F.log_softmax(logits[keep], dim=-1)
        bags = counts[keep] / counts[keep].sum(dim=1, keepdim=True)
        group = self.settings.ranking_candidates
        right = scored = 0
        for start in range(0, bags.shape[0] - group + 1, group):
            scores = log_probabilities[start: start + group] @ bags[start: start + group].T  # [i, j]: bag j | s_i
            scores = scores - scores.mean(dim=0, keepdim=True)
            right += int((scores.argmax(dim=1) == torch.arange(group, device=scores.device)).sum())
            scored += group
        return right, scored

    @torch.no_grad()
    def evaluate(self) -> Dict[str, float]:
        """Dev losses and accuracies per criterion (see the module docstring for each number)."""
        sums: Dict[str, float] = {}
        counts: Dict[str, int] = {}

        def add(key: str, value: float, weight: int) -> None:
            sums[key] = sums.get(key, 0.0) + value * weight
            counts[key] = counts.get(key, 0) + weight

        ranking_right = ranking_scored = 0
        for batch in map(self._on_device, self._dev()):
            logits = self.model(batch.ids, batch.lengths)
            for decoder, bag in batch.bags.items():
                kept = batch.bag_masks[decoder] & (bag.sum(dim=1) > 0)
                rows = int(kept.sum())
                if rows:
                    add(f"{decoder}_loss", float(bag_of_words_loss(logits[decoder], bag, kept)), rows)
                    if decoder.startswith("sdt_"):
                        top = logits[decoder][kept].argmax(dim=1)
                        hits = bag[kept].gather(1, top.unsqueeze(1)).squeeze(1) > 0
                        add(f"{decoder}_precision_at_1", float(hits.float().mean()), rows)
            for decoder, labels in batch.labels.items():
                rows = int(labels.shape[0])
                add(f"{decoder}_loss", float(classification_loss(logits[decoder], labels)), rows)
                add(f"{decoder}_accuracy", float((logits[decoder].argmax(dim=1) == labels).float().mean()), rows)
            right, scored = self._ranking_hits(logits["nsp_next"], batch.bags["nsp_next"], batch.bag_masks["nsp_next"])
            ranking_right += right
            ranking_scored += scored
        numbers = {key: sums[key] / counts[key] for key in sums}
        for decoder in self._dev()[0].bags:  # rows scored per bag target; NaN when the slice has none
            numbers[f"{decoder}_rows"] = float(counts.get(f"{decoder}_loss", 0))
            numbers.setdefault(f"{decoder}_loss", float("nan"))
            if decoder.startswith("sdt_"):
                numbers.setdefault(f"{decoder}_precision_at_1", float("nan"))
        for loss in self.losses:
            numbers[f"{loss}_loss"] = sum(numbers[f"{decoder}_loss"] for decoder in DECODERS_OF[loss])
        numbers["loss"] = sum(self.settings.weight(loss) * numbers[f"{loss}_loss"] for loss in self.losses)
        numbers["nsp_ranking_accuracy"] = ranking_right / ranking_scored if ranking_scored else 0.0
        numbers["accuracy"] = numbers["nsp_ranking_accuracy"]
        classifiers = [name for name in ("nl", "spp_sentence", "spp_paragraph") if f"{name}_accuracy" in numbers]
        for name in classifiers:
            numbers[f"{name}_majority"] = self._majority(name)
        if classifiers:
            numbers["classification_accuracy"] = sum(numbers[f"{name}_accuracy"] for name in classifiers) / len(
                classifiers)
        return numbers

    def after_step(self) -> None:
        """Nothing to do between steps."""

    def save(self, folder: Path) -> None:
        """The sentence encoder for ``trained:FOLDER`` (see :mod:`.encoder`); decoders are not saved."""
        save_encoder(Path(folder), self.model.encoder, self.word_vectors.tokenizer, {
            "losses": list(self.losses), "row": self.row, "max_length": self.model_settings.max_length,
            "word_vectors": self.word_vectors.source,
            "vocabulary_sizes": {"sentences": len(self.vocabularies.sentences),
                                 "sections": len(self.vocabularies.sections),
                                 "titles": len(self.vocabularies.titles)},
        })


__all__ = ["DiscoBatch", "DiscoEvalObjective", "bag_counts"]
