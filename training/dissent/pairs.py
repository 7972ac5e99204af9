"""The extracted (S1, marker, S2) record, the paper's length filters, and how a clause becomes a sentence.

Both extractors (dependency parse and surface patterns) end here, so the two produce pairs that look
alike: S1 and S2 start with a capital and end with one full stop whatever punctuation the original had.
Why normalise the ending: an S2 cut from the end of a sentence would otherwise keep its "?" or "!" while
an S1 cut from the start never has one, a position cue unrelated to the marker.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Dict, Optional

MIN_WORDS = 5
MAX_WORDS = 50
MAX_RATIO = 5.0

SAME_SENTENCE = "SS"
PREVIOUS_SENTENCE = "IPS"

_EDGE_PUNCTUATION = " \t\n,;:.!?-\u2013\u2014\"'`\u201c\u201d\u2018\u2019()[]"
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Pair:
    """One training example: S1 and S2 linked by ``marker`` in the original text.

    Attributes:
        s1: the first argument (in the paper's conceptual order: for "Because S2, S1" it is the main clause).
        s2: the clause the marker introduces.
        marker: the discourse marker, lower case (the class label).
        doc_id: the Document the pair came from (its split is ``split_of(doc_id)``).
        where: ``"SS"`` when both came from one sentence, ``"IPS"`` when S1 is the previous sentence.
        method: ``"dependency"`` or ``"pattern"``: which extractor found it.
    """

    s1: str
    s2: str
    marker: str
    doc_id: str = ""
    where: str = SAME_SENTENCE
    method: str = "dependency"

    def to_json(self) -> Dict[str, Any]:
        """A JSON-ready dict (one line of the cached pair files)."""
        return asdict(self)

    @classmethod
    def from_json(cls, values: Dict[str, Any]) -> "Pair":
        """The inverse of :meth:`to_json`."""
        return cls(**values)


def as_sentence(text: str) -> Optional[str]:
    """A clause as a stand-alone sentence: outer punctuation and quotes removed, capitalised, one full stop.

    Returns None when nothing but punctuation is left.
    """
    core = _SPACES.sub(" ", text).strip(_EDGE_PUNCTUATION)
    if not core:
        return None
    return core[0].upper() + core[1:] + "."


def word_count(text: str) -> int:
    """Words as the paper counts them for its filters (whitespace-separated)."""
    return len(text.split())


def lengths_ok(s1: str, s2: str, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS,
               max_ratio: float = MAX_RATIO) -> bool:
    """The paper's filter (appendix A.1): each side 5 to 50 words and neither more than 5 times the other."""
    first, second = word_count(s1), word_count(s2)
    if not (min_words <= first <= max_words and min_words <= second <= max_words):
        return False
    return max(first, second) <= max_ratio * min(first, second)


__all__ = ["MAX_RATIO", "MAX_WORDS", "MIN_WORDS", "PREVIOUS_SENTENCE", "Pair", "SAME_SENTENCE", "as_sentence",
           "lengths_ok", "word_count"]
