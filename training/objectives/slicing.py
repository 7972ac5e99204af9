"""The length-invariance slice: part of a positive document, encoded by the momentum encoder."""

from __future__ import annotations

import random
from typing import List, Sequence


def document_slice(
    sentences: Sequence[str], rng: random.Random, min_sentences: int = 4, mode: str = "random"
) -> List[str]:
    """A slice of the positive document for the momentum encoder (paper section 3.4).

    Args:
        sentences: the positive document.
        rng: the caller's seeded generator.
        min_sentences: shortest slice (4 in the paper).
        mode: ``"random"``: a random contiguous slice of at least ``min_sentences`` sentences, as the paper
            says; its length is uniform on [min_sentences, n] and its start uniform where it fits.
            ``"prefix"``: the reference code's behaviour, the first k sentences with k uniform on
            [min_sentences, n - 1] (never the whole document when n > min_sentences).

    Returns:
        The slice; the whole document when it has at most ``min_sentences`` sentences.
    """
    count = len(sentences)
    if count <= min_sentences:
        return list(sentences)
    if mode == "prefix":
        return list(sentences[: rng.randrange(min_sentences, count)])
    if mode != "random":
        raise ValueError(f"slice mode must be 'random' or 'prefix', got {mode!r}")
    length = rng.randint(min_sentences, count)
    start = rng.randint(0, count - length)
    return list(sentences[start : start + length])
