"""Local negatives: one transition of a coherent text broken, its length kept.

A global negative (a shuffle) changes every transition; a generator's real error breaks one. These kinds each break
one place and keep the sentence count, so that a model trained on them sees order and reference locally and cannot
use length as a cue. They are built from linguistic descriptions only (a sentence moved by one position, a
same-topic intruder, a wrong connective, a pronoun that points at the wrong referent), never from the probe test
sets. Same contract as :mod:`coherence_metric.research.corruptions`: ``(sentences, rng, pool=None) -> corrupted
sentences or None``, deterministic given ``rng``, None when the kind cannot apply, never a silent copy.
"""

from __future__ import annotations

import random
import re
from typing import Dict, List, Optional, Sequence, Tuple

#: Other documents' sentences (``similar_intrusion`` reads it).
Pool = Optional[Sequence[Sequence[str]]]

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_STOP = frozenset("""
a an the and or but if of to in on at by for with from as is are was were be been being it its this that these those
he she they them his her their him we our you your i me my not no so than then there here which who whom what when
where why how all any some more most such can could will would shall should may might must do does did has have had
said says also into over after before about up out just only very new one two three
""".split())


def _content_words(sentence: str) -> frozenset:
    return frozenset(word.lower() for word in _WORD.findall(sentence) if word.lower() not in _STOP and len(word) > 2)


def _differs(original: Sequence[str], result: List[str]) -> Optional[List[str]]:
    """The result, or None when it reads exactly like the original (whitespace aside), or when the original holds no
    word at all (punctuation only: nothing to corrupt)."""
    if " ".join(" ".join(original).split()) == " ".join(" ".join(result).split()):
        return None
    if not any(character.isalnum() for sentence in original for character in sentence):
        return None
    return result


def adjacent_swap(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """Two adjacent sentences in each other's place: one sentence moved by one position (the smallest disorder)."""
    if len(sentences) < 2:
        return None
    candidates = [index for index in range(len(sentences) - 1)
                  if " ".join(sentences[index].split()) != " ".join(sentences[index + 1].split())]
    if not candidates:
        return None
    index = rng.choice(candidates)
    result = list(sentences)
    result[index], result[index + 1] = result[index + 1], result[index]
    return _differs(sentences, result)


def similar_intrusion(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """One sentence (not the first) replaced by the other document's sentence that shares most content words with it.

    A harder intruder than a random one (``intrusion``): on the same topic, so only its fit with its neighbours gives
    it away. The neighbour is lexical (content-word overlap), which needs no model and no tokenizer.
    """
    if len(sentences) < 2 or not pool:
        return None
    own = {" ".join(sentence.split()) for sentence in sentences}
    candidates = [sentence for document in pool for sentence in document
                  if sentence.strip() and " ".join(sentence.split()) not in own and _WORD.search(sentence)]
    if not candidates:
        return None
    index = rng.randrange(1, len(sentences))
    target = _content_words(sentences[index]) | _content_words(sentences[index - 1])
    scored = sorted(((len(target & _content_words(candidate)), position) for position, candidate
                     in enumerate(candidates)), reverse=True)
    best = [position for overlap, position in scored[:3] if overlap == scored[0][0]] or [scored[0][1]]
    result = list(sentences)
    result[index] = candidates[rng.choice(best)]
    return _differs(sentences, result)


#: Connectives by the relation they signal; a swap takes one of another relation.
_CONNECTIVES: Dict[str, Tuple[str, ...]] = {
    "contrast": ("however", "but", "yet", "nevertheless", "instead", "still", "on the other hand"),
    "result": ("therefore", "so", "thus", "consequently", "as a result", "hence"),
    "addition": ("also", "moreover", "furthermore", "in addition", "besides"),
    "time": ("then", "later", "afterwards", "meanwhile", "finally", "first"),
    "example": ("for example", "for instance"),
}
_RELATION = {word: relation for relation, words in _CONNECTIVES.items() for word in words}
_OPENING = re.compile(r"^(\W*)(" + "|".join(sorted((re.escape(word) for word in _RELATION), key=len, reverse=True))
                      + r")\b", re.IGNORECASE)


def _with_case(template: str, text: str) -> str:
    return text[:1].upper() + text[1:] if template[:1].isupper() else text


def connective_swap(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """A sentence-opening connective ("However", "As a result", "Then") replaced by one signalling another relation.

    The sentences stay the same; what they claim about each other becomes wrong (a cause read as a contrast). When no
    sentence after the first opens with a connective, one is added to a sentence after the first ("Therefore, ..."):
    an unwarranted relation is the same error. None for a one-sentence text.
    """
    if len(sentences) < 2:
        return None
    result = list(sentences)
    openers = [(index, match) for index, sentence in enumerate(sentences)
               if index > 0 and (match := _OPENING.match(sentence)) is not None]
    if openers:
        index, match = rng.choice(openers)
        relation = _RELATION[match.group(2).lower()]
        others = [word for other, words in _CONNECTIVES.items() if other != relation for word in words]
        replacement = _with_case(match.group(2), rng.choice(others))
        result[index] = sentences[index][:match.start(2)] + replacement + sentences[index][match.end(2):]
        return _differs(sentences, result)
    index = rng.randrange(1, len(sentences))
    sentence = sentences[index].lstrip()
    if not sentence or not sentence[0].isalpha():
        return None
    relation = rng.choice(["contrast", "result"])
    word = rng.choice(_CONNECTIVES[relation][:3])
    keeps_capital = sentence.split()[0] in ("I", "I'm") or sentence[:2].isupper()
    lowered = sentence if keeps_capital else sentence[0].lower() + sentence[1:]
    comma = " ," if " , " in " ".join(sentences) or " . " in " ".join(sentences) else ","
    result[index] = _with_case(sentence, word) + comma + " " + lowered
    return _differs(sentences, result)


#: Third-person pronouns and the wrong referents they may be switched to (gender, number, animacy).
_PRONOUN_SWITCHES: Dict[str, Tuple[str, ...]] = {
    "he": ("she", "it", "they"), "she": ("he", "it", "they"), "it": ("he", "she", "they"), "they": ("he", "she", "it"),
    "him": ("her", "it", "them"), "them": ("him", "her", "it"),
    "his": ("her", "its", "their"), "its": ("his", "her", "their"), "their": ("his", "her", "its"),
    "himself": ("herself", "itself", "themselves"), "herself": ("himself", "itself", "themselves"),
}
_PRONOUN = re.compile(r"\b(" + "|".join(_PRONOUN_SWITCHES) + r")\b", re.IGNORECASE)


def pronoun_switch(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """A third-person pronoun after the first sentence switched to another gender, number or animacy ("he" -> "it").

    The pronoun then points at no one the text introduced, or at the wrong one. "her" is left alone (it is both "him"
    and "his"). None when no sentence after the first holds such a pronoun.
    """
    places = [(index, match) for index, sentence in enumerate(sentences) if index > 0
              for match in _PRONOUN.finditer(sentence)]
    if not places:
        return None
    index, match = rng.choice(places)
    word = match.group(1)
    replacement = _with_case(word, rng.choice(_PRONOUN_SWITCHES[word.lower()]))
    result = list(sentences)
    result[index] = sentences[index][:match.start(1)] + replacement + sentences[index][match.end(1):]
    return _differs(sentences, result)


LOCAL_CORRUPTIONS = {
    "adjacent_swap": adjacent_swap,
    "similar_intrusion": similar_intrusion,
    "connective_swap": connective_swap,
    "pronoun_switch": pronoun_switch,
}

LOCAL_KIND_DESCRIPTIONS = {
    "adjacent_swap": "two adjacent sentences swapped (one sentence moved by one position)",
    "similar_intrusion": "one sentence (not the first) replaced by the other document's sentence sharing most "
                         "content words with it (a same-topic intruder)",
    "connective_swap": "a sentence-opening connective replaced by one of another relation, or an unwarranted one added",
    "pronoun_switch": "a third-person pronoun after the first sentence switched to another gender, number or animacy",
}


def fit_length(original: Sequence[str], corrupted: Optional[List[str]]) -> Optional[List[str]]:
    """The corrupted text cut back to the original's sentence count (its extra trailing sentences dropped), or None
    when the corruption lived only in what was dropped. Shorter results are kept as they are.

    Why: kinds that insert a sentence (a repeat, a restatement, a contradiction) made negatives longer than their
    positives, and a model learned that fewer sentences read as more coherent.
    """
    if corrupted is None or len(corrupted) <= len(original):
        return corrupted
    return _differs(original, list(corrupted[: len(original)]))


__all__ = ["LOCAL_CORRUPTIONS", "LOCAL_KIND_DESCRIPTIONS", "adjacent_swap", "connective_swap", "fit_length",
           "pronoun_switch", "similar_intrusion"]
