"""Reading input files: formats, labels, and one-line errors naming file and line."""

from __future__ import annotations

import json

import pytest

from coherence_metric import InputError
from coherence_metric.inputs.files import read_grouped_texts, read_texts


def test_doc_lines_paragraphs(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("First text. Still first.\nSecond text.\n\nThird, after a blank line.\n", encoding="utf-8")
    assert [t.text for t in read_texts(str(path))] == [path.read_text().strip()]
    paragraphs = read_texts(str(path), "paragraphs")
    assert [t.text for t in paragraphs] == ["First text. Still first.\nSecond text.", "Third, after a blank line."]
    with pytest.raises(InputError, match=r"in.txt line 3 is empty: with --input-format lines every line is one text"):
        read_texts(str(path), "lines")
    path.write_text("One.\nTwo.\n\n", encoding="utf-8")
    assert [(t.label.split("/")[-1], t.text) for t in read_texts(str(path), "lines")] == [
        ("in.txt:1", "One."), ("in.txt:2", "Two.")]


def test_jsonl_strings_and_sentence_lists(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text('{"text": "A story."}\n\n{"text": ["One.", "Two."], "id": 3}\n', encoding="utf-8")
    texts = read_texts(str(path), "jsonl")
    assert [t.text for t in texts] == ["A story.", ["One.", "Two."]]
    assert texts[1].label.endswith("out.jsonl:3")


@pytest.mark.parametrize(
    "content, field, message",
    [
        ('{"summary": "x"}\n', "text", "out.jsonl line 1 has no field 'text'"),
        ('{"text": "x"}\n{"text": \n', "text", "out.jsonl line 2 is not valid JSON"),
        ('["text"]\n', "text", "line 1 is not a JSON object"),
        ('{"text": 5}\n', "text", "field 'text' must be a string or a list of strings"),
        ('{"text": "  "}\n', "text", "field 'text' is empty"),
    ],
)
def test_jsonl_errors_name_the_line(tmp_path, content, field, message):
    path = tmp_path / "out.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_texts(str(path), "jsonl", field)


def test_missing_empty_undecodable_and_directory(tmp_path):
    with pytest.raises(InputError, match="nothere.txt: no such file"):
        read_texts(str(tmp_path / "nothere.txt"))
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty.txt is empty"):
        read_texts(str(empty))
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Caf\u00e9 au lait.".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin.txt is not valid UTF-8 \(byte 0xe9 at offset 3\)"):
        read_texts(str(latin))
    with pytest.raises(InputError, match="is a directory"):
        read_texts(str(tmp_path))


def test_utf8_byte_order_mark_is_ignored(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffHello there.".encode("utf-8"))
    assert read_texts(str(path))[0].text == "Hello there."


# ------------------------------------------------------- split on \n only; invisible texts are refused


@pytest.mark.parametrize("separator", ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_lines_split_on_newlines_only(tmp_path, separator):
    """str.splitlines() also breaks on these, which silently misaligns the lines of two paired files."""
    path = tmp_path / "in.txt"
    path.write_text(f"First{separator}still first.\r\nSecond.\nThird.\n", encoding="utf-8", newline="")
    texts = read_texts(str(path), "lines")
    assert [t.label.split("/")[-1] for t in texts] == ["in.txt:1", "in.txt:2", "in.txt:3"]
    assert texts[0].text == f"First{separator}still first."


def test_jsonl_with_a_raw_line_separator_inside_a_string_is_one_record(tmp_path):
    """U+2028 is valid unescaped inside a JSON string (json.dumps(ensure_ascii=False) writes it)."""
    path = tmp_path / "out.jsonl"
    path.write_text('{"text": "One.\u2028Two."}\r\n{"text": "Three.\x85Four."}\n', encoding="utf-8", newline="")
    texts = read_texts(str(path), "jsonl")
    assert [t.text for t in texts] == ["One.\u2028Two.", "Three.\x85Four."]
    assert [t.label.split("/")[-1] for t in texts] == ["out.jsonl:1", "out.jsonl:2"]


def test_crlf_blank_lines_separate_paragraphs_and_docs_read_as_with_lf(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(b"First text.\r\nStill first.\r\n\r\nSecond text.\r\n \r\nThird.\r\n")
    assert [t.text for t in read_texts(str(path), "paragraphs")] == [
        "First text.\nStill first.", "Second text.", "Third."]
    lf = tmp_path / "lf.txt"
    lf.write_bytes(path.read_bytes().replace(b"\r\n", b"\n"))
    assert read_texts(str(path))[0].text == read_texts(str(lf))[0].text


@pytest.mark.parametrize("content", ["\x00\x00\x00", "\u200b\u200b", "\x07\x1b\x7f\x08", "\ufeff\u200d \u2060\n"])
def test_a_text_of_invisible_characters_is_refused(tmp_path, content):
    path = tmp_path / "blank.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=r"blank.txt has no visible characters"):
        read_texts(str(path))


def test_invisible_lines_paragraphs_and_fields_are_named(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("Fine.\n\u200b\x00\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"in.txt line 2 has no visible characters"):
        read_texts(str(path), "lines")
    with pytest.raises(InputError, match=r"in.txt paragraph 2 has no visible characters"):
        path.write_text("Fine.\n\n\x00\x00\n", encoding="utf-8")
        read_texts(str(path), "paragraphs")
    jsonl = tmp_path / "out.jsonl"
    jsonl.write_text('{"text": "ok"}\n{"text": ["\\u0000", "\\u200b"]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"out.jsonl line 2: field 'text' has no visible characters"):
        read_texts(str(jsonl), "jsonl")


# ------------------------------------------------------- paragraph separators, non-regular files


@pytest.mark.parametrize("separator", ["\n\n\n\n", "\n \n\t\n\n", "\n\u00a0\n", "\n\u3000\u00a0 \n", "\r\n\u2007\r\n"])
def test_any_run_of_blank_lines_separates_paragraphs(tmp_path, separator):
    """Several blank lines were refused as an empty paragraph; a line holding only a no-break space merged two."""
    path = tmp_path / "in.txt"
    path.write_text(f"First text.\nStill first.{separator}Second text.\n", encoding="utf-8", newline="")
    texts = read_texts(str(path), "paragraphs")
    assert [t.text for t in texts] == ["First text.\nStill first.", "Second text."]
    assert [t.label.split("/")[-1] for t in texts] == ["in.txt:paragraph1", "in.txt:paragraph2"]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused_before_reading(device):
    with pytest.raises(InputError, match=f"{device} is not a regular file"):
        read_texts(device)


def test_a_named_pipe_is_read_like_process_substitution(tmp_path):
    """``compare <(jq ...) <(jq ...)`` hands the command FIFOs: they are read until the writer closes them."""
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as pipe:
            pipe.write("One text.\nAnother text.\n")

    writer = threading.Thread(target=write)
    writer.start()
    texts = read_texts(str(fifo), "lines")
    writer.join()
    assert [t.text for t in texts] == ["One text.", "Another text."]


def test_an_input_over_the_size_limit_is_refused(tmp_path, monkeypatch):
    from coherence_metric.inputs import files as inputs

    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 100)
    path = tmp_path / "big.txt"
    path.write_text("A text. " * 20, encoding="utf-8")
    with pytest.raises(InputError, match=r"big.txt is larger than 100 bytes"):
        read_texts(str(path))
    path.write_text("A text. " * 12, encoding="utf-8")  # 96 bytes: fine
    assert len(read_texts(str(path))) == 1


# UTF-16 and UTF-32 files were told to `iconv -f latin1`, which turns them into garbled text that
# then scores without a word. Each encoding is named with the command that converts it.
@pytest.mark.parametrize("encoding, named", [
    ("utf-16", "UTF-16"),  # Python writes a byte order mark
    ("utf-32", "UTF-32"),
    ("utf-16-le", "UTF-16LE"),  # no byte order mark: NUL bytes between ASCII letters (valid UTF-8, garbled text)
    ("utf-16-be", "UTF-16BE"),
])
def test_utf16_and_utf32_files_are_named_with_the_command_that_converts_them(tmp_path, encoding, named):
    path = tmp_path / "wide.txt"
    path.write_text("The river rose slowly.\nBy morning the fields were under water.\n", encoding=encoding)
    with pytest.raises(InputError) as caught:
        read_texts(str(path), "lines")
    message = str(caught.value)
    assert message.startswith(f"{path} is {named}") and "\n" not in message
    assert f"iconv -f {named} -t UTF-8 {path}" in message and "latin1" not in message


def test_other_invalid_utf8_is_not_told_to_guess_latin1(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("caf\u00e9\n".encode("latin-1"))
    with pytest.raises(InputError) as caught:
        read_texts(str(path))
    assert "latin1" not in str(caught.value) and f"file -i {path}" in str(caught.value)


# --group-by values that are not plainly a name.
def _grouped_file(tmp_path, systems):
    path = tmp_path / "outputs.jsonl"
    path.write_text("".join(json.dumps({"system": system, "text": f"Text {number}. More."}) + "\n"
                            for number, system in enumerate(systems)), encoding="utf-8")
    return path


def test_group_by_null_is_named_as_null_not_as_a_missing_field(tmp_path):
    path = _grouped_file(tmp_path, ["a", None])
    with pytest.raises(InputError) as caught:
        read_grouped_texts(str(path), "text", "system")
    assert f"{path} line 2: field 'system' is null" in str(caught.value)
    assert "has no field" not in str(caught.value)


def test_group_by_a_number_and_the_same_digits_as_a_string_are_refused_not_merged(tmp_path):
    assert list(read_grouped_texts(str(_grouped_file(tmp_path, [1, 2, 1, 2])), "text", "system")) == ["1", "2"]
    path = _grouped_file(tmp_path, [1, "1", "2", "2"])
    with pytest.raises(InputError) as caught:
        read_grouped_texts(str(path), "text", "system")
    message = str(caught.value)
    assert f"{path} lines 1 and 2" in message and "1 (a number)" in message and "'1' (a string)" in message


@pytest.mark.parametrize("other", ["A\u200b", "\u200bA", "A\u2060", "A\ufeff", "\u0041\u030a", "A "])
def test_group_by_names_that_print_alike_are_refused_with_both_spellings(tmp_path, other):
    first = "\u00c5" if other == "\u0041\u030a" else "A"  # Å precomposed and A + combining ring print alike
    path = _grouped_file(tmp_path, [first, other, first, other])
    with pytest.raises(InputError) as caught:
        read_grouped_texts(str(path), "text", "system")
    message = str(caught.value)
    assert f"{path} lines 1 and 2" in message and ascii(other) in message and "print the same" in message
    assert "\u200b" not in message and "\n" not in message


def test_group_by_a_name_with_nothing_visible_is_refused(tmp_path):
    path = _grouped_file(tmp_path, ["a", "\u200b"])
    with pytest.raises(InputError, match="line 2: field 'system' has no visible characters"):
        read_grouped_texts(str(path), "text", "system")
