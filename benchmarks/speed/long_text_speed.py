"""Words per second on long texts against short ones: what windowing costs.

A text longer than the model's ``max_length`` is scored as overlapping sentence windows (``truncation="window"``):
each window starts halfway through the previous one, so every word of a long text is read about twice. This check
scores news texts of about 150 words (one window) and about 600 words (several) with the same scorer, in fp32 and,
where the CPU has native bf16, in bf16 (``speed.float_paths``), and reports words per second of each and their
ratio; the target is ``targets.toml``'s ``speed.long_text_min_ratio``.

Texts are runs of consecutive held-out news sentences (``speed.news_sentences``), cut at the first sentence that
reaches the word count, so they stay real text (not decoded word pieces) and window at sentence boundaries.

Run: ``python -m coherence_metric.benchmarks.speed.long_text_speed [--model fast] [--short 240] [--long 60]``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from coherence_metric import CoherenceScorer
from coherence_metric.toolkit import DOCUMENT_PASS, cpu_description, sentences_of, window_tokens

from ..reporting.files import write_script_output
from .cpu_speed import float_paths, news_sentences

SHORT_WORDS = 150
LONG_WORDS = 600


def texts_of(sentences: Sequence[str], words: int, count: int, seed: int) -> List[str]:
    """``count`` texts of consecutive sentences, each ending at the first sentence that brings it to ``words``
    words; the starts are drawn with ``seed``."""
    rng = random.Random(f"{seed}/{words}")
    texts = []
    for _ in range(count):
        start = rng.randrange(len(sentences))
        chunk: List[str] = []
        total = 0
        index = start
        while total < words and len(chunk) < len(sentences):
            chunk.append(sentences[index])
            total += len(sentences[index].split())
            index = (index + 1) % len(sentences)
        texts.append(" ".join(chunk))
    return texts


def words_per_second(scorer: CoherenceScorer, texts: Sequence[str]) -> float:
    """Words scored per second, best of two runs after a warm-up on a few of the texts."""
    scorer.score(list(texts[:8]))
    words = sum(len(text.split()) for text in texts)
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        scorer.score(list(texts))
        best = min(best, time.perf_counter() - started)
    return words / best


def tokens_per_word(scorer: CoherenceScorer, texts: Sequence[str]) -> float:
    """Tokens the document pass reads per word of ``texts``: each text split into sentences as the scorer splits it,
    then windowed as the scorer windows it (a text within ``max_length`` is read once)."""
    tokens = window_tokens(scorer.tokenizer, [sentences_of(text) for text in texts], scorer.max_length)
    return tokens / sum(len(text.split()) for text in texts)


def document_pass_share(scorer: CoherenceScorer, texts: Sequence[str]) -> float:
    """The share of a ``score`` call's time spent in the document pass (the rest: tokenising, splitting,
    windowing): what fewer tokens per word could save."""
    with scorer.profile() as stages:
        started = time.perf_counter()
        scorer.score(list(texts))
        elapsed = time.perf_counter() - started
    return stages.seconds.get(DOCUMENT_PASS, 0.0) / elapsed


def run(model: str = "fast", n_short: int = 240, n_long: int = 60, seed: int = 0) -> Dict[str, object]:
    """Words/s of short and long texts in fp32 and bf16, the ratios, the document pass's share of a long call,
    tokens read per word and how many long texts were windowed."""
    sentences = [sentence for sentence in news_sentences() if sentence.strip()]
    short, long = texts_of(sentences, SHORT_WORDS, n_short, seed), texts_of(sentences, LONG_WORDS, n_long, seed)
    result: Dict[str, object] = {"model": model, "cpu": cpu_description(), "short_words": SHORT_WORDS,
                                 "long_words": LONG_WORDS, "short_texts": n_short, "long_texts": n_long}
    for dtype in float_paths():
        scorer = CoherenceScorer(model, dtype=dtype)
        rates = {"short": words_per_second(scorer, short), "long": words_per_second(scorer, long)}
        result[dtype] = {"words_per_second": {key: round(value) for key, value in rates.items()},
                         "long_over_short": round(rates["long"] / rates["short"], 3),
                         "long_document_pass_share": round(document_pass_share(scorer, long), 3)}
        result["tokens_per_word"] = {"short": round(tokens_per_word(scorer, short), 3),
                                     "long": round(tokens_per_word(scorer, long), 3)}
        result["long_windowed"] = scorer.score(long).n_windowed
        result["signature"] = str(scorer.score(short[:1]).signature)
    return result


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="fast", help="the committed runs are the fast tier's")
    parser.add_argument("--short", type=int, default=240, help="texts of about 150 words")
    parser.add_argument("--long", type=int, default=60, help="texts of about 600 words")
    parser.add_argument("--output", type=Path, help="also write the result here (JSON)")
    arguments = parser.parse_args(argv)
    text = json.dumps(run(arguments.model, arguments.short, arguments.long), indent=1)
    print(text)
    if arguments.output:
        write_script_output(arguments.output, text + "\n")


if __name__ == "__main__":
    main()
