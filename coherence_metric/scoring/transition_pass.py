"""The transition pass: per boundary of a text, the transition model's trained reading of whether the next sentence
follows (``explain``'s ``transition-model`` mechanism, and a checkpoint's transition term); the model is loaded here,
once per process, from its checkpoint folder (:mod:`coherence_metric.models.transition_registry`).

Why a model of its own: a document checkpoint is trained to score whole texts, and read on two sentences alone it
mostly scores each sentence's own quality, not the link between them (``pair-alone`` put its lowest transition on the
break less often than the adjacent-sentence cosine; docs/explain.md). The cosine sees a jump in topic but not order:
a swapped pair or a moved sentence stays on topic. A model reading frozen sentence embeddings did no better than the
cosine (docs/explain.md). This one reads the words: for the boundary after sentence i, the input is the pair
(sentences i-1 and i, sentence i+1) as one cross-encoded text pair, so attention can link a pronoun, a connective
or a repeated entity in the next sentence to what came before. It is all-MiniLM-L6-v2 fine-tuned on every layer
with a linear head on the mean-pooled output, trained on the training split of the news and story corpora to put
intruded, moved and swapped boundaries below intact ones (:mod:`coherence_metric.training.transition_model`), and
stored as a checkpoint folder (a bf16 delta over the pretrained encoder, every file's sha256 verified on load).

A boundary's value is the model's logit of "follows" (higher: the next sentence follows; below 0, the model reads a
break). Pairs are scored in float32, length-sorted, so a text's values do not depend on the other texts of the call
(up to float rounding, about 1e-6).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch

from ..models.checkpoint import load_checkpoint
from ..models.transition_registry import (
    DEFAULT_TRANSITION_MODEL,
    PACKAGED_DIR,
    transition_model_folder,
    transition_model_identity,
)
from ..models.transition_term import TransitionTerm
from .batching import pad_batch, plan_batches
from .local_term import group_by_owner
from .progress import TRANSITIONS, with_progress
from .runtime import autocast_context

#: Sentences before the boundary that the model reads (the last of them is the one the boundary follows).
LEFT_CONTEXT = 2
#: Word pieces per pair at most (two short sentences and one more fit; longer pairs lose the context's end first).
PAIR_MAX_LENGTH = 160
#: Padded tokens per forward pass.
MAX_TOKENS_PER_BATCH = 8192


def boundary_pairs(sentences: Sequence[str]) -> List[Tuple[str, str]]:
    """The (context, next sentence) pair of each boundary of a text: ``LEFT_CONTEXT`` sentences up to the boundary,
    and the sentence after it; none for a one-sentence text. Training and ``explain`` both build inputs here."""
    return [(" ".join(sentences[max(0, cut - LEFT_CONTEXT):cut]), sentences[cut]) for cut in range(1, len(sentences))]


def encode_pairs(tokenizer: Any, pairs: Sequence[Tuple[str, str]]) -> List[List[int]]:
    """Token ids of each pair (``[CLS] context [SEP] next [SEP]``), cut to ``PAIR_MAX_LENGTH`` from the longer side."""
    if not pairs:
        return []
    encoded = tokenizer([left for left, _ in pairs], [right for _, right in pairs], truncation="longest_first",
                        max_length=PAIR_MAX_LENGTH, verbose=False)
    return [list(ids) for ids in encoded["input_ids"]]


def pair_logits(model: Any, tokenizer: Any, ids: Sequence[Sequence[int]], device: Union[str, torch.device]
                ) -> List[float]:
    """The model's logit for each encoded pair, batched longest first, in float32, under ``inference_mode``."""
    values = [0.0] * len(ids)
    with torch.inference_mode():
        batches = plan_batches([len(sequence) for sequence in ids], MAX_TOKENS_PER_BATCH, limit=PAIR_MAX_LENGTH)
        for batch in with_progress(batches, False, TRANSITIONS, len(batches)):  # lines only, inside progress_lines
            padded = pad_batch(tokenizer, [ids[index] for index in batch], limit=PAIR_MAX_LENGTH)
            logits = model(padded["input_ids"].to(device), padded["attention_mask"].to(device))
            for index, value in zip(batch, logits.float().cpu().tolist()):
                values[index] = float(value)
    return values


def transition_values(model: Any, tokenizer: Any, sentence_lists: Sequence[Sequence[str]],
                      device: Union[str, torch.device],
                      build: Callable[[Sequence[str]], List[Tuple[str, str]]] = boundary_pairs) -> List[List[float]]:
    """Per text, ``model``'s logit for each pair ``build`` makes of it (its boundary pairs unless told), all texts'
    pairs in one batched pass (the shipped model in ``explain``, a model in training on the dev localisation sets,
    other readings of a boundary in a dev study)."""
    pairs: List[Tuple[str, str]] = []
    owners: List[int] = []
    for owner, sentences in enumerate(sentence_lists):
        text_pairs = build(list(sentences))
        pairs.extend(text_pairs)
        owners.extend([owner] * len(text_pairs))
    logits = pair_logits(model, tokenizer, encode_pairs(tokenizer, pairs), device)
    return group_by_owner(logits, owners, len(sentence_lists))


class TransitionModel:
    """A loaded transition model: its checkpoint's model and tokenizer on one device, and its identity.

    Args:
        name_or_path: a packaged model's name (``tm-minilm-2026.11``) or a checkpoint folder.
        device: where it runs.
        local_files_only: never look for its backbone on the Hub.

    Raises:
        InputError: neither a packaged name nor a checkpoint folder.
        CheckpointError: a file whose sha256 is not the recorded one, or a config that does not load.
    """

    def __init__(self, name_or_path: Union[str, Path] = DEFAULT_TRANSITION_MODEL,
                 device: Union[str, torch.device] = "cpu", local_files_only: bool = False) -> None:
        folder = transition_model_folder(name_or_path)
        loaded = load_checkpoint(folder, local_files_only=local_files_only)
        self.folder = folder
        self.name = folder.name
        self.fingerprint = loaded.config.fingerprint()
        self.device = device
        self.model = loaded.model.float().to(device).eval()
        self.tokenizer = loaded.tokenizer

    def transition_values(self, sentence_lists: Sequence[Sequence[str]]) -> List[List[float]]:
        """Per text, one logit per boundary (none for a one-sentence text)."""
        return transition_values(self.model, self.tokenizer, sentence_lists, self.device)


# Per (name, device): a packaged transition model, loaded (and verified) once per process.
_TRANSITION_MODELS: Dict[Tuple[str, str], TransitionModel] = {}
_TRANSITION_MODELS_LOCK = threading.Lock()


def shipped_transition_model(device: Any = "cpu", name: Optional[str] = None,
                             local_files_only: bool = False) -> TransitionModel:
    """A packaged transition model (``DEFAULT_TRANSITION_MODEL`` unless named) on ``device``, loaded (every file's
    sha256 verified) on first use, then shared by every scorer and thread of the process (``local_files_only``:
    its backbone is never looked for on the Hub).

    Raises:
        InputError: no packaged transition model of that name.
        CheckpointError: a packaged file does not match its recorded sha256.
    """
    key = (name or DEFAULT_TRANSITION_MODEL, str(device))
    with _TRANSITION_MODELS_LOCK:
        if key not in _TRANSITION_MODELS:
            _TRANSITION_MODELS[key] = TransitionModel(key[0], device=device, local_files_only=local_files_only)
        return _TRANSITION_MODELS[key]


def boundary_logits(sentence_lists: Sequence[Sequence[str]], term: TransitionTerm, device: Any,
                    dtype: str, local_files_only: bool = False) -> List[List[float]]:
    """Per text, the logit of each boundary (none for a one-sentence text) of the transition model a checkpoint's
    transition term names, on the scorer's device in the scorer's dtype (``local_files_only``: the scorer's)."""
    model = shipped_transition_model(device, term.model, local_files_only)
    with autocast_context(dtype, device):
        return model.transition_values(sentence_lists)


__all__ = ["DEFAULT_TRANSITION_MODEL", "LEFT_CONTEXT", "PACKAGED_DIR", "PAIR_MAX_LENGTH", "TransitionModel",
           "boundary_logits", "boundary_pairs", "encode_pairs", "pair_logits", "shipped_transition_model",
           "transition_model_folder", "transition_model_identity", "transition_values"]
