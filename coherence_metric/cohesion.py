"""Local cohesion: the mean cosine similarity of adjacent sentences' embeddings from a frozen sentence encoder.

Two users: the adjacent-sentence-cosine baseline of the benchmarks, and checkpoints with a cohesion term, whose
score is ``head(document) + w * cohesion(document)``. Such a checkpoint's document encoder reads the whole text
through one mean-pooled vector, in which a single sentence that does not belong barely moves the score; the
cosine of each sentence with its neighbours sees exactly that sentence. The encoder here is the checkpoint's
*pretrained* backbone, unchanged by training, so the term means the same in every checkpoint built on it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, List, Sequence, Tuple, Union

import torch

from .errors import InputError
from .progress import SENTENCES, with_progress

logger = logging.getLogger("coherence_metric")

#: all-MiniLM-L6-v2 was trained on inputs of at most 256 word pieces (its sentence-transformers setting).
SENTENCE_MAX_LENGTH = 256


class SentenceCohesion:
    """Mean-pooled, L2-normalised sentence embeddings and the mean cosine of adjacent sentences.

    Sentences are embedded once each, sorted by length and batched, so a document's value does not depend on
    which other documents share the call (up to float rounding, about 1e-6). A document of one sentence has no
    adjacent pair and gets 0.0.

    Args:
        model: a transformers encoder (``last_hidden_state`` output), used in eval mode and never trained.
        tokenizer: its tokenizer.
        batch_size: sentences per forward pass.
        max_length: word pieces kept per sentence.
        device: torch device of the encoder.
    """

    def __init__(self, model: Any, tokenizer: Any, batch_size: int = 64, max_length: int = SENTENCE_MAX_LENGTH,
                 device: str = "cpu") -> None:
        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        self.model = model.to(device).eval()
        for parameter in self.model.parameters():
            parameter.requires_grad_(False)
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device

    @classmethod
    def from_folder(cls, folder: Union[str, Path], **settings: Any) -> "SentenceCohesion":
        """Load the encoder and tokenizer of a local transformers folder."""
        from transformers import AutoModel, AutoTokenizer

        from .quiet import quiet_transformers

        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(str(folder))
            model = AutoModel.from_pretrained(str(folder))
        return cls(model, tokenizer, **settings)

    def embed(self, sentences: Sequence[str], progress: bool = False) -> torch.Tensor:
        """L2-normalised mean-pooled embeddings, one row per sentence, as float32 on the CPU (``progress``: a bar
        over the batches on stderr)."""
        encoded = self.tokenizer(list(sentences), truncation=True, max_length=self.max_length)["input_ids"]
        # Longest first, so similar lengths share a batch (little padding) and a memory blow-up shows at once.
        order = sorted(range(len(encoded)), key=lambda index: len(encoded[index]), reverse=True)
        pad_id = self.tokenizer.pad_token_id or 0
        embeddings = torch.zeros((len(encoded), self.model.config.hidden_size), dtype=torch.float32)
        with torch.inference_mode():
            starts = range(0, len(order), self.batch_size)
            for start in with_progress(starts, progress, SENTENCES, len(starts)):
                batch = order[start : start + self.batch_size]
                width = max(len(encoded[index]) for index in batch)
                input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
                attention_mask = torch.zeros((len(batch), width), dtype=torch.long)
                for position, index in enumerate(batch):
                    input_ids[position, : len(encoded[index])] = torch.tensor(encoded[index], dtype=torch.long)
                    attention_mask[position, : len(encoded[index])] = 1
                hidden = self.model(
                    input_ids=input_ids.to(self.device),
                    attention_mask=attention_mask.to(self.device),
                    token_type_ids=torch.zeros_like(input_ids).to(self.device),
                ).last_hidden_state
                mask = attention_mask.to(self.device).unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                embeddings[batch] = torch.nn.functional.normalize(pooled, dim=-1).float().cpu()
        return embeddings

    def scores(self, documents: Sequence[Sequence[str]]) -> List[float]:
        """The mean adjacent-sentence cosine of each document (each a list of sentences), in [-1, 1].

        Raises:
            InputError: a document with no sentences.
        """
        return self.scores_from(*self.embed_documents(documents))

    @staticmethod
    def scores_from(embeddings: torch.Tensor, rows: Sequence[Sequence[int]]) -> List[float]:
        """The mean adjacent-sentence cosine of each document given as rows of ``embeddings``."""
        values = []
        for document_rows in rows:
            if len(document_rows) < 2:
                values.append(0.0)
                continue
            vectors = embeddings[list(document_rows)]
            cosines = (vectors[:-1] * vectors[1:]).sum(dim=-1).clamp(-1.0, 1.0)
            values.append(float(cosines.mean()))
        return values

    def embed_documents(self, documents: Sequence[Sequence[str]],
                        progress: bool = False) -> Tuple[torch.Tensor, List[List[int]]]:
        """Embed each distinct sentence once: the embeddings and, per document, its sentences' rows.

        Raises:
            InputError: a document with no sentences.
        """
        for index, sentences in enumerate(documents):
            if not sentences:
                raise InputError(f"document {index} has no sentences")
        unique = list(dict.fromkeys(sentence for sentences in documents for sentence in sentences))
        row = {sentence: number for number, sentence in enumerate(unique)}
        embeddings = self.embed(unique, progress) if unique else torch.zeros((0, self.model.config.hidden_size))
        logger.debug("sentence embeddings: %d documents, %d unique sentences", len(documents), len(unique))
        return embeddings, [[row[sentence] for sentence in sentences] for sentences in documents]


__all__ = ["SENTENCE_MAX_LENGTH", "SentenceCohesion"]
