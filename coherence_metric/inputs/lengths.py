"""What a reader of a comparison must know before its numbers: whether the systems' outputs differ in length (a
score difference may then be a length difference), and the metric's known limits. Plain Python, so the CLI can warn
before any model loads; :class:`coherence_metric.systems.SystemsComparison` carries the same lines as ``notes``."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

#: Outputs whose mean lengths differ by more than this share are flagged: a score difference may be a length one.
LENGTH_GAP = 0.3
#: What every comparison of systems carries with it (tables, JSON, the HTML report): the limits MODELS.md measures.
KNOWN_LIMITS_NOTE = ("Known limits: the metric's ranking of systems agrees with people's only in part, a text cut "
                     "short can outscore the whole, and part of a score difference can be length (MODELS.md).")


def word_count(text: Any) -> int:
    """A text's length in words: a string, or a list of sentences (None and other non-texts count as empty)."""
    return len((text if isinstance(text, str) else " ".join(text) if isinstance(text, list) else "").split())


def length_note(texts: Mapping[str, Sequence[Any]]) -> Optional[str]:
    """One line when the systems' mean lengths in words differ by more than :data:`LENGTH_GAP`, else None; a text
    may be a string or a list of sentences (None and other non-texts count as empty)."""
    return length_note_of_words({name: [word_count(item) for item in items] for name, items in texts.items()})


def length_note_of_words(words: Mapping[str, Sequence[int]]) -> Optional[str]:
    """:func:`length_note` from each system's texts' lengths in words (what a saved result keeps of its texts)."""
    means = {name: sum(counts) / max(1, len(counts)) for name, counts in words.items()}
    if not means:
        return None
    shortest, longest = min(means, key=means.__getitem__), max(means, key=means.__getitem__)
    if means[shortest] <= 0 or means[longest] <= (1 + LENGTH_GAP) * means[shortest]:
        return None
    percent = round(100 * (means[longest] / means[shortest] - 1))
    return (f"the systems' mean lengths differ by {percent}% ({longest} {means[longest]:.1f} words, {shortest} "
            f"{means[shortest]:.1f}): part of a score difference may be length; compare length-matched pairs, or "
            "read the scores against word count")
