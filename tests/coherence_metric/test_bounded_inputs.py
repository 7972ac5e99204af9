"""A text of megabytes is read only as far as ``max_length`` needs: the same scores and cut counts as reading it
whole, at a cost bounded by ``max_length`` rather than by the text (a 3.2 MB one-line text took 47 s and 0.9 GB)."""

from __future__ import annotations

import warnings

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.scoring import token_ids as token_ids_module
from coherence_metric.scoring.token_ids import bounded_prefixes

WORDS = ["river", "town", "council", "bus", "rain", "field", "market", "the", "a", "of"]
HUGE_SENTENCE = " ".join(WORDS[index % 7] for index in range(20_000))  # one sentence, ~110,000 characters
TEXTS = [HUGE_SENTENCE + ".",
         "The council met. " + HUGE_SENTENCE + ". Rain fell later.",
         "The river rose slowly through the night. By morning the lower fields were under water."]


def _score(scorer: CoherenceScorer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scorer.score(TEXTS)


def test_bounded_reading_gives_the_scores_and_counts_of_reading_whole(bert_checkpoint, monkeypatch):
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=64)
    bounded = _score(scorer)
    monkeypatch.setattr(token_ids_module, "CHARACTERS_PER_TOKEN_KEPT", 10**9)  # never cut: the whole text is read
    whole = _score(scorer)
    assert bounded.scores == pytest.approx(whole.scores, abs=1e-6)
    assert (bounded.n_truncated, bounded.n_windowed) == (whole.n_truncated, whole.n_windowed) == (2, 2)


def test_a_prefix_is_taken_only_when_it_holds_more_tokens_than_kept(bert_checkpoint):
    tokenizer = CoherenceScorer(str(bert_checkpoint)).tokenizer
    (prefix,) = bounded_prefixes(tokenizer, [HUGE_SENTENCE], 64)
    assert HUGE_SENTENCE.startswith(prefix) and len(prefix) < 2_100 and not prefix.endswith(" ")
    giant_words = " ".join("x" * 5_000 for _ in range(10))  # each word one [UNK]: no prefix holds 65 tokens
    assert bounded_prefixes(tokenizer, [giant_words, "short"], 64) == [giant_words, "short"]
