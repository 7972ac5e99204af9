"""`make test`'s quick mypy configuration is setup.cfg's, with torch and transformers read as untyped and nothing
else changed, so a setting added to one file and not the other shows here."""

from __future__ import annotations

import configparser

from ..conftest import REPO_DIR


def _read(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read(REPO_DIR / name, encoding="utf-8")
    return parser


def test_the_quick_check_is_the_full_one_but_for_following_torch_and_transformers():
    full, quick = _read("setup.cfg"), _read("tests/mypy-quick.ini")
    assert dict(quick["mypy"]) == dict(full["mypy"])
    assert [section for section in quick.sections() if section != "mypy"] == ["mypy-torch.*,transformers.*"]
    assert dict(quick["mypy-torch.*,transformers.*"]) == {"follow_imports": "skip"}
    assert not [section for section in full.sections() if section.startswith("mypy-")]


def test_make_test_runs_the_quick_check_and_make_test_all_the_full_one():
    makefile = (REPO_DIR / "Makefile").read_text(encoding="utf-8")
    test = makefile.split("\ntest: ", 1)[1].split("\n\n", 1)[0]
    test_all = makefile.split("\ntest-all: ", 1)[1].split("\n\n", 1)[0]
    assert "mypy --config-file tests/mypy-quick.ini coherence_metric" in test
    assert "mypy coherence_metric" in test_all and "mypy-quick" not in test_all
