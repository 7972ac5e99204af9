"""The long-text check's texts: real consecutive sentences, cut at the sentence that reaches the word count."""

from __future__ import annotations

from coherence_metric.benchmarks.long_text_speed import texts_of

SENTENCES = [f"Sentence number {index} has exactly seven words." for index in range(40)]


def test_texts_end_at_the_sentence_that_reaches_the_word_count_and_repeat_for_a_seed():
    texts = texts_of(SENTENCES, 20, 5, seed=3)
    assert len(texts) == 5
    assert all(len(text.split()) == 21 for text in texts)  # three sentences of 7 words reach 20
    assert all(text.endswith("words.") and text.startswith("Sentence number") for text in texts)
    assert texts == texts_of(SENTENCES, 20, 5, seed=3) and texts != texts_of(SENTENCES, 20, 5, seed=4)
