"""LLM-shaped texts with one known break, built from dev news documents (never a test set).

Each item is one dev document (the news corpora's dev split, first sentences, as the localisation suite's ``--split
dev`` reads them) written the way a chat assistant answers: an opening ("Sure! Here's a summary of the article."), a
heading, the document's first 4-6 sentences as a list (one sentence a bullet), and a closing ("I hope this helps!").
Items take four styles in turn: a bulleted list, a numbered list, a list with emoji (an emoji line after the opening,
one closing the closing line), and a list followed by a fenced code block.

The broken text is the same with one bullet more: a sentence of another dev document (six words or more), put after
the first bullet or further on (a first unit is never flagged, so a break there could not be found). Its unit is
located by segmenting the text as ``explain`` does (``inputs.units``), and an item is kept only when that unit is the
inserted bullet and the clean text's body is its bullets, so the known break is the unit the scorer reads. Seeded:
the same documents, styles and breaks on every run.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from coherence_metric.research.standins import read_news_documents
from coherence_metric.toolkit import BODY, ITEM, Unit, split_units

PLAIN = "bullets"
NUMBERED = "numbered"
EMOJI = "emoji"
CODE_BLOCK = "code"
#: The styles, given to items in turn.
STYLES = (PLAIN, NUMBERED, EMOJI, CODE_BLOCK)
#: Sentences of a document made into bullets, at least and at most.
MIN_BULLETS, MAX_BULLETS = 4, 6
#: The fewest words of an inserted sentence (a short one says too little to be off the topic).
MIN_INSERTED_WORDS = 6

OPENINGS = (
    "Sure! Here's a summary of the article.",
    "Certainly! Here are the key points:",
    "Great question! Here's an overview.",
    "Of course! Here is a short summary:",
)
HEADINGS = ("## Key points", "### Summary", "**Overview**", "## What happened")
CLOSINGS = (
    "I hope this helps!",
    "Let me know if you have any other questions!",
    "Feel free to ask if you would like more detail.",
    "Happy reading!",
)
EMOJI_LINES = ("\U0001F389", "\u2728", "\U0001F44D")
CLOSING_EMOJI = ("\U0001F60A", "\U0001F4DA", "\U0001F680")
CODE = "```python\narticle = load_article()\nprint(summarise(article))\n```"


@dataclass(frozen=True)
class ShapedItem:
    """One LLM-shaped text, clean and with its known break.

    Attributes:
        id: the document's id and ``/llm-shaped``.
        style: one of ``STYLES``.
        clean: the text without the break.
        broken: the text with the inserted bullet.
        inserted: the index of the inserted bullet among the broken text's units.
        source: the id of the document the inserted sentence comes from.
        sentences: the document's sentences the clean text's bullets hold, in order.
        position: where the inserted sentence is among the broken text's bullets (counted from 0).
    """

    id: str
    style: str
    clean: str
    broken: str
    inserted: int
    source: str
    sentences: Tuple[str, ...] = ()
    position: int = 0

    def prose(self, broken: bool) -> List[str]:
        """The same content as plain prose: the bullets' sentences (with the inserted one, when ``broken``), given as
        sentences (joined, an abbreviation at a sentence's end could merge two)."""
        sentences = list(self.sentences)
        if broken:
            sentences.insert(self.position, self.inserted_sentence)
        return sentences

    @property
    def inserted_sentence(self) -> str:
        """The inserted sentence, without its list marker."""
        return split_units(self.broken)[self.inserted].text.split(" ", 1)[1]


def render(sentences: Sequence[str], style: str, rng: random.Random) -> str:
    """The sentences as a chat answer of ``style``: opening, heading, list, (code,) closing."""
    opening, heading, closing = rng.choice(OPENINGS), rng.choice(HEADINGS), rng.choice(CLOSINGS)
    if style == EMOJI:
        opening = f"{opening}\n\n{rng.choice(EMOJI_LINES)}"
        closing = f"{closing} {rng.choice(CLOSING_EMOJI)}"
    bullets = [f"{number}. {sentence}" if style == NUMBERED else f"- {sentence}"
               for number, sentence in enumerate(sentences, start=1)]
    parts = [opening, heading, "\n".join(bullets)]
    if style == CODE_BLOCK:
        parts.append(CODE)
    parts.append(closing)
    return "\n\n".join(parts)


def _intruder(documents: Sequence[Tuple[str, List[str]]], own: str, rng: random.Random) -> Tuple[str, str]:
    """A sentence of six words or more from another document, and that document's id."""
    while True:
        doc_id, sentences = documents[rng.randrange(len(documents))]
        long_enough = [sentence for sentence in sentences if len(sentence.split()) >= MIN_INSERTED_WORDS]
        if doc_id != own and long_enough:
            return rng.choice(long_enough), doc_id


def _checked(clean: List[Unit], broken: List[Unit], bullets: int, sentence: str) -> Optional[int]:
    """The index of the inserted bullet among the broken text's units, or None when the segmentation does not read
    the texts as built (each bullet one body unit)."""
    if [unit.kind for unit in clean if unit.kind in BODY] != [ITEM] * bullets:
        return None
    if [unit.kind for unit in broken if unit.kind in BODY] != [ITEM] * (bullets + 1):
        return None
    found = [index for index, unit in enumerate(broken) if unit.kind == ITEM and unit.text.endswith(sentence)]
    return found[0] if len(found) == 1 else None


def build_items(documents: Sequence[Tuple[str, List[str]]], count: int, seed: int) -> List[ShapedItem]:
    """``count`` items (fewer if the documents run out), from a seeded sample of the documents with at least
    ``MIN_BULLETS + 1`` sentences."""
    rng = random.Random(f"{seed}:llm-shaped")
    usable = [index for index, (_, sentences) in enumerate(documents) if len(sentences) > MIN_BULLETS]
    rng.shuffle(usable)
    items: List[ShapedItem] = []
    for index in usable:
        if len(items) == count:
            break
        doc_id, sentences = documents[index]
        style = STYLES[len(items) % len(STYLES)]
        bullets = list(sentences[:rng.randint(MIN_BULLETS, min(MAX_BULLETS, len(sentences)))])
        sentence, source = _intruder(documents, doc_id, rng)
        position = rng.randint(1, len(bullets))
        layout = random.Random(rng.random())  # the same opening, heading and closing for both texts
        state = layout.getstate()
        clean = render(bullets, style, layout)
        layout.setstate(state)
        broken = render(bullets[:position] + [sentence] + bullets[position:], style, layout)
        inserted = _checked(split_units(clean), split_units(broken), len(bullets), sentence)
        if inserted is not None:
            items.append(ShapedItem(f"{doc_id}/llm-shaped", style, clean, broken, inserted, source, tuple(bullets),
                                    position))
    return items


def load_items(count: int, seed: int, data_dir: Optional[Path] = None) -> List[ShapedItem]:
    """The items of the news corpora's dev split (the recipe is cheap, so nothing is cached)."""
    return build_items(read_news_documents(data_dir, split="dev"), count, seed)
