"""Surface-pattern extraction: the fallback when no dependency parser is installed (``data.parser: patterns``).

Without a parse, only two positions of a marker are trusted, the two the paper's own examples show:

- the marker starts the sentence (S2-initial). Coordinators and adverbials ("But S2.", "Then, S2.") take
  S1 = the previous sentence, as the paper does; a subordinator needs a comma and gives "Because S2, S1"
  within the sentence. (The paper also pairs a lone "Because S2." with the previous sentence; without a
  parse that cannot be told from "After the war the firm grew.", so the fallback does not.)
- the marker joins two clauses: ", and S2" / "; then S2" (coordinators and adverbials need the comma or
  semicolon: "black and white" is not a discourse use), "S1 because S2" (subordinators; "as" needs a
  comma, as it is mostly a preposition otherwise).

What stands in for the parse, and what it costs: S2 must start like a clause, with a pronoun, a
determiner or a capitalised word (its subject), and both sides must hold a verb-like word (an
auxiliary or modal, a common irregular past form, or a word ending in "-ed"), or follow a personal
pronoun. Known misses: "if" and "when" after verbs of asking or knowing are complements, not
conditions, and are rejected from a short list; anything subtler (an "as" of manner, a nominal "and"
between clauses) gets through. Hand-checked precision on 50 sampled pairs: 38 / 50 (76%), against
45 / 50 for the dependency extractor (training/dissent/EXTRACTION.md).
"""

from __future__ import annotations

import re
from typing import Iterable, List, Optional, Tuple

from .extraction import Extraction
from .markers import marker_kinds
from .pairs import PREVIOUS_SENTENCE, SAME_SENTENCE, as_sentence

PRONOUNS = frozenset({"i", "you", "he", "she", "it", "we", "they"})
SUBJECT_STARTS = PRONOUNS | frozenset({
    "there", "this", "these", "those", "one", "someone", "somebody", "nobody", "no", "nothing", "everyone",
    "everybody", "everything", "something", "many", "some", "most", "all", "each", "both", "few", "several",
    "neither", "none", "the", "a", "an", "his", "her", "its", "their", "our", "my", "your", "another", "every",
    "any",
})
VERB_WORDS = frozenset({
    "am", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does", "did", "will",
    "would", "can", "could", "shall", "should", "may", "might", "must", "went", "came", "said", "made", "took",
    "got", "saw", "knew", "thought", "told", "found", "gave", "felt", "left", "began", "ran", "sat", "stood",
    "heard", "brought", "kept", "held", "became", "fell", "met", "put", "set", "rose", "grew", "won", "lost",
    "paid", "sold", "bought", "led", "meant", "spent", "built", "sent", "wrote", "spoke", "broke", "chose",
})
COMPLEMENT_VERBS = frozenset({
    "ask", "asks", "asked", "asking", "wonder", "wonders", "wondered", "wondering", "know", "knows", "knew",
    "see", "sees", "saw", "sure", "unsure", "decide", "decides", "decided", "tell", "tells", "told", "check",
    "learn", "learned", "remember", "remembered", "forget", "forgot", "doubt", "doubted", "unclear", "clear",
    "whether", "determine", "determined", "say", "says", "said", "find", "found", "understand", "understood",
})
BLOCKED_BEFORE = frozenset({"and", "or", "but", "even", "just", "only", "not", "as", "so", "such", "well", "than",
                            "if", "because", "when", "while", "then", "that"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019]*")
_CLAUSE_BREAK = frozenset({",", ";"})
_DEGREE_WORDS = frozenset({"many", "much", "few", "little"})
_CONTRACTIONS = ("n't", "'re", "'ve", "'ll", "'m", "'d")  # not "'s": "the actor's troubles" has no verb


def _words(text: str) -> List[str]:
    return _WORD.findall(text)


def _has_verb(text: str) -> bool:
    """A verb-like word before the first semicolon ("after his death; the sale grossed" has none)."""
    words = [word.lower().replace("\u2019", "'") for word in _words(text.split(";")[0])]
    if not words:
        return False
    if words[0] in PRONOUNS and len(words) > 1:
        return True
    return any(word in VERB_WORDS or word.endswith(_CONTRACTIONS) or (len(word) > 4 and word.endswith("ed"))
               for word in words)


def _starts_clause(text: str) -> bool:
    words = _words(text)
    if not words:
        return False
    first = words[0]
    return first.lower() in SUBJECT_STARTS or (first[0].isupper() and first.lower() not in BLOCKED_BEFORE)


def _pair(s1: Optional[str], s2: str, marker: str, where: str) -> Optional[Extraction]:
    if s1 is None or not _starts_clause(s2) or not _has_verb(s2) or not _has_verb(s1):
        return None
    first, second = as_sentence(s1), as_sentence(s2)
    if first is None or second is None:
        return None
    return Extraction(first, second, marker, where)


def _sentence_initial(sentence: str, marker: str, kinds: Iterable[str], previous: Optional[str],
                      end: int) -> Optional[Extraction]:
    rest = sentence[end:].lstrip(" ,")
    if "subordinator" in kinds or "wh" in kinds:
        comma = rest.find(", ")
        while comma != -1:  # "Because S2, S1": the first comma that opens a clause
            if _starts_clause(rest[comma + 2:]):
                found = _pair(rest[comma + 2:], rest[:comma], marker, SAME_SENTENCE)
                if found is not None:
                    return found
            comma = rest.find(", ", comma + 2)
        if "adverbial" not in kinds:  # "After the war the firm grew.": without a parse, looks like "After S2."
            return None
    return _pair(previous, rest, marker, PREVIOUS_SENTENCE)


def _joining(sentence: str, marker: str, kinds: Iterable[str], start: int, end: int) -> Optional[Extraction]:
    left, right = sentence[:start].rstrip(), sentence[end:].strip()
    separated = bool(left) and left[-1] in _CLAUSE_BREAK
    left_words = [word.lower() for word in _words(left)]
    if not left_words or left_words[-1] in BLOCKED_BEFORE:
        return None
    needs_break = ("subordinator" not in kinds and "wh" not in kinds) or marker == "as"
    if needs_break and not separated:
        return None
    if marker in ("if", "when") and left_words[-1] in COMPLEMENT_VERBS:
        return None
    if marker == "so" and _words(right)[:1] and _words(right)[0].lower() in _DEGREE_WORDS:  # "so many people"
        return None
    return _pair(left, right, marker, SAME_SENTENCE)


def extract_with_patterns(sentence: str, previous: Optional[str], markers: Iterable[str]) -> List[Extraction]:
    """Every (S1, marker, S2) the surface patterns find in one sentence, in text order.

    Args:
        sentence: one corpus sentence.
        previous: the sentence before it (None for a document's first sentence).
        markers: the markers to look for (lower case).
    """
    found: List[Tuple[int, Extraction]] = []
    for marker in markers:
        kinds = marker_kinds(marker)
        for match in re.finditer(rf"\b{re.escape(marker)}\b", sentence, flags=re.IGNORECASE):
            if not _words(sentence[: match.start()]):
                extraction = _sentence_initial(sentence, marker, kinds, previous, match.end())
            else:
                extraction = _joining(sentence, marker, kinds, match.start(), match.end())
            if extraction is not None:
                found.append((match.start(), extraction))
    return [extraction for _, extraction in sorted(found, key=lambda item: item[0])]

__all__ = ["extract_with_patterns"]
