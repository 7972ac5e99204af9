"""Token ids of many texts, straight from the Rust tokenizer where that gives the same ids.

A call through a Hugging Face tokenizer (``tokenizer(texts)``) resets the backend's truncation and padding, encodes
with offsets, and converts three lists per text (ids, type ids, attention mask) into a ``BatchEncoding``; the scorer
reads only the ids. ``encode_batch_fast`` on the backend skips the offsets and the conversions: measured 1.3-1.5x
faster on 4,096 news texts of 256 tokens with the default's WordPiece tokenizer, the same ids. Tokenising is most
of a scoring call's host time (see ``python -m coherence_metric.benchmarks.gpu_speed --host-only``), which is what
a GPU waits on.
"""

from __future__ import annotations

from typing import Any, List, Sequence


def _backend_matches_a_plain_call(tokenizer: Any) -> Any:
    """The tokenizer's Rust backend when encoding on it gives what ``tokenizer(texts)`` gives (no truncation or
    padding left set by an earlier call, special tokens read as the wrapper reads them); else None."""
    backend = getattr(tokenizer, "backend_tokenizer", None) if getattr(tokenizer, "is_fast", False) else None
    if backend is None or backend.truncation is not None or backend.padding is not None:
        return None
    if bool(getattr(backend, "encode_special_tokens", False)) != bool(getattr(tokenizer, "split_special_tokens",
                                                                              False)):
        return None
    return backend


def token_ids(tokenizer: Any, texts: Sequence[str], add_special_tokens: bool = True) -> List[List[int]]:
    """The ids ``tokenizer(texts, add_special_tokens=...)["input_ids"]`` gives, uncut, one list per text."""
    if not texts:
        return []
    backend = _backend_matches_a_plain_call(tokenizer)
    if backend is None:
        encoded = tokenizer(list(texts), add_special_tokens=add_special_tokens, verbose=False,
                            return_attention_mask=False, return_token_type_ids=False)
        return [list(ids) for ids in encoded["input_ids"]]
    encode = getattr(backend, "encode_batch_fast", backend.encode_batch)  # _fast: tokenizers >= 0.21
    return [encoding.ids for encoding in encode(list(texts), add_special_tokens=add_special_tokens)]


__all__ = ["token_ids"]
