"""Long texts: warn (one aggregated warning, counted), error (one clear message) or window (averaged)."""

from __future__ import annotations

import warnings

import pytest

from coherence_metric import CoherenceScorer, InputError, TruncationWarning
from coherence_metric.scoring.windows import sentence_windows

SENTENCES = [
    "The river rose slowly through the night.",
    "By morning the lower fields were under water.",
    "Farmers moved their animals to the hills.",
    "The weather service had warned of heavy rain for three days.",
    "Few people expected the banks to break so early.",
    "In the town, the school opened its hall to families.",
    "Volunteers brought blankets, bread and hot tea.",
    "A doctor checked on the elderly and the children.",
]
LONG_TEXT = " ".join(SENTENCES)
SHORT_TEXT = "The mayor visited in the afternoon. She thanked the helpers."


def test_sentence_windows_cover_every_sentence_and_overlap():
    windows = sentence_windows([5, 5, 5, 5, 5, 5], budget=12)
    assert windows == [(0, 2), (1, 3), (2, 4), (3, 5), (4, 6)]
    assert sentence_windows([3, 3], budget=100) == [(0, 2)]
    # a sentence longer than the budget stands alone (it is truncated later)
    assert sentence_windows([2, 50, 2], budget=10) == [(0, 1), (1, 2), (2, 3)]
    with pytest.raises(ValueError):
        sentence_windows([1], budget=0)


def test_windows_that_repeat_k_sentences_are_fewer_and_still_see_every_transition():
    """``overlap=k`` (only the dev comparison of overlaps passes it): each window repeats the last k sentences of the
    one before, so every adjacent pair of sentences still lies inside one window."""
    lengths = [5] * 12
    half = sentence_windows(lengths, budget=20)
    one = sentence_windows(lengths, budget=20, overlap=1)
    assert one == [(0, 4), (3, 7), (6, 10), (9, 12)]
    assert sentence_windows(lengths, budget=20, overlap=2) == [(0, 4), (2, 6), (4, 8), (6, 10), (8, 12)]
    assert len(one) < len(half) == 5
    assert all(any(start <= pair and pair + 1 < end for start, end in one) for pair in range(11))
    # an overlap as long as a window still moves on by one sentence
    assert sentence_windows([5, 5, 5], budget=10, overlap=5) == [(0, 2), (1, 3)]


def test_warn_cuts_and_warns_once_per_call(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=24, truncation="warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = scorer.score([LONG_TEXT, SHORT_TEXT, LONG_TEXT + " Again."])
    truncation_warnings = [w for w in caught if issubclass(w.category, TruncationWarning)]
    assert len(truncation_warnings) == 1
    assert "2 of 3 texts" in str(truncation_warnings[0].message)
    assert result.n_truncated == 2
    assert "ntrunc:2" in str(result.signature) and "trunc:warn" in str(result.signature)
    # both long texts share their first 24 tokens, so the cut versions score the same
    assert result.scores[0] == pytest.approx(result.scores[2], abs=1e-5)


def test_error_policy_names_the_text(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=24, truncation="error")
    with pytest.raises(InputError, match=r"1 text\(s\) exceed max_length=24 tokens \(text 1 has \d+\)"):
        scorer.score([SHORT_TEXT, LONG_TEXT])


def test_window_policy_averages_window_scores(bert_checkpoint):
    windowed = CoherenceScorer(str(bert_checkpoint), max_length=40, truncation="window")
    plain = CoherenceScorer(str(bert_checkpoint), max_length=40)
    result = windowed.score([LONG_TEXT, SHORT_TEXT])
    assert result.n_windowed == 1 and result.n_truncated == 0
    assert result.scores[1] == pytest.approx(plain.score([SHORT_TEXT]).scores[0], abs=1e-6)

    tokenizer = windowed.tokenizer
    lengths = [len(ids) for ids in tokenizer(SENTENCES, add_special_tokens=False)["input_ids"]]
    spans = sentence_windows(lengths, 40 - tokenizer.num_special_tokens_to_add())
    assert len(spans) > 1
    window_scores = plain.score([" ".join(SENTENCES[start:end]) for start, end in spans]).scores
    assert result.scores[0] == pytest.approx(sum(window_scores) / len(window_scores), abs=1e-5)


def test_long_texts_are_scored_whole_by_default(bert_checkpoint):
    """A sentence past max_length must still change the score: the default windows, it never cuts silently."""
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=40)
    assert scorer.truncation == "window"
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncationWarning)
        result = scorer.score([LONG_TEXT, " ".join(SENTENCES[:-1] + ["Stock markets closed higher on Friday."])])
    assert (result.n_windowed, result.n_truncated) == (2, 0)
    assert result.scores[0] != pytest.approx(result.scores[1], abs=1e-7)
    assert "trunc:window" in str(result.signature)


def test_a_sentence_longer_than_a_window_is_cut_and_said_so(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=24)
    endless = "The river rose " + "and rose " * 30 + "until morning."
    with pytest.warns(TruncationWarning, match=r"1 of 1 texts .* \(a single sentence longer than max_length\)"):
        result = scorer.score([endless + " " + SHORT_TEXT])
    assert result.n_truncated == 1


def test_window_policy_uses_given_sentences(bert_checkpoint):
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=40, truncation="window")
    as_list = scorer.score([SENTENCES]).scores[0]
    as_text = scorer.score([LONG_TEXT]).scores[0]
    assert as_list == pytest.approx(as_text, abs=1e-5)


def test_max_length_beyond_the_backbone_positions_is_refused(bert_checkpoint):
    with pytest.raises(InputError, match="exceeds the backbone's 128 positions"):
        CoherenceScorer(str(bert_checkpoint), max_length=512)


def test_one_very_long_sentence_does_not_leak_the_tokenizers_length_warning(bert_checkpoint):
    """transformers logs '(3001 > 512) ... indexing errors' for a sentence over the tokenizer's model_max_length;
    the scorer windows or cuts such texts itself, and says so with its own TruncationWarning."""
    import logging

    from transformers.utils import logging as hf_logging

    records: list = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    root = hf_logging.get_logger()
    root.addHandler(handler)
    try:
        scorer = CoherenceScorer(str(bert_checkpoint))  # a fresh tokenizer: it warns once per instance
        long_sentence = " ".join(["word"] * 3000) + "."
        with pytest.warns(TruncationWarning, match="a single sentence longer than max_length"):
            result = scorer.score([long_sentence, SHORT_TEXT])
    finally:
        root.removeHandler(handler)
    assert result.n_truncated == 1
    assert not [record for record in records if "indexing errors" in record.getMessage()]


def test_the_signature_counts_windowed_texts_and_a_systems_comparison_counts_every_system(bert_checkpoint):
    """A windowed score is the mean of its windows, not one reading: the signature says how many texts were, and a
    comparison of systems counts all systems' texts, not the first system's."""
    scorer = CoherenceScorer(str(bert_checkpoint), max_length=40)
    assert "|ntrunc:0|nwin:1|" in str(scorer.score([LONG_TEXT, SHORT_TEXT]).signature)
    assert "nwin" not in str(scorer.score([SHORT_TEXT]).signature)
    comparison = scorer.compare_systems({"short": [SHORT_TEXT, SHORT_TEXT], "long": [LONG_TEXT, LONG_TEXT]},
                                        bootstrap_resamples=100, randomization_trials=100)
    assert "|ntrunc:0|nwin:2|" in str(comparison.signature)
