"""Errors name what the user can find (file:line), and say what is true of the run.

``explain special.txt -i lines`` said "text 1 tokenises to special tokens only" where ``score`` says
"special.txt:2"; a head giving NaN in fp32 was told to "try dtype='fp32'".
"""

from __future__ import annotations

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.errors import NonFiniteScoreError

from ..cli_helpers import assert_one_line_error, invoke

MARKS_ONLY = "\u0301\u0301 \u0301"
"""Combining accents an uncased tokenizer strips: nothing but [CLS] [SEP] is left to score."""


def test_explain_names_the_file_and_line_of_a_text_with_nothing_to_score(runner, bert_checkpoint, tmp_path):
    path = tmp_path / "special.txt"
    path.write_text(f"The river rose in the night. The fields were under water.\n{MARKS_ONLY}\n", encoding="utf-8")
    result = invoke(runner, ["explain", str(path), "-i", "lines", "--model", str(bert_checkpoint)])
    assert_one_line_error(result, f"{path}:2 tokenises to special tokens only")
    assert "text 1" not in result.stderr


def test_a_nan_head_in_fp32_is_not_told_to_try_fp32(nan_checkpoint, runner, tmp_path):
    with pytest.raises(NonFiniteScoreError) as caught:
        CoherenceScorer(str(nan_checkpoint), dtype="fp32").score(["One text. Two sentences."])
    message = str(caught.value)
    assert "in fp32" in message and "try dtype='fp32'" not in message
    assert "the checkpoint is broken" in message
    path = tmp_path / "texts.txt"
    path.write_text("One text. Two sentences.\nAnother text. And more.\n", encoding="utf-8")
    result = invoke(runner, ["score", str(path), "-i", "lines", "--dtype", "fp32", "--model", str(nan_checkpoint)])
    assert_one_line_error(result, f"{path}:1 got a non-finite score", "the checkpoint is broken")
    assert "--dtype fp32" not in result.stderr
