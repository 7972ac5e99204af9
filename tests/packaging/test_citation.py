"""The citation says which version produced a number: CITATION.cff, the BibTeX of docs/paper.md and the package agree
(the BibTeX said 0.4.0 while ``--version`` printed 0.8.0), and the release date is the changelog's."""

from __future__ import annotations

import re

import yaml

from coherence_metric.version import __version__

from ..conftest import REPO_DIR

#: Keys CFF 1.2.0 requires, and the ones a citation of a version needs.
REQUIRED_KEYS = {"cff-version", "message", "title", "authors", "version", "date-released"}


def _citation() -> dict:
    return yaml.safe_load((REPO_DIR / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_cff_names_the_package_version_and_its_release_date():
    citation = _citation()
    assert REQUIRED_KEYS <= set(citation)
    assert citation["cff-version"] == "1.2.0"
    assert str(citation["version"]) == __version__
    changelog = (REPO_DIR / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.search(rf"^## \[{re.escape(__version__)}\] - (\d{{4}}-\d{{2}}-\d{{2}})$", changelog, re.MULTILINE)
    assert released, f"CHANGELOG.md has no heading for {__version__}"
    assert str(citation["date-released"]) == released.group(1)


def test_the_bibtex_cites_the_package_version():
    page = (REPO_DIR / "docs" / "paper.md").read_text(encoding="utf-8")
    versions = re.findall(r"^\s*version\s*=\s*\{([^}]*)\}", page, re.MULTILINE)
    assert versions == [__version__]


def test_the_preferred_citation_is_the_reproduced_paper():
    preferred = _citation()["preferred-citation"]
    assert preferred["year"] == 2022
    assert [author["family-names"] for author in preferred["authors"]] == ["Jwalapuram", "Joty", "Lin"]
