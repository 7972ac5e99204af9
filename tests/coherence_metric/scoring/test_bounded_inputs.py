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


def test_a_call_of_many_texts_is_scored_part_by_part_to_the_scores_of_one_pass(bert_checkpoint, monkeypatch):
    """Memory grows with one part, not with the call: the parts give the same scores, counts and a single warning,
    and an error names the text by its place in the whole call."""
    import coherence_metric.scorer as scorer_module
    from coherence_metric import InputError, TruncationWarning

    texts = [f"Town {n} had rain. The river rose by {n} metres." for n in range(7)] + [TEXTS[0]]
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=64, truncation="warn")
    with pytest.warns(TruncationWarning):
        whole = scorer.score(texts)
    monkeypatch.setattr(scorer_module, "PART_TEXTS", 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parted = scorer.score(texts)
    assert parted.scores == pytest.approx(whole.scores, abs=1e-5)
    assert (parted.n_truncated, str(parted.signature)) == (whole.n_truncated, str(whole.signature)) == (1, str(
        whole.signature))
    assert [str(w.message) for w in caught if w.category is TruncationWarning] == [
        "1 of 8 texts were longer than max_length=64 tokens and were cut; use truncation='window' (CLI: "
        "--truncation window) to score them whole"]
    strict = CoherenceScorer(str(bert_checkpoint), max_length=64, truncation="error")
    with pytest.raises(InputError, match=r"\(text 7 has "):
        strict.score(texts)
