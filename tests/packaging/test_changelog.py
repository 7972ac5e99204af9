"""CHANGELOG.md keeps the Keep a Changelog 1.1.0 shape: releases newest first with their dates, the six
kinds of change in their order, and one short line per change with a link to where its detail lives, so a user reads
what changed for them in a screen and not an essay."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List

from ..conftest import REPO_DIR

CHANGELOG = REPO_DIR / "CHANGELOG.md"
KINDS = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]
_RELEASE = re.compile(r"^## \[(?P<version>Unreleased|\d+\.\d+\.\d+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$")
#: An entry says what changed for a user in at most this many characters (after "- ", before its detail link); the
#: how and why live behind the link.
TEXT_LIMIT = 160
#: No line, link target included, is longer: a link's label and anchor cannot carry the essay instead.
LINE_LIMIT = 270
#: The link that closes an entry: " ([Where](docs/page.md#anchor))." at the end of the line.
_DETAIL_LINK = re.compile(r" \(\[[^\]]+\]\([^)\s]+\)\)\.?$")


def problems(path: Path) -> List[str]:
    """Every way ``path`` departs from the shape; empty when it keeps it."""
    found: List[str] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    releases = []
    kinds: List[str] = []
    for number, line in enumerate(lines, start=1):
        where = f"{path.name}:{number}"
        if line.startswith("## "):
            match = _RELEASE.match(line)
            if not match:
                found.append(f"{where}: a release heading is '## [X.Y.Z] - YYYY-MM-DD' or '## [Unreleased]'")
                continue
            if (match["version"] == "Unreleased") != (match["date"] is None):
                found.append(f"{where}: only [Unreleased] goes without a date")
            releases.append((match["version"], match["date"]))
            kinds = []
        elif line.startswith("### "):
            kind = line[4:].strip()
            if kind not in KINDS:
                found.append(f"{where}: '{kind}' is not one of {', '.join(KINDS)}")
            elif kinds and KINDS.index(kind) <= KINDS.index(kinds[-1]):
                found.append(f"{where}: '{kind}' comes after '{kinds[-1]}' (order: {', '.join(KINDS)})")
            kinds.append(kind)
        elif line.startswith("- "):
            if not kinds:
                found.append(f"{where}: an entry outside a kind of change")
            if "](" not in line:
                found.append(f"{where}: an entry without a link to its detail")
            link = _DETAIL_LINK.search(line)
            text = line[2:link.start()] if link else line[2:]
            if len(text) > TEXT_LIMIT:
                found.append(f"{where}: an entry of {len(text)} characters before its link (at most {TEXT_LIMIT})")
        elif line.startswith(("  ", "\t")) and kinds:
            found.append(f"{where}: an entry is one line")
        if len(line) > LINE_LIMIT:
            found.append(f"{where}: a line of {len(line)} characters (at most {LINE_LIMIT})")
    numbered = [tuple(int(part) for part in version.split(".")) for version, _ in releases if version != "Unreleased"]
    if numbered != sorted(numbered, reverse=True):
        found.append(f"{path.name}: releases are not newest first")
    dates = [date for _, date in releases if date]
    if dates != sorted(dates, reverse=True):
        found.append(f"{path.name}: release dates are not newest first")
    if "keepachangelog.com/en/1.1.0" not in "\n".join(lines[:12]):
        found.append(f"{path.name}: the header does not say it follows Keep a Changelog 1.1.0")
    return found


def test_the_changelog_keeps_its_shape():
    assert problems(CHANGELOG) == []


def test_the_shape_check_finds_an_essay_and_a_disordered_release(tmp_path):
    page = tmp_path / "CHANGELOG.md"
    page.write_text("# Changelog\n\nBased on [Keep a Changelog](https://keepachangelog.com/en/1.1.0/).\n\n"
                    "## [0.1.0] - 2026-01-01\n\n### Fixed\n- a fix ([docs](docs/x.md))\n\n### Added\n"
                    "- a feature with no link\n  that goes on\n\n## [0.2.0] - 2026-02-01\n\n### Improved\n",
                    encoding="utf-8")
    assert problems(page) == [
        "CHANGELOG.md:10: 'Added' comes after 'Fixed' (order: Added, Changed, Deprecated, Removed, Fixed, Security)",
        "CHANGELOG.md:11: an entry without a link to its detail",
        "CHANGELOG.md:12: an entry is one line",
        "CHANGELOG.md:16: 'Improved' is not one of Added, Changed, Deprecated, Removed, Fixed, Security",
        "CHANGELOG.md: releases are not newest first",
        "CHANGELOG.md: release dates are not newest first",
    ]


def test_the_shape_check_finds_an_entry_too_long_to_read_at_a_glance(tmp_path):
    page = tmp_path / "CHANGELOG.md"
    link = " ([Python](docs/python.md#empty-outputs))."
    long_link = f"- short ([Python](docs/python.md#{'z' * LINE_LIMIT}))"
    page.write_text("# Changelog\n\nBased on [Keep a Changelog](https://keepachangelog.com/en/1.1.0/).\n\n"
                    "## [0.1.0] - 2026-01-01\n\n### Added\n"
                    f"- {'x' * TEXT_LIMIT}{link}\n"
                    f"- {'y' * (TEXT_LIMIT + 1)}{link}\n"
                    f"{long_link}\n",
                    encoding="utf-8")
    assert problems(page) == [
        f"CHANGELOG.md:9: an entry of {TEXT_LIMIT + 1} characters before its link (at most {TEXT_LIMIT})",
        f"CHANGELOG.md:10: a line of {len(long_link)} characters (at most {LINE_LIMIT})",
    ]
