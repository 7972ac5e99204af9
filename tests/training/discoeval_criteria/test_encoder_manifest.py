"""A saved DiscoEval-criteria encoder's manifest names its weights and tokenizer as plain names in its own folder:
a manifest naming another path (``../x``, an absolute one) is refused in one line, before anything is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coherence_metric.errors import InputError
from coherence_metric.training.discoeval_criteria.encoder import FAMILY, MANIFEST_FILE, BiGRUSentenceEncoder

SIZES = {"family": FAMILY, "hidden_size": 4, "embedding_rows": 8, "embedding_dim": 4, "max_length": 16}


@pytest.mark.parametrize("field, value", [("weights", "../model.pt"), ("weights", "/etc/passwd"),
                                          ("tokenizer", "../../elsewhere")])
def test_a_manifest_naming_a_file_outside_its_folder_is_refused(tmp_path: Path, field: str, value: str) -> None:
    folder = tmp_path / "encoder"
    folder.mkdir()
    (folder / MANIFEST_FILE).write_text(json.dumps({**SIZES, field: value}), encoding="utf-8")
    with pytest.raises(InputError, match=rf"{MANIFEST_FILE}: {field} is '{value}', which is not a plain file name"):
        BiGRUSentenceEncoder(folder)


def test_a_manifest_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    (tmp_path / MANIFEST_FILE).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(InputError, match=f"{MANIFEST_FILE} is corrupt"):
        BiGRUSentenceEncoder(tmp_path)
