"""Token ids of many texts, straight from the Rust tokenizer where that gives the same ids.

A call through a Hugging Face tokenizer (``tokenizer(texts)``) resets the backend's truncation and padding, encodes
with offsets, and converts three lists per text (ids, type ids, attention mask) into a ``BatchEncoding``; the scorer
reads only the ids. ``encode_batch_fast`` on the backend skips the offsets and the conversions: measured 1.3-1.5x
faster on 4,096 news texts of 256 tokens with the fast tier's WordPiece tokenizer, the same ids. Tokenising is most
of a scoring call's host time (see ``python -m coherence_metric.benchmarks.speed.gpu_speed --host-only``), which is what
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


#: Characters kept per token of a bounded prefix (:func:`bounded_prefixes`): English averages about 4 characters a
#: token, so a prefix this long holds far more tokens than it must, and it is checked.
CHARACTERS_PER_TOKEN_KEPT = 32


def bounded_prefixes(tokenizer: Any, texts: Sequence[str], keep_tokens: int) -> List[str]:
    """Each text, or, for a text too long to read whole, a prefix of it whose first ``keep_tokens + 1`` tokens are
    the text's own: what a scorer that cuts at ``keep_tokens`` tokens reads from it, at a bounded cost.

    Why: a text (or one sentence) of megabytes is cut at ``max_length`` tokens anyway, yet tokenising all of it to
    learn that took seconds and gigabytes per megabyte. A text longer than ``CHARACTERS_PER_TOKEN_KEPT * (keep_tokens
    + 1)`` characters is cut at the last whitespace before that length (so no word is split: the tokenizers read
    words one at a time, and the prefix's tokens are the text's first tokens); the prefix is used only when it
    tokenises to more than ``keep_tokens`` tokens, so whether the text is too long, and its first ``keep_tokens``
    tokens, are exactly the whole text's. Otherwise (a text of a few giant words) the whole text is kept.
    """
    limit = CHARACTERS_PER_TOKEN_KEPT * (keep_tokens + 1)
    cut: dict = {}
    for position, text in enumerate(texts):
        if len(text) > limit:
            end = max(text.rfind(" ", 0, limit), text.rfind("\n", 0, limit))
            if end > 0:
                cut[position] = text[:end]
    if not cut:
        return list(texts)
    counts = token_ids(tokenizer, list(cut.values()), add_special_tokens=False)
    bounded = list(texts)
    for (position, prefix), ids in zip(cut.items(), counts):
        if len(ids) > keep_tokens:
            bounded[position] = prefix
    return bounded
