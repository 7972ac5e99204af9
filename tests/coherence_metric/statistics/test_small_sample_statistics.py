"""P-values and intervals only where the resamples can support them.

With 2 inputs per system the paired bootstrap has 3 distinct resample means and said "<0.001" beside a
randomization p of 0.49; ``--bootstrap 1 --trials 1`` printed intervals that excluded their own estimates and p "<1".
"""

from __future__ import annotations

import json

import pytest

from coherence_metric import InputError
from coherence_metric.statistics.significance import MIN_INPUTS_BOOTSTRAP_P, bootstrap_p_value, paired_tests

from ..cli_helpers import assert_one_line_error, invoke

TWO_A = ["The river rose slowly through the night. By morning the lower fields were under water.",
         "The town held a meeting. Everyone agreed to build a wall."]
TWO_B = ["Fields morning the under. River night rose the slowly.", "Wall meeting the held. Agreed everyone town."]


def test_two_inputs_that_agree_get_no_bootstrap_p_only_the_randomization_one():
    """Both inputs favour A: the bootstrap said p = 1/1001 ("significant"), randomization about 0.5."""
    tests = paired_tests([1.0, 1.2], [0.0, 0.0], resamples=1000, trials=10_000)
    assert tests.p_value_bootstrap is None
    assert tests.p_value_randomization == pytest.approx(0.5, abs=0.02)
    with pytest.raises(InputError, match=f"no paired-bootstrap p-value for 2 inputs: below {MIN_INPUTS_BOOTSTRAP_P}"):
        bootstrap_p_value([1.0, 1.2], [0.0, 0.0])


def test_enough_inputs_still_get_a_bootstrap_p_at_or_above_its_floor():
    n = MIN_INPUTS_BOOTSTRAP_P
    tests = paired_tests([1.0 + 0.1 * i for i in range(n)], [0.0] * n, resamples=200, trials=200)
    assert tests.p_value_bootstrap == pytest.approx(1 / 201)


@pytest.fixture
def two_files(tmp_path):
    paths = []
    for name, texts in (("a.txt", TWO_A), ("b.txt", TWO_B)):
        path = tmp_path / name
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def test_compare_of_two_inputs_prints_no_bootstrap_p_and_says_why(runner, bert_checkpoint, two_files):
    result = invoke(runner, ["compare", *two_files, "-i", "lines", "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.stdout.splitlines() if line.startswith("p-value"))
    assert "paired bootstrap" not in line and "approximate randomization" in line
    assert "no paired-bootstrap p-value for 2 inputs" in line
    data = json.loads(invoke(runner, ["compare", *two_files, "-i", "lines", "-f", "json", "--model",
                                      str(bert_checkpoint)]).stdout)
    assert data["p_value_bootstrap"] is None and "2 inputs" in data["p_value_bootstrap_note"]
    assert 0.2 < data["p_value_randomization"] <= 1


def test_a_systems_table_of_few_inputs_shows_a_dash_and_the_reason(runner, bert_checkpoint, two_files, tmp_path):
    third = tmp_path / "c.txt"
    third.write_text("One thing. Then another.\nA last one. The end.\n", encoding="utf-8")
    for output_format in ("text", "markdown", "latex"):
        result = invoke(runner, ["compare", *two_files, str(third), "-i", "lines", "-f", output_format, "--model",
                                 str(bert_checkpoint)])
        assert result.exit_code == 0, result.output
        assert "no paired-bootstrap p-value for 2 inputs" in result.stdout
        assert "<0.001" not in result.stdout.replace("$<$", "<") or output_format == "latex"
    data = json.loads(invoke(runner, ["compare", *two_files, str(third), "-i", "lines", "-f", "json", "--model",
                                      str(bert_checkpoint)]).stdout)
    assert all(pair["p_value_bootstrap"] is None and pair["p_value_bootstrap_note"] for pair in data["pairs"])


@pytest.mark.parametrize("command", ["compare", "report"])
@pytest.mark.parametrize("option", ["--bootstrap", "--trials"])
def test_fewer_than_100_resamples_or_trials_are_refused_in_one_line(runner, bert_checkpoint, two_files, tmp_path,
                                                                     command, option):
    extra = ["-o", str(tmp_path / "r.html")] if command == "report" else []
    result = invoke(runner, [command, *two_files, "-i", "lines", option, "1", *extra, "--model",
                             str(bert_checkpoint)])
    assert_one_line_error(result, option, "100")
