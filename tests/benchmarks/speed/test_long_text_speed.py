"""The long-text check's texts: real consecutive sentences, cut at the sentence that reaches the word count."""

from __future__ import annotations

from coherence_metric.benchmarks.speed.long_text_speed import texts_of

SENTENCES = [f"Sentence number {index} has exactly seven words." for index in range(40)]


def test_texts_end_at_the_sentence_that_reaches_the_word_count_and_repeat_for_a_seed():
    texts = texts_of(SENTENCES, 20, 5, seed=3)
    assert len(texts) == 5
    assert all(len(text.split()) == 21 for text in texts)  # three sentences of 7 words reach 20
    assert all(text.endswith("words.") and text.startswith("Sentence number") for text in texts)
    assert texts == texts_of(SENTENCES, 20, 5, seed=3) and texts != texts_of(SENTENCES, 20, 5, seed=4)


def test_tokens_per_word_counts_the_windows_the_scorer_reads(bert_checkpoint):
    """A text within max_length is read once; a longer one as half-overlapping windows, about twice per word: the cost
    the long-text check reports beside words/s."""
    from coherence_metric import CoherenceScorer
    from coherence_metric.benchmarks.speed.long_text_speed import document_pass_share, tokens_per_word

    scorer = CoherenceScorer(str(bert_checkpoint), max_length=40, dtype="fp32")
    short, long = texts_of(SENTENCES, 7, 3, seed=0), texts_of(SENTENCES, 60, 3, seed=0)
    assert tokens_per_word(scorer, short) == len(scorer.tokenizer(short[0])["input_ids"]) / 7
    assert scorer.score(long).n_windowed == 3
    read_once = sum(len(scorer.tokenizer(text)["input_ids"]) for text in long) / sum(len(t.split()) for t in long)
    assert 1.6 * read_once < tokens_per_word(scorer, long) < 2.4 * read_once
    assert 0.0 < document_pass_share(scorer, long) <= 1.0
