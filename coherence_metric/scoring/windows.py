"""Overlapping sentence windows for texts longer than the model's ``max_length`` (``truncation="window"``).

Texts are cut at sentence boundaries, never mid-sentence, because a coherence model judges how sentences
follow each other; consecutive windows share about half their sentences so every transition between two
sentences is seen inside at least one window. :func:`window_units` cuts sentence lists the same way for the code
that scores windows outside the scorer: training on long texts as the metric scores them
(``objective.window_long``), the dev comparison of overlaps and the long-text speed benchmark.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple


def sentence_windows(sentence_lengths: Sequence[int], budget: int,
                     overlap: Optional[int] = None) -> List[Tuple[int, int]]:
    """Spans ``[start, end)`` of consecutive sentences whose token counts fit in ``budget``.

    Each window takes as many sentences as fit; the next one starts halfway through it (at least one
    sentence later), so neighbouring windows overlap by about half. A single sentence longer than the
    budget becomes a window of its own (it will be truncated, and counted as such).

    Args:
        sentence_lengths: tokens per sentence, without special tokens.
        budget: tokens available per window (``max_length`` minus the special tokens).
        overlap: None (what the scorer does): about half; k: the next window repeats the last k sentences of
            the one before (at least one sentence later). Only the dev comparison of overlaps
            (``training/pointwise/window_overlap.py``) passes k: fewer windows are faster but change scores.

    Returns:
        The windows in order; the last one always ends at the last sentence.
    """
    if budget < 1:
        raise ValueError("window budget must be at least one token")
    count = len(sentence_lengths)
    windows: List[Tuple[int, int]] = []
    start = 0
    while start < count:
        end, used = start, 0
        while end < count and used + sentence_lengths[end] <= budget:
            used += sentence_lengths[end]
            end += 1
        end = max(end, start + 1)
        windows.append((start, end))
        if end >= count:
            break
        start = start + max(1, (end - start) // 2) if overlap is None else max(start + 1, end - overlap)
    return windows


def windowed_sentences(documents: Sequence[Sequence[str]], sentence_lengths: Sequence[int], budget: int,
                       overlap: Optional[int] = None) -> Tuple[List[List[str]], List[int]]:
    """The sentence windows of ``documents`` (each too long to read whole) and the document each belongs to.

    Args:
        documents: each a list of sentences.
        sentence_lengths: tokens of every sentence of every document, in order, without special tokens (one
            batched tokenizer call for all of them).
        budget: tokens available per window (``max_length`` minus the special tokens).
        overlap: see :func:`sentence_windows`; None for the scorer's.
    """
    windows: List[List[str]] = []
    owners: List[int] = []
    offset = 0
    for index, document in enumerate(documents):
        for start, end in sentence_windows(sentence_lengths[offset:offset + len(document)], budget, overlap):
            windows.append(list(document[start:end]))
            owners.append(index)
        offset += len(document)
    return windows, owners


def window_units(tokenizer: Any, texts: Sequence[Sequence[str]], max_length: int,
                 overlap: Optional[int] = None) -> Tuple[List[List[str]], List[int]]:
    """The units to score for ``texts`` (each a list of sentences) and the text each belongs to: a text within
    ``max_length`` tokens is one unit; a longer one is its sentence windows (:func:`windowed_sentences`, the
    scorer's budget: ``max_length`` less the special tokens; ``overlap``: None for the scorer's). For code that
    scores windows outside the scorer, which windows texts it has already tokenised."""
    lengths = [len(ids) for ids in
               tokenizer([" ".join(text) for text in texts], add_special_tokens=True, verbose=False)["input_ids"]]
    long_indices = [index for index, length in enumerate(lengths) if length > max_length]
    long_texts = [texts[index] for index in long_indices]
    flat = [sentence for text in long_texts for sentence in text]
    sentence_lengths = ([len(ids) for ids in tokenizer(flat, add_special_tokens=False, verbose=False)["input_ids"]]
                        if flat else [])
    windows, window_owners = windowed_sentences(long_texts, sentence_lengths,
                                                max_length - tokenizer.num_special_tokens_to_add(), overlap)
    windows_of: Dict[int, List[List[str]]] = {}
    for window, owner in zip(windows, window_owners):
        windows_of.setdefault(long_indices[owner], []).append(window)
    units: List[List[str]] = []
    owners: List[int] = []
    for index, text in enumerate(texts):  # in text order, each long text's windows in place of it
        pieces = windows_of.get(index, [list(text)])
        units.extend(pieces)
        owners.extend([index] * len(pieces))
    return units, owners


def window_tokens(tokenizer: Any, texts: Sequence[Sequence[str]], max_length: int,
                  overlap: Optional[int] = None) -> int:
    """Tokens the document pass reads for ``texts`` windowed as :func:`window_units` windows them, special tokens
    included: the cost of an overlap, beside the words it reads."""
    units, _ = window_units(tokenizer, texts, max_length, overlap)
    encoded = tokenizer([" ".join(unit) for unit in units], truncation=True, max_length=max_length)["input_ids"]
    return sum(len(ids) for ids in encoded)
