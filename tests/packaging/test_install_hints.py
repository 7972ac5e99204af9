"""Every install hint the package prints works as printed: coherence-metric is not on the package index, so a hint
names the requirements themselves (read from the installed metadata, quoted for zsh), or a path in the clone."""

from __future__ import annotations

import re
import shlex
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from coherence_metric.install_hints import ARCHIVE_HINT, UPGRADE_HINT, extra_requirements, pip_install_hint

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("coherence_metric", "training", "benchmarks", "research", "tools")
#: What a hint may not say: the index has no coherence-metric (nor its archive pack) to install.
UNINSTALLABLE = re.compile(r"pip install (-U )?['\"]?coherence-metric(-archive)?\b")


@pytest.mark.parametrize("extra", ["integrations", "bench", "train"])
def test_an_extra_hint_installs_exactly_the_extras_requirements_each_quoted(extra):
    hint = pip_install_hint(extra)
    words = shlex.split(hint)  # how sh, bash and zsh read it: the quotes keep '>=' and '[data]' literal
    assert words[:2] == ["pip", "install"]
    assert words[2:] == extra_requirements(extra) and words[2:]
    for word in words[2:]:
        requirement = Requirement(word)
        assert metadata.version(requirement.name)  # make test installs every extra: each one is a real distribution
        assert f"'{word}'" in hint


def test_the_integrations_hint_names_ray_with_its_data_extra():
    assert "'ray[data]>=2.9'" in pip_install_hint("integrations")


def test_the_archive_and_upgrade_hints_name_folders_that_exist_in_the_clone():
    assert ARCHIVE_HINT.startswith("pip install ./archive ")
    assert (REPO / "archive" / "setup.cfg").is_file()
    assert "pip install ./archive ." in UPGRADE_HINT


def test_no_source_file_prints_a_pip_install_of_coherence_metric_from_the_index():
    offenders = []
    for folder in SOURCES:
        for path in sorted((REPO / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if UNINSTALLABLE.search(line):
                    offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []
