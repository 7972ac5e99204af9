"""The CONPONO objective for :class:`coherence_metric.training.loop.ObjectiveLoop`: batches, loss, held-out accuracy,
saving.

A training batch at stream position p is ``batch_size`` examples built from training paragraphs drawn with
``random.Random(f"{seed}:{p}")``, tokenized in the recipe's encoding and (with the MLM loss on) masked
with a generator seeded from p: the same position is the same batch in every run (exact resume), and a
paragraph met again at another position gets another anchor, other negatives and other masks.

The held-out slice is fixed when the objective is built: ``eval_examples`` examples from dev-split
paragraphs, negatives from other dev documents. It is scored without masks; the paper's Figure 2 numbers
(accuracy per k on 5,000 held-out examples) came from the reference code, which masks its evaluation
inputs too when the MLM loss is on, so our held-out accuracy of an MLM-trained model reads higher than
theirs would. The loss of a training batch is computed on the masked inputs, as in the reference code:
one forward pass serves both losses.
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch
from torch import nn
from torch.nn import functional as F

from coherence_metric.errors import InputError
from coherence_metric.toolkit import write_atomically

from .examples import ConponoExample, ExampleSettings, Paragraph, build_example
from .inputs import ConponoInputs, Tokens, build_inputs
from .losses import accuracy_by_distance, bilinear_logits, class_vector_logits, distance_hits, sampled_softmax_loss
from .masking import mask_tokens, maskable_positions
from .model import ConponoModel

logger = logging.getLogger("coherence_metric.training")

HEAD_FILE = "conpono_head.pt"
MANIFEST_FILE = "trained_encoder.json"  # coherence_metric.research.encoders.TRAINED_ENCODER_FILE ("trained:FOLDER")
FAMILY = "conpono"


@dataclass
class ObjectiveSettings:
    """What the objective needs beyond the example settings (a subset of the recipe)."""

    batch_size: int = 1
    max_length: int = 512
    mlm_weight: float = 1.0
    mlm_probability: float = 0.15
    eval_examples: int = 500
    eval_batch_size: int = 4
    seed: int = 0
    bf16: bool = False


def make_examples(paragraphs: Sequence[Paragraph], count: int, settings: ExampleSettings,
                  seed: str) -> List[ConponoExample]:
    """``count`` examples, the i-th built from ``random.Random(f"{seed}:{i}")``: the fixed held-out slice."""
    examples = []
    for index in range(count):
        rng = random.Random(f"{seed}:{index}")
        examples.append(build_example(paragraphs[rng.randrange(len(paragraphs))], paragraphs, settings, rng))
    return examples


class ConponoObjective:
    """CONPONO (seed 001) with an optional MLM loss, over a train and a dev set of paragraphs.

    Args:
        model: the encoder, distance weights and MLM head.
        tokenizer: the backbone's tokenizer.
        train: training paragraphs (train split only).
        dev: held-out paragraphs (dev split) for :meth:`evaluate`.
        examples: how examples are cut.
        settings: batch size, lengths, MLM, evaluation size, seed.
        manifest: extra facts written into ``trained_encoder.json`` (backbone, recipe name, ...).
    """

    def __init__(self, model: ConponoModel, tokenizer: Any, train: Sequence[Paragraph], dev: Sequence[Paragraph],
                 examples: ExampleSettings, settings: ObjectiveSettings, manifest: Dict[str, Any]) -> None:
        if settings.mlm_weight > 0 and model.mlm_head is None:
            raise InputError("objective.mlm_weight > 0 needs a model built with an MLM head")
        if settings.mlm_weight > 0 and tokenizer.mask_token_id is None:
            raise InputError("objective.mlm_weight > 0 needs a tokenizer with a mask token")
        if not train:
            raise InputError("no training paragraphs: the corpora gave no document long enough for an example")
        self.module: nn.Module = model
        self.model = model
        self.tokenizer = tokenizer
        self.train = list(train)
        self.examples = examples
        self.settings = settings
        self.manifest = manifest
        self.dev_examples = make_examples(dev, settings.eval_examples, examples, f"dev:{settings.seed}") \
            if settings.eval_examples > 0 and dev else []
        if settings.eval_examples > 0 and not dev:
            logger.warning("no held-out (dev) paragraphs: evaluate() reports accuracy 0 and best/ is the first model")

    # ---------------------------------------------------------------------------------------------- batches

    def examples_at(self, position: int) -> List[ConponoExample]:
        """The training examples of a stream position."""
        rng = random.Random(f"{self.settings.seed}:{position}")
        return [build_example(self.train[rng.randrange(len(self.train))], self.train, self.examples, rng)
                for _ in range(self.settings.batch_size)]

    def batch(self, position: int) -> ConponoInputs:
        """Tokenized (and, with the MLM loss, masked) examples; the same for the same position in every run."""
        inputs = build_inputs(self.tokenizer, self.examples_at(position), self.model.encoding,
                              self.model.max_distance, self.settings.max_length)
        if self.settings.mlm_weight > 0:
            generator = torch.Generator().manual_seed(self.settings.seed * 1_000_003 + position)
            inputs.candidate_mlm_labels = self._mask(inputs.candidates, generator)
            if inputs.anchors is not None:
                inputs.anchor_mlm_labels = self._mask(inputs.anchors, generator)
        return inputs

    def _mask(self, tokens: Tokens, generator: torch.Generator) -> torch.Tensor:
        masked, labels = mask_tokens(tokens["input_ids"], maskable_positions(tokens), self.settings.mlm_probability,
                                     int(self.tokenizer.mask_token_id), len(self.tokenizer), generator)
        tokens["input_ids"] = masked
        return labels

    # ------------------------------------------------------------------------------------------------- loss

    def _on_device(self, inputs: ConponoInputs) -> ConponoInputs:
        device = self.model.distance_weights.device
        if device.type == "cpu":
            return inputs

        def move(tokens: Optional[Tokens]) -> Optional[Tokens]:
            return None if tokens is None else {key: value.to(device) for key, value in tokens.items()}

        def move_labels(labels: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
            return None if labels is None else labels.to(device)

        candidates = move(inputs.candidates)
        assert candidates is not None
        return ConponoInputs(anchors=move(inputs.anchors), candidates=candidates, labels=inputs.labels.to(device),
                             anchor_mlm_labels=move_labels(inputs.anchor_mlm_labels),
                             candidate_mlm_labels=move_labels(inputs.candidate_mlm_labels))

    def logits(self, inputs: ConponoInputs) -> Tuple[torch.Tensor, List[Tuple[torch.Tensor, torch.Tensor]]]:
        """[B, 2K, N] scores (float32), plus (hidden states, MLM labels) of every input that carries MLM labels.

        ``inputs`` must be on the model's device (:meth:`loss` and :meth:`evaluate` move them); with ``bf16``
        the encoder runs under autocast and the scores are cast back to float32 for the softmax.
        """
        with torch.autocast(self.model.distance_weights.device.type, dtype=torch.bfloat16,
                            enabled=self.settings.bf16):
            logits, masked = self._logits(inputs)
        return logits.float(), masked

    def _logits(self, inputs: ConponoInputs) -> Tuple[torch.Tensor, List[Tuple[torch.Tensor, torch.Tensor]]]:
        model = self.model
        batch, count = inputs.batch_size, inputs.candidates_per_example
        masked: List[Tuple[torch.Tensor, torch.Tensor]] = []
        states = model.hidden_states(inputs.candidates)
        if inputs.candidate_mlm_labels is not None:
            masked.append((states, inputs.candidate_mlm_labels))
        targets = model.pool(states, inputs.candidates["attention_mask"]).view(batch, count, -1)
        if model.encoding == "uni":
            return class_vector_logits(targets, model.distance_weights), masked
        assert inputs.anchors is not None
        anchor_states = model.hidden_states(inputs.anchors)
        if inputs.anchor_mlm_labels is not None:
            masked.append((anchor_states, inputs.anchor_mlm_labels))
        anchors = model.pool(anchor_states, inputs.anchors["attention_mask"])
        return bilinear_logits(targets, anchors, model.distance_weights), masked

    def loss(self, batch: ConponoInputs) -> Tuple[torch.Tensor, Dict[str, float]]:
        """Sum over distances of eq. 3, averaged over examples, plus ``mlm_weight`` times the MLM loss."""
        batch = self._on_device(batch)
        logits, masked = self.logits(batch)
        cpc, _ = sampled_softmax_loss(logits, batch.labels)
        hits, counts = distance_hits(logits.detach(), batch.labels)
        numbers = {"cpc_loss": float(cpc.item()), "train_accuracy": float(hits.sum()) / max(float(counts.sum()), 1.0)}
        total = cpc
        if self.settings.mlm_weight > 0 and masked:
            with torch.autocast(self.model.distance_weights.device.type, dtype=torch.bfloat16,
                                enabled=self.settings.bf16):
                logits_mlm = torch.cat([self.model.mlm_logits(states, labels) for states, labels in masked]).float()
            labels_mlm = torch.cat([labels[labels >= 0] for _, labels in masked])
            if labels_mlm.numel():
                mlm = F.cross_entropy(logits_mlm, labels_mlm)
                total = cpc + self.settings.mlm_weight * mlm
                numbers["mlm_loss"] = float(mlm.item())
        return total, numbers

    # ------------------------------------------------------------------------------------------- evaluation

    @torch.no_grad()
    def evaluate(self) -> Dict[str, float]:
        """Held-out CONPONO accuracy per distance k (the paper's Figure 2), their mean as ``accuracy``, the loss."""
        if not self.dev_examples:
            return {"accuracy": 0.0, "examples": 0.0}
        model = self.model
        hits = torch.zeros(2 * model.max_distance, dtype=torch.long)
        counts = torch.zeros_like(hits)
        losses: List[float] = []
        size = self.settings.eval_batch_size
        for start in range(0, len(self.dev_examples), size):
            chunk = self.dev_examples[start:start + size]
            inputs = self._on_device(build_inputs(self.tokenizer, chunk, model.encoding, model.max_distance,
                                                  self.settings.max_length))
            logits, _ = self.logits(inputs)
            loss, _ = sampled_softmax_loss(logits, inputs.labels)
            losses.append(float(loss) * len(chunk))
            chunk_hits, chunk_counts = distance_hits(logits, inputs.labels)
            hits += chunk_hits.cpu()
            counts += chunk_counts.cpu()
        numbers = accuracy_by_distance(hits, counts, model.distance_list)
        numbers["cpc_loss"] = sum(losses) / len(self.dev_examples)
        numbers["examples"] = float(len(self.dev_examples))
        return numbers

    def after_step(self) -> None:
        """Nothing: CONPONO has no per-step update outside the optimizer."""

    # ----------------------------------------------------------------------------------------------- saving

    def save(self, folder: Path) -> None:
        """The encoder and tokenizer (HF format), the distance weights, and ``trained_encoder.json``.

        ``trained:FOLDER`` (DiscoEval) then loads the encoder with :func:`coherence_metric.training.conpono.encoder.
        load_sentence_encoder`; W_k is kept for inspection and further training, never for DiscoEval
        (the paper: "we drop the weight matrix W_k and only use the output of the encoder").
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save_encoder(folder)
        self.tokenizer.save_pretrained(str(folder))
        torch.save({"distance_weights": self.model.distance_weights.detach().cpu(),
                    "distances": self.model.distance_list, "encoding": self.model.encoding}, folder / HEAD_FILE)
        manifest = {"family": FAMILY, "encoding": self.model.encoding, "pooling": self.model.pooling,
                    "max_distance": self.model.max_distance, "max_length": self.settings.max_length,
                    "mlm_weight": self.settings.mlm_weight, **self.manifest}
        write_atomically(folder / MANIFEST_FILE, json.dumps(manifest, indent=2), what="the encoder's manifest")


__all__ = ["FAMILY", "HEAD_FILE", "MANIFEST_FILE", "ConponoObjective", "ObjectiveSettings", "make_examples"]
