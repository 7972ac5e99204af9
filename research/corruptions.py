"""Corrupted negatives that look like the errors text generators make.

Permutations and intrusions teach a model that a text's order and content must fit, but a generator's summary
or story continuation is rarely a shuffle: it loops on a sentence or a clause, restates what it just said,
stops mid-thought, refers to someone it never introduced, swaps names or numbers, contradicts itself or
drifts to another topic. Each kind here imitates one such error on a coherent text given as its sentences,
so training can rank the text above it (the ``data.<kind>`` knobs), and so the benchmarks' synthetic dev checks
can break dev documents the same ways with a known broken sentence (``research``: both layers import it).

Every kind is a function ``(sentences, rng, pool=None) -> corrupted sentences or None``:

- pure Python and rule-based (no model, no tokenizer); whitespace tokens, so normal text ("He said, “We
  won.”") and lower-cased PTB-tokenised text ("he said , `` we won . ''") both work;
- deterministic given ``rng`` (a ``random.Random``): nothing iterates over a set or depends on hashing;
- None when the kind cannot apply to this text (too few sentences, no name to swap, no pronoun to leave
  dangling, ...), never a silent copy: a result whose text equals the input's (whitespace aside) is None too;
- ``pool`` (other documents' sentences, given by the caller) is read only by ``topic_switch``.

``corrupt`` draws one applicable kind among those asked; ``CORRUPTIONS`` maps each kind's name to its function
and ``KIND_DESCRIPTIONS`` says in one line what each makes.
"""

from __future__ import annotations

import math
import random
import re
from typing import Dict, List, Optional, Protocol, Sequence, Tuple

from .local_corruptions import LOCAL_CORRUPTIONS, LOCAL_KIND_DESCRIPTIONS
from .permutations import negative_orders

#: Other documents' sentences, for the kinds that need another text (``topic_switch``).
Pool = Optional[Sequence[Sequence[str]]]


class Corruption(Protocol):
    """A kind's function: the corrupted sentences, or None when the kind does not apply to this text."""

    def __call__(self, sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
        ...


# --------------------------------------------------------------------------------------------------------------
# Tokens: whitespace words, each split into leading punctuation, a core and trailing punctuation.

#: Characters that end a sentence (with closing quotes and brackets after them, PTB's ``''`` included).
_FINAL_CHARS = frozenset(".!?…\"'”’)]")
#: ``(leading non-word chars, core, trailing non-word chars with an optional possessive 's before them)``.
_TOKEN = re.compile(r"^(\W*)(.*?)((?:['’]s)?\W*)$", re.S)
_LETTERS = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
#: Years are swapped with years only ("in 3 she left" would be too easy a negative).
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
#: Opening quotes and brackets: a capitalised word after one starts a quotation, not necessarily a name.
_OPENERS = ("\"", "“", "‘", "``", "'", "(", "[")


def _split_token(token: str) -> Tuple[str, str, str]:
    """``"“Smith's,"`` -> ``("“", "Smith", "'s,")``: the core is what names, numbers and verbs are matched on."""
    match = _TOKEN.match(token)
    if match is None:  # pragma: no cover - the pattern matches every string
        return "", token, ""
    return match.group(1), match.group(2), match.group(3)


def _core(token: str) -> str:
    """The token without its surrounding punctuation, lower-cased, with ’ read as '."""
    return _split_token(token)[1].lower().replace("’", "'")


def _has_word(token: str) -> bool:
    """Whether the token holds a letter or a digit (``,`` ````...``'' do not)."""
    return any(character.isalnum() for character in token)


def _split_final(sentence: str) -> Tuple[List[str], str]:
    """A sentence's words before its final punctuation, and that punctuation exactly as written.

    ``" ".join(words) + tail`` rebuilds the sentence (inner whitespace normalised): ``"We won.”"`` ->
    ``(["We", "won"], ".”")``; ``"we won . ''"`` -> ``(["we", "won"], " . ''")``.
    """
    text = sentence.strip()
    end = len(text)
    while end > 0 and (text[end - 1] in _FINAL_CHARS or text[end - 1].isspace()):
        end -= 1
    return text[:end].split(), text[end:]


def _join(words: Sequence[str], tail: str = "") -> str:
    return " ".join(words) + tail


def _same_case_start(template: str, text: str) -> str:
    """``text`` with its first letter upper-cased when ``template``'s first letter is (a restated sentence)."""
    if template[:1].isupper() and text[:1].islower():
        return text[:1].upper() + text[1:]
    return text


def _normalised(sentences: Sequence[str]) -> str:
    return " ".join(word for sentence in sentences for word in sentence.split())


def _checked(original: Sequence[str], result: Optional[List[str]]) -> Optional[List[str]]:
    """The result, or None when it is empty or reads exactly like the original (never a silent copy), or when
    the original has no word at all (punctuation only: nothing to corrupt)."""
    if not result or _normalised(result) == _normalised(original) or not _wordy(original):
        return None
    return result


def _wordy(sentences: Sequence[str]) -> List[int]:
    """The indices of the sentences that hold at least one word (not only punctuation or whitespace)."""
    return [index for index, sentence in enumerate(sentences) if _has_word(sentence)]


# --------------------------------------------------------------------------------------------------------------
# Repetition: generators loop on a sentence, a clause, or restate a sentence in other words.


def repeat_sentence(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """One sentence said again verbatim, right after itself or later in the text.

    Imitates the generator loop (greedy or beam decoding falling into a repeated sentence), which
    permutations never show: every permutation has each sentence exactly once.
    """
    candidates = _wordy(sentences)
    if not candidates:
        return None
    index = rng.choice(candidates)
    position = rng.randint(index + 1, len(sentences))
    result = list(sentences)
    result.insert(position, sentences[index])
    return _checked(sentences, result)


def _is_tokenised(sentences: Sequence[str]) -> bool:
    """Whether the text writes punctuation as separate tokens (PTB: "he said , `` we won . ''")."""
    return any(token in (",", ".", "``", "''", "n't") for sentence in sentences for token in sentence.split())


def _with_comma(words: List[str], tokenised: bool) -> List[str]:
    """The words followed by a comma, written the way the text writes punctuation."""
    if not words or not _has_word(words[-1][-1:]):
        return words
    return words + [","] if tokenised else words[:-1] + [words[-1] + ","]


def repeat_clause(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """A run of 4-8 words of one sentence said again: right after itself, or at the start or end of the next one.

    Imitates near-verbatim repetition below the sentence level ("the team won the match , the team won the
    match and ..."): a generator that restarts a phrase it has just produced. Half of the in-place repeats
    are joined by a comma.
    """
    candidates = [index for index, sentence in enumerate(sentences) if len(_split_final(sentence)[0]) >= 4]
    if not candidates:
        return None
    index = rng.choice(candidates)
    words, tail = _split_final(sentences[index])
    length = rng.randint(4, min(8, len(words)))
    start = rng.randint(0, len(words) - length)
    clause = words[start:start + length]
    result = list(sentences)
    if index + 1 < len(sentences) and rng.random() < 0.5:
        next_words, next_tail = _split_final(sentences[index + 1])
        at = rng.choice((0, len(next_words)))
        result[index + 1] = _join(next_words[:at] + clause + next_words[at:], next_tail)
    else:
        said = words[:start + length]
        if rng.random() < 0.5:
            said = _with_comma(said, _is_tokenised(sentences))
        result[index] = _join(said + clause + words[start + length:], tail)
    return _checked(sentences, result)


def _is_content(word: str) -> bool:
    """A word worth replacing or replacing with: 4+ letters, not a function word or an auxiliary."""
    low = word.lower()
    return len(word) >= 4 and word.isalpha() and low not in _NOT_NAMES and low not in _AUXILIARIES


def _vocabulary(sentences: Sequence[str], skip: int) -> List[str]:
    """The distinct content words of the text's other sentences (all of it for a one-sentence text)."""
    others = [sentence for index, sentence in enumerate(sentences) if index != skip] or list(sentences)
    words = [_split_token(token)[1] for sentence in others for token in sentence.split()]
    return list(dict.fromkeys(word for word in words if _is_content(word)))


def _edit(words: List[str], vocabulary: Sequence[str], rng: random.Random) -> List[str]:
    """One small change: drop a word, replace a content word by another of the text, or swap two words."""
    edited = list(words)
    operation = rng.choice(("drop", "replace", "swap"))
    replaceable = [at for at, word in enumerate(edited) if _is_content(_split_token(word)[1])]
    if operation == "drop" and len(edited) > 2:
        del edited[rng.randrange(len(edited))]
    elif operation == "replace" and replaceable:
        at = rng.choice(replaceable)
        pre, core, post = _split_token(edited[at])
        choices = [word for word in vocabulary if word.lower() != core.lower()]
        if choices:
            edited[at] = pre + rng.choice(choices) + post
    else:
        first, second = sorted(rng.sample(range(len(edited)), 2))
        edited[first], edited[second] = edited[second], edited[first]
    return edited


def _restate(sentences: Sequence[str], index: int, rng: random.Random) -> Optional[str]:
    """The sentence with 1-2 small edits (dropped, replaced or swapped words), or None if no edit changed it."""
    words, tail = _split_final(sentences[index])
    vocabulary = _vocabulary(sentences, index)
    edited = list(words)
    for _ in range(4):  # an edit can be a no-op (swapping two equal words); a few attempts suffice
        for _ in range(1 if len(words) < 8 else rng.randint(1, 2)):
            edited = _edit(edited, vocabulary, rng)
        if [word.lower() for word in edited] != [word.lower() for word in words]:
            return _same_case_start(sentences[index], _join(edited, tail))
    return None


def near_repeat(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """A sentence restated with small changes (a word or two dropped, replaced or swapped) right after it.

    Imitates a generator saying the same thing twice in slightly different words, which exact-match
    repetition checks miss and a model trained on verbatim repeats alone might too.
    """
    candidates = [index for index, sentence in enumerate(sentences) if len(_split_final(sentence)[0]) >= 3]
    rng.shuffle(candidates)
    for index in candidates:
        restated = _restate(sentences, index, rng)
        if restated is not None and restated.split() != sentences[index].split():
            result = list(sentences)
            result.insert(index + 1, restated)
            return _checked(sentences, result)
    return None


# --------------------------------------------------------------------------------------------------------------
# Truncation and deletion: a text that stops mid-thought, a reference to something never introduced.


def _cut(sentence: str, rng: random.Random) -> Optional[str]:
    """The sentence cut after 30-70% of its words, ending on a word (no final punctuation); None if too short."""
    words, _ = _split_final(sentence)
    lowest, highest = max(1, math.ceil(0.3 * len(words))), min(len(words) - 1, math.floor(0.7 * len(words)))
    cuts = []
    for keep in range(lowest, highest + 1):
        prefix = list(words[:keep])
        while prefix and not _has_word(prefix[-1]):
            prefix.pop()
        if prefix:
            last = prefix[-1]
            while not last[-1].isalnum():  # "match," -> "match"; it holds an alphanumeric character
                last = last[:-1]
            cuts.append(_join(prefix[:-1] + [last]))
    return rng.choice(cuts) if cuts else None


def cut_off(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """The text cut mid-thought: its last sentence truncated at 30-70% of its words, without final punctuation.

    Imitates a generation stopped by a length limit or an early end-of-text. When the last sentence is too
    short to cut (one word), the latest sentence that can be cut is, and the sentences after it are dropped:
    the text still ends abruptly inside a sentence.
    """
    for index in reversed(range(len(sentences))):
        cut = _cut(sentences[index], rng)
        if cut is not None:
            return _checked(sentences, list(sentences[:index]) + [cut])
    return None


#: Words that refer back to something the text must have introduced when they start a sentence.
_REFERRING = frozenset("he she it they him her his its their them this these those that such".split())


def _opening_words(sentence: str, count: int) -> List[str]:
    """The sentence's first ``count`` words, lower-cased letters only, skipping quotes and other punctuation."""
    words = []
    for token in sentence.split():
        match = _LETTERS.match(_split_token(token)[1])
        if match is not None:
            words.append(match.group(0).lower())
        if len(words) == count:
            break
    return words


def _opens_with_pronoun(sentence: str) -> bool:
    opening = _opening_words(sentence, 1)
    return bool(opening) and opening[0] in _REFERRING


def _core_words(sentence: str) -> List[str]:
    return [_core(token) for token in sentence.split()]


def _refers_back(sentences: Sequence[str], index: int) -> bool:
    """Whether sentence ``index`` opens with a pronoun, or with "the X" whose X is first said in the sentence
    before it (so deleting that sentence leaves the reference without an antecedent)."""
    if _opens_with_pronoun(sentences[index]):
        return True
    opening = _opening_words(sentences[index], 2)
    if len(opening) < 2 or opening[0] != "the" or len(opening[1]) < 3:
        return False
    earlier = {word for sentence in sentences[:index - 1] for word in _core_words(sentence)}
    return opening[1] in _core_words(sentences[index - 1]) and opening[1] not in earlier


def dangling_reference(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """The sentence that introduces an entity deleted, so a later pronoun ("he", "it", "the company") dangles.

    Imitates a summary or continuation that refers to someone or something it never introduced (a sentence
    of the source skipped). Heuristic: a sentence opening with a pronoun (or "the X", X first named in the
    sentence before it) whose preceding sentence does not itself open with a pronoun; that preceding
    sentence is deleted. None when the text has no such pair.
    """
    candidates = [index for index in range(1, len(sentences)) if _has_word(sentences[index - 1])
                  and _refers_back(sentences, index) and not _opens_with_pronoun(sentences[index - 1])]
    if not candidates:
        return None
    index = rng.choice(candidates)
    return _checked(sentences, [sentence for at, sentence in enumerate(sentences) if at != index - 1])


# --------------------------------------------------------------------------------------------------------------
# Facts: swapped names or numbers, a statement and its negation.

#: Capitalised words that are not names (sentence openers, pronouns, PTB bracket tokens, ...).
_NOT_NAMES = frozenset("""
a an the this that these those he she it they we you i i'm i'll i've i'd me him her his hers its their them our
us my your yours there then but and or so if when while after before as at in on of for to from with by about
into over under not no yes mr mrs ms dr st however meanwhile also still yet although though because since
what who whom whose which where why how all some many most more other such one every each both either neither
later earlier yesterday today tonight tomorrow now finally eventually recently suddenly soon last next first
lrb rrb lcb rcb lsb rsb
""".split())
_TIMES = frozenset("""
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december
""".split())
#: Number words swapped like digits (lower-cased text rarely has digits); "one" is too often a pronoun.
_NUMBER_WORDS = frozenset("""
two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty seventy eighty ninety
""".split())

#: A name, number or date mention: (sentence index, first token, end token, the words, kind).
Mention = Tuple[int, int, int, str, str]


def _is_name(core: str) -> bool:
    return (len(core) >= 2 and core[0].isupper() and any(character.isalpha() for character in core[1:])
            and core.lower().replace("’", "'") not in _NOT_NAMES)


def _opens_phrase(tokens: Sequence[str], at: int) -> bool:
    """Whether a capital at ``tokens[at]`` is expected anyway: sentence start, quotation start, after a colon."""
    if at == 0 or tokens[at].startswith(_OPENERS):
        return True
    previous = tokens[at - 1]
    return previous.endswith(":") or previous in _OPENERS or previous in ("“", "‘")


def _name_flags(sentences: Sequence[str]) -> List[List[bool]]:
    """For every token, whether it is (part of) a name: a capitalised non-function word where capitals are
    not expected, or where they are (sentence start) when the word is a name elsewhere or runs into one."""
    tokens = [sentence.split() for sentence in sentences]
    known = {_split_token(token)[1] for words in tokens for at, token in enumerate(words)
             if _is_name(_split_token(token)[1]) and not _opens_phrase(words, at)}
    flags = []
    for words in tokens:
        row = []
        for at, token in enumerate(words):
            _, core, post = _split_token(token)
            if not _is_name(core):
                row.append(False)
            elif not _opens_phrase(words, at) or core in known:
                row.append(True)
            else:  # "New York is ...": a capitalised opener followed by a name
                row.append(not post and at + 1 < len(words) and _is_name(_split_token(words[at + 1])[1]))
        flags.append(row)
    return flags


def _mentions(sentences: Sequence[str]) -> List[Mention]:
    """Every name (runs of name tokens), year, other number (digits or a number word) and weekday/month, in
    text order; only mentions of the same kind are swapped."""
    mentions: List[Mention] = []
    for index, (sentence, flags) in enumerate(zip(sentences, _name_flags(sentences))):
        words = sentence.split()
        at = 0
        while at < len(words):
            _, core, post = _split_token(words[at])
            if _NUMBER.fullmatch(core) or core.lower() in _NUMBER_WORDS:
                mentions.append((index, at, at + 1, core, "year" if _YEAR.fullmatch(core) else "number"))
            elif flags[at]:
                end = at + 1
                while end < len(words) and flags[end] and not post:
                    post = _split_token(words[end])[2]
                    end += 1
                value = " ".join(_split_token(word)[1] for word in words[at:end])
                mentions.append((index, at, end, value, "time" if value.lower() in _TIMES else "name"))
                at = end
                continue
            at += 1
    return mentions


def _replace_mentions(sentences: Sequence[str], changes: Sequence[Tuple[Mention, str]]) -> List[str]:
    """The sentences with each mention's words replaced by a new value, its outer punctuation kept."""
    tokens = [sentence.split() for sentence in sentences]
    for (index, start, end, _, _), value in sorted(changes, key=lambda change: change[0][:2], reverse=True):
        words = tokens[index]
        pre, post = _split_token(words[start])[0], _split_token(words[end - 1])[2]
        words[start:end] = [pre + value + post]
    result = list(sentences)
    for index in sorted({change[0][0] for change in changes}):
        result[index] = " ".join(tokens[index])
    return result


def entity_swap(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """Two different names (or numbers, years, weekdays/months) swapped, or a later one replaced by another of the text.

    Imitates the factual errors of abstractive summarisers: the right entities in the wrong roles ("Smith
    beat Jones" for "Jones beat Smith"), a number moved to the wrong fact, a later mention that names the
    wrong person. Names are capitalised words outside sentence openings (openers count when they are names
    elsewhere), so lower-cased text offers numbers only. None when the text has no two different values of a
    kind.
    """
    mentions = _mentions(sentences)
    pairs = [(first, second) for at, first in enumerate(mentions) for second in mentions[at + 1:]
             if first[4] == second[4] and first[3] != second[3]]
    if not pairs:
        return None
    if rng.random() < 0.5:
        across = [pair for pair in pairs if pair[0][0] != pair[1][0]]  # between sentences when there are such
        first, second = rng.choice(across or pairs)
        changes = [(first, second[3]), (second, first[3])]
    else:
        target = rng.choice([mention for mention in mentions[1:]
                             if any(other[4] == mention[4] and other[3] != mention[3] for other in mentions)])
        values = list(dict.fromkeys(other[3] for other in mentions
                                    if other[4] == target[4] and other[3] != target[3]))
        changes = [(target, rng.choice(values))]
    return _checked(sentences, _replace_mentions(sentences, changes))


#: Auxiliaries and copulas that take "not" after them.
_AUXILIARIES = frozenset("is are was were am will would can could should may might must shall do does did".split())
#: Contracted negations and what they read without the negation.
_CONTRACTED = {
    "isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "don't": "do", "doesn't": "does",
    "didn't": "did", "can't": "can", "cannot": "can", "couldn't": "could", "won't": "will", "wouldn't": "would",
    "shouldn't": "should", "hasn't": "has", "haven't": "have", "hadn't": "had", "mustn't": "must",
    "mightn't": "might", "needn't": "need", "shan't": "shall", "ain't": "is",
}
#: PTB splits "can't" into "ca n't": the stems that change when the negation goes.
_PTB_STEMS = {"ca": "can", "wo": "will", "sha": "shall"}
#: "have" as a main verb ("she has a dog") is negated with "do".
_HAVE = {"has": "does not have", "have": "do not have", "had": "did not have"}
_PARTICIPLES = frozenset("been done gone made won taken given seen known said told become begun come got gotten "
                         "found held kept left lost paid put run sent set shown spent won written".split())
_PAST = frozenset("""
went said won made took came saw got gave found knew thought told became felt brought began kept held wrote
stood heard meant met ran paid sat spoke led grew lost fell sent built drew broke spent rose drove bought wore
chose ate drank sang swam threw flew caught fought taught sold hid forgot shook struck woke sought slept agreed
""".split())
#: Words after which an "-ed" word is an adjective or participle, not the main verb.
_NOT_BEFORE_VERB = frozenset("the a an this that these those his her its their our my your very more most less "
                             "been be being get gets got is was were are am has have had not never".split())


def _with_case(template: str, text: str) -> str:
    """``text`` capitalised like ``template``'s first letter ("Can't" -> "Can")."""
    return text[:1].upper() + text[1:] if template[:1].isupper() else text


def _is_past_verb(words: Sequence[str], at: int) -> bool:
    core = _core(words[at])
    if at == 0 or _core(words[at - 1]) in _NOT_BEFORE_VERB:
        return False
    return core in _PAST or (len(core) >= 5 and core.isalpha() and core.endswith("ed") and not core.endswith("eed")
                             and core not in ("hundred", "kindred"))


def _negation_at(words: List[str], at: int) -> Optional[List[str]]:
    """The words with the negation of the verb group at ``words[at]``, or None when it is not one."""
    pre, core, post = _split_token(words[at])
    low = core.lower().replace("’", "'")
    following = _core(words[at + 1]) if at + 1 < len(words) else ""
    if low in ("not", "never", "n't") and at > 0 and not pre:
        stem = _core(words[at - 1])
        before = list(words[:at - 1]) + [words[at - 1] + post]
        if low == "n't" and stem in _PTB_STEMS:
            before[-1] = _with_case(words[at - 1], _PTB_STEMS[stem]) + post
        return before + list(words[at + 1:])
    if low in _CONTRACTED:
        return list(words[:at]) + [pre + _with_case(core, _CONTRACTED[low]) + post] + list(words[at + 1:])
    if low in _HAVE and following not in ("not", "n't", "never"):
        if following in _PARTICIPLES or (following.endswith(("ed", "en")) and following.isalpha()):
            return list(words[:at]) + [pre + core, "not" + post] + list(words[at + 1:])
        return list(words[:at]) + [pre + _with_case(core, _HAVE[low]) + post] + list(words[at + 1:])
    if low in _AUXILIARIES and following not in ("not", "n't", "never"):
        return list(words[:at]) + [pre + core, "not" + post] + list(words[at + 1:])
    if _is_past_verb(words, at):
        return list(words[:at]) + ["never", words[at]] + list(words[at + 1:])
    return None


def negate(sentence: str) -> Optional[str]:
    """The sentence with its first verb group negated, or a negation removed; None when no verb is found.

    Rules, at the first word where one applies: "not"/"never"/"n't" is removed ("ca n't" -> "can"); a contracted
    negation is expanded without it ("isn't" -> "is"); "has/have/had" + participle takes "not", as a main verb
    becomes "does/do/did not have"; an auxiliary or copula takes "not" ("was" -> "was not"); a past-tense verb
    (a common irregular one, or an "-ed" word not after a determiner or auxiliary) takes "never" before it.
    """
    words, tail = _split_final(sentence)
    for at in range(len(words)):
        negated = _negation_at(words, at)
        if negated is not None:
            return _join(negated, tail)
    return None


def contradiction(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """A negated copy of one sentence placed after it, so the text states X and not-X.

    Imitates self-contradiction (a continuation that denies what it said, a summary that keeps a fact and its
    negation from different parts of the source). The negation is rule-based (``negate``); None when no
    sentence has a verb the rules find.
    """
    negations = [(index, negate(sentence)) for index, sentence in enumerate(sentences)]
    candidates = [(index, negated) for index, negated in negations
                  if negated is not None and negated.split() != sentences[index].split()]
    if not candidates:
        return None
    index, negated = rng.choice(candidates)
    result = list(sentences)
    result.insert(rng.randint(index + 1, len(sentences)), negated)
    return _checked(sentences, result)


# --------------------------------------------------------------------------------------------------------------
# Topic and order.

#: How many random pool documents ``topic_switch`` looks at before giving up (pools can be large).
POOL_DRAWS = 16


def _foreign_run(sentences: Sequence[str], pool: Sequence[Sequence[str]], length: int,
                 rng: random.Random) -> Optional[List[str]]:
    """``length`` consecutive sentences of a random pool document sharing no sentence with ``sentences``."""
    own = {" ".join(sentence.split()) for sentence in sentences}
    for _ in range(POOL_DRAWS):
        document = [sentence for sentence in pool[rng.randrange(len(pool))] if _has_word(sentence)]
        if not document or any(" ".join(sentence.split()) in own for sentence in document):
            continue
        start = rng.randint(0, max(0, len(document) - length))
        return document[start:start + length]
    return None


def topic_switch(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """The second half of the text replaced by consecutive sentences of another document (from ``pool``).

    Imitates topic drift: a long generation that abruptly starts on something else at a sentence boundary.
    The first half (``n // 2`` or ``(n + 1) // 2`` sentences, at least one) is kept; a one-sentence text gets
    one foreign sentence appended. The foreign sentences come from a document of ``pool`` that shares no
    sentence with the text (a shorter document gives all its sentences). None without a usable pool document.
    """
    if not sentences or not pool:
        return None
    halves = sorted({len(sentences) // 2, (len(sentences) + 1) // 2})
    keep = max(1, rng.choice([half for half in halves if half < len(sentences)] or [1]))
    foreign = _foreign_run(sentences, pool, max(1, len(sentences) - keep), rng)
    if foreign is None:
        return None
    return _checked(sentences, list(sentences[:keep]) + foreign)


def intrusion(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """One sentence (never the first) replaced by a random sentence of another document (from ``pool``).

    The INSteD test's negative, drawn at random rather than by similarity: a sentence that does not belong,
    in a text whose other sentences do. None for a one-sentence text or without a usable pool document.
    """
    if len(sentences) < 2 or not pool:
        return None
    own = set(sentences)
    candidates = [sentence for document in pool for sentence in document if sentence not in own and sentence.strip()]
    if not candidates:
        return None
    result = list(sentences)
    result[rng.randrange(1, len(result))] = rng.choice(candidates)
    return _checked(sentences, result)


def shuffle(sentences: Sequence[str], rng: random.Random, pool: Pool = None) -> Optional[List[str]]:
    """A random order of the sentences that reads differently from the original (``negative_orders``).

    The paper's negative, kept beside the generator-like kinds so that a mix still teaches order. None for a
    one-sentence text, or one whose sentences are all the same.
    """
    orders = negative_orders(sentences, 1, rng)
    if not orders:
        return None
    return _checked(sentences, [sentences[index] for index in orders[0]])


# --------------------------------------------------------------------------------------------------------------
# Registry.

CORRUPTIONS: Dict[str, Corruption] = {
    "repeat_sentence": repeat_sentence,
    "repeat_clause": repeat_clause,
    "near_repeat": near_repeat,
    "cut_off": cut_off,
    "dangling_reference": dangling_reference,
    "entity_swap": entity_swap,
    "contradiction": contradiction,
    "topic_switch": topic_switch,
    "intrusion": intrusion,
    "shuffle": shuffle,
    **LOCAL_CORRUPTIONS,  # one transition broken, length kept
}

KIND_DESCRIPTIONS: Dict[str, str] = {
    "repeat_sentence": "a sentence repeated verbatim, right after itself or later (a decoding loop)",
    "repeat_clause": "4-8 words of a sentence repeated inside it or the next sentence (a restarted phrase)",
    "near_repeat": "a sentence restated with a word or two dropped, replaced or swapped, right after it",
    "cut_off": "the last sentence cut at 30-70% of its words, no final punctuation (a generation stopped early)",
    "dangling_reference": "the sentence before a pronoun-initial one deleted, so the pronoun has no antecedent",
    "entity_swap": "two names/numbers/years/dates swapped, or a later one replaced by another of the text",
    "contradiction": "a negated copy of a sentence placed after it (the text states X and not-X)",
    "topic_switch": "the second half replaced by consecutive sentences of another document (abrupt topic drift)",
    "intrusion": "one sentence (not the first) replaced by a random sentence of another document",
    "shuffle": "the sentences in a random different order (the paper's permutation negative)",
    **LOCAL_KIND_DESCRIPTIONS,
}


def corrupt(sentences: Sequence[str], kinds: Sequence[str], rng: random.Random, pool: Pool = None,
            tries: Optional[int] = None) -> Optional[Tuple[str, List[str]]]:
    """One corruption of ``sentences`` by a kind drawn among ``kinds``, skipping kinds that do not apply.

    Kinds are tried in an order drawn with ``rng``: uniform among the distinct names asked (a name given
    twice is drawn twice as often first), each tried once.

    Args:
        sentences: the coherent text.
        kinds: names of ``CORRUPTIONS``.
        rng: the only source of randomness: equal generators give equal results.
        pool: other documents' sentences, for ``topic_switch``.
        tries: the most kinds tried before giving up (default: all of them).

    Returns:
        ``(kind, corrupted sentences)``, or None when none of the tried kinds applies to this text.

    Raises:
        ValueError: on an unknown kind name, or no kinds.
    """
    unknown = [kind for kind in kinds if kind not in CORRUPTIONS]
    if unknown or not kinds:
        raise ValueError(f"unknown corruption kind(s) {unknown or list(kinds)}; known: {', '.join(CORRUPTIONS)}")
    order = list(dict.fromkeys(rng.sample(list(kinds), len(kinds))))
    for kind in order[:tries]:
        result = CORRUPTIONS[kind](sentences, rng, pool)
        if result is not None:
            return kind, result
    return None


__all__ = ["CORRUPTIONS", "KIND_DESCRIPTIONS", "POOL_DRAWS", "Corruption", "contradiction", "corrupt", "cut_off",
           "dangling_reference", "entity_swap", "intrusion", "near_repeat", "negate", "repeat_clause",
           "repeat_sentence", "shuffle", "topic_switch"]
