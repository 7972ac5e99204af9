"""Sentence splitting shared by the scorer (window truncation) and the training data pipeline.

Why sentencex (Wikimedia, MIT): it is rule-based and deterministic, needs no model download
(offline-first), has no dependencies, keeps abbreviations such as "Mr.", "D.C." and "p.m." inside
their sentence, and splits ~300 KB of Wikipedia text in about 10 ms. We looked at the others:
pysbd installs stray top-level ``benchmarks`` and ``examples`` packages that shadow ours; spaCy's
rule-based sentencizer is 50x slower here, adds a large dependency tree and splits quotes oddly;
NLTK's punkt needs a data download. Using one splitter everywhere keeps training and scoring
documents segmented the same way.
"""

from __future__ import annotations

from typing import List

LANGUAGE = "en"


def split_sentences(text: str, language: str = LANGUAGE) -> List[str]:
    """Split ``text`` into sentences, stripped of surrounding whitespace, with empty pieces dropped.

    Args:
        text: any plain text; paragraph breaks are sentence breaks.
        language: an ISO 639 code understood by sentencex.

    Returns:
        The sentences in order; an empty list for blank text.
    """
    from sentencex import segment

    sentences: List[str] = []
    for paragraph in text.split("\n\n"):
        for piece in segment(language, paragraph):
            piece = " ".join(piece.split())
            if piece:
                sentences.append(piece)
    return sentences
