"""The sentence pass of scoring: every sentence once through the frozen pretrained encoder, then the sentence terms.

A checkpoint's head reads a whole text through one mean-pooled vector, in which a single sentence that does not
belong barely moves the score. Two optional terms read the text sentence by sentence instead, and both start from
the same embeddings: the cohesion term, ``w * mean cosine of adjacent sentences``, and the learned sentence-level
term (:mod:`coherence_metric.models.sentence_scorer`). The encoder is the checkpoint's *pretrained* backbone, unchanged
by training, so the embeddings mean the same in every checkpoint built on it; the benchmarks' adjacent-sentence-cosine
baseline uses this module too.

Sentences are tokenised once, grouped longest first under the scorer's padded-token budget
(:func:`coherence_metric.scoring.batching.plan_batches`) and padded by the tokenizer, so a text's value does not depend
on which other texts share the call (up to float rounding, about 1e-6). The pass runs in the scorer's dtype: under bf16
autocast when the document pass does (``dtype="auto"`` on a CPU with native bf16), which moves a sentence vector's
cosine with its fp32 self by about 1e-5.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple, Union

import torch

from ..errors import InputError
from ..models.pretrained import load_encoder, load_tokenizer
from .batching import DEFAULT_MAX_TOKENS_PER_BATCH, pad_batch, plan_batches
from .profiling import SENTENCE_PASS, TOKENISE, StageTimes, stage
from .progress import SENTENCES, with_progress
from .runtime import autocast_context

logger = logging.getLogger("coherence_metric")

#: all-MiniLM-L6-v2 was trained on inputs of at most 256 word pieces (its sentence-transformers setting).
SENTENCE_MAX_LENGTH = 256
#: Sentences per forward pass at most, besides the token budget: the batches every shipped number was measured
#: with, so scores stay bit-identical (the budget alone, 8192 tokens, moved some by up to 1.2e-6, float32 rounding).
SENTENCES_PER_BATCH = 64


class SentenceEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings from a frozen encoder.

    Args:
        model: a transformers encoder (``last_hidden_state`` output), used in eval mode and never trained.
        tokenizer: its tokenizer.
        max_tokens_per_batch: padded tokens per forward pass (the scorer passes its own), so long sentences get
            smaller batches and memory stays bounded.
        batch_size: at most this many sentences per forward pass besides the token budget; None for no limit.
        max_length: word pieces kept per sentence.
        device: torch device of the encoder.
    """

    def __init__(self, model: Any, tokenizer: Any, max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH,
                 batch_size: Optional[int] = SENTENCES_PER_BATCH, max_length: int = SENTENCE_MAX_LENGTH,
                 device: Union[str, torch.device] = "cpu") -> None:
        if batch_size is not None and batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        if max_tokens_per_batch < 1:
            raise InputError(f"max_tokens_per_batch must be at least 1, got {max_tokens_per_batch}")
        self.model = model.to(device).eval()
        for parameter in self.model.parameters():
            parameter.requires_grad_(False)
        self.tokenizer = tokenizer
        self.max_tokens_per_batch = max_tokens_per_batch
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device

    @classmethod
    def from_folder(cls, folder: Union[str, Path], **settings: Any) -> "SentenceEmbedder":
        """Load the encoder (in float32) and tokenizer of a local transformers folder, running none of its code."""
        return cls(load_encoder(folder), load_tokenizer(folder), **settings)

    def embed(self, sentences: Sequence[str], progress: bool = False, dtype: str = "fp32",
              stages: Optional[StageTimes] = None) -> torch.Tensor:
        """L2-normalised mean-pooled embeddings, one row per sentence, as float32 on the CPU (``progress``: a bar
        over the batches on stderr; ``dtype``: fp32, or bf16/fp16 for the encoder to run under autocast;
        ``stages``: where to add the seconds of tokenising and of the encoder)."""
        with stage(stages, TOKENISE):
            encoded = self.tokenizer(list(sentences), truncation=True, max_length=self.max_length)["input_ids"]
        with stage(stages, SENTENCE_PASS):
            return self._embed_ids(encoded, progress, dtype)

    def _embed_ids(self, encoded: List[List[int]], progress: bool, dtype: str) -> torch.Tensor:
        embeddings = torch.zeros((len(encoded), self.model.config.hidden_size), dtype=torch.float32)
        batches = plan_batches([len(ids) for ids in encoded], self.max_tokens_per_batch, self.batch_size,
                               limit=self.max_length)
        with torch.inference_mode(), autocast_context(dtype, torch.device(self.device)):
            for batch in with_progress(batches, progress, SENTENCES, len(batches)):
                padded = pad_batch(self.tokenizer, [encoded[index] for index in batch], limit=self.max_length)
                input_ids = padded["input_ids"].to(self.device)
                attention_mask = padded["attention_mask"].to(self.device)
                hidden = self.model(input_ids=input_ids, attention_mask=attention_mask,
                                    token_type_ids=torch.zeros_like(input_ids)).last_hidden_state.float()
                mask = attention_mask.unsqueeze(-1).float()
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                embeddings[batch] = torch.nn.functional.normalize(pooled, dim=-1).float().cpu()
        return embeddings

    def embed_documents(self, documents: Sequence[Sequence[str]], progress: bool = False, dtype: str = "fp32",
                        stages: Optional[StageTimes] = None) -> Tuple[torch.Tensor, List[List[int]]]:
        """Embed each distinct sentence once (in ``dtype``, see :meth:`embed`): the embeddings and, per document,
        its sentences' rows.

        Raises:
            InputError: a document with no sentences.
        """
        for index, sentences in enumerate(documents):
            if not sentences:
                raise InputError(f"document {index} has no sentences")
        unique = list(dict.fromkeys(sentence for sentences in documents for sentence in sentences))
        row = {sentence: number for number, sentence in enumerate(unique)}
        embeddings = (self.embed(unique, progress, dtype, stages) if unique
                      else torch.zeros((0, self.model.config.hidden_size)))
        logger.debug("sentence embeddings: %d documents, %d unique sentences", len(documents), len(unique))
        return embeddings, [[row[sentence] for sentence in sentences] for sentences in documents]

    def cohesion(self, documents: Sequence[Sequence[str]]) -> List[float]:
        """The mean adjacent-sentence cosine of each document (each a list of sentences), in [-1, 1].

        Raises:
            InputError: a document with no sentences.
        """
        return adjacent_cosines(*self.embed_documents(documents))


def adjacent_cosines(embeddings: torch.Tensor, rows: Sequence[Sequence[int]]) -> List[float]:
    """The mean cosine of adjacent sentences of each document given as rows of ``embeddings`` (L2-normalised);
    0.0 for a document of one sentence, which has no adjacent pair."""
    values = []
    for document_rows in rows:
        if len(document_rows) < 2:
            values.append(0.0)
            continue
        vectors = embeddings[list(document_rows)]
        cosines = (vectors[:-1] * vectors[1:]).sum(dim=-1).clamp(-1.0, 1.0)
        values.append(float(cosines.mean()))
    return values


def adjacent_transition_cosines(embedder: SentenceEmbedder,
                                documents: Sequence[Sequence[str]]) -> List[List[float]]:
    """Per document, the cosine of each adjacent pair of its sentences' embeddings: one value per transition, none
    for a document of one sentence (the adjacent-sentence cosine read transition by transition, not averaged).

    Raises:
        InputError: a document with no sentences.
    """
    embeddings, rows = embedder.embed_documents(documents)
    values = []
    for document_rows in rows:
        vectors = embeddings[list(document_rows)]
        values.append([float(value) for value in (vectors[:-1] * vectors[1:]).sum(dim=-1)])
    return values


def add_sentence_terms(model: Any, embedder: SentenceEmbedder, documents: Sequence[Sequence[str]],
                       scores: Sequence[float], device: Union[str, torch.device],
                       progress: bool = False, dtype: str = "fp32",
                       stages: Optional[StageTimes] = None) -> List[float]:
    """``scores`` plus what the model's sentence-level terms add to each document (unchanged when it has neither).

    Args:
        model: a :class:`~coherence_metric.models.model.CoherenceModel` (its ``cohesion_weight`` and
            ``sentence_scorer``).
        embedder: the encoder of its pretrained backbone.
        documents: each document as its sentences.
        scores: the document pass's scores, one per document.
        device: where the sentence scorer runs.
        progress: a bar over the sentence batches on stderr.
        dtype: the encoder's compute dtype (the scorer's: fp32, bf16 or fp16 autocast).
        stages: where to add the seconds of tokenising and of the pass (the speed suite's profile).
    """
    cohesion_weight, sentence_scorer = model.cohesion_weight, model.sentence_scorer
    result = list(scores)
    if cohesion_weight is None and sentence_scorer is None:
        return result
    embeddings, rows = embedder.embed_documents(documents, progress, dtype, stages)
    with stage(stages, SENTENCE_PASS):
        if cohesion_weight is not None:
            weight = float(cohesion_weight)
            result = [value + weight * term for value, term in zip(result, adjacent_cosines(embeddings, rows))]
        if sentence_scorer is not None:
            with torch.inference_mode():
                terms = sentence_scorer.score_documents(embeddings.to(device), rows).float().cpu().tolist()
            result = [value + term for value, term in zip(result, terms)]
    return result


__all__ = ["SENTENCES_PER_BATCH", "SENTENCE_MAX_LENGTH", "SentenceEmbedder", "adjacent_cosines",
           "adjacent_transition_cosines", "add_sentence_terms"]
