"""The documentation site: it builds offline and strict from this checkout, it holds what the README promises, a
broken link or an undocumented public name fails the build, and its front page renders in a headless browser."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    completed = _build(ROOT / "mkdocs.yml", folder)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return folder


def _text(page: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))


def test_the_site_includes_readme_models_and_changelog_rather_than_copies(site):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = _text(site / "index.html")
    # the headline table's default row and the intro come from README.md itself
    default_row = next(line for line in readme.splitlines() if line.startswith("| **default**"))
    assert "## Where it stands" in readme and "Where it stands" in index
    summeval_cell = default_row.split("|")[2].strip(" *")
    assert re.fullmatch(r"0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]", summeval_cell) and summeval_cell in index
    first_models_heading = re.search(r"^## (.+)$", (ROOT / "MODELS.md").read_text(encoding="utf-8"), re.M).group(1)
    assert first_models_heading.replace("`", "") in _text(site / "models.html")
    first_release = re.search(r"^## \[(.+?)\]", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M).group(1)
    assert f"[{first_release}]" in _text(site / "changelog.html")
    assert "--8<--" not in index and "[start:" not in index  # include markers never leak into a page


def test_the_cli_reference_documents_every_command_and_option_and_hides_the_old_spellings(site):
    import click
    from click.testing import CliRunner

    from coherence_metric.cli.reference import cli

    page = _text(site / "reference" / "cli.html")
    commands = list(cli.commands.items())
    while commands:
        name, command = commands.pop()
        assert f"coherence-metric {name}" in page, name
        if isinstance(command, click.Group):  # benchmark SUITE, train STEP: each subcommand and its options
            commands += [(f"{name} {sub}", subcommand) for sub, subcommand in command.commands.items()]
        for option in command.params:
            if not isinstance(option, click.Option) or option.hidden:
                continue
            for flag in option.opts + option.secondary_opts:
                assert flag in page, f"{name} {flag}"
    benchmark = page[page.index("coherence-metric benchmark"):page.index("coherence-metric compare")]
    assert "--no-progress" not in benchmark and "--out " not in benchmark and "--suite" not in benchmark
    assert CliRunner().invoke(cli, ["benchmark", "--help"]).exit_code == 0
    assert "Sentinel" not in page and "UNSET" not in page  # click 8.3's marker for "no default" (hooks/click_defaults)


def test_the_api_reference_shows_every_public_name_with_its_docstring(site):
    import coherence_metric

    page = _text(site / "reference" / "api.html")
    for name in coherence_metric.__all__:
        if name != "__version__":
            assert name in page, name
    assert "Coherence scores of a list of texts, in input order." in page  # ScoreResult's docstring, rendered


def test_a_broken_link_and_an_undocumented_public_name_fail_the_strict_build(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    (docs / "quickstart.md").write_text((docs / "quickstart.md").read_text(encoding="utf-8")
                                        + "\n[a page that is not there](no-such-page.md)\n", encoding="utf-8")
    api = docs / "reference" / "api.md"
    api.write_text(api.read_text(encoding="utf-8").replace("::: coherence_metric.dataframe.score_dataframe\n", ""),
                   encoding="utf-8")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("docs_dir: docs", f"docs_dir: {docs}").replace(
        "  - docs/hooks/api_coverage.py", f"  - {ROOT / 'docs' / 'hooks' / 'api_coverage.py'}").replace(
        'paths: ["."]', f'paths: ["{ROOT}"]')
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    completed = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert completed.returncode != 0
    assert "no-such-page.md" in completed.stderr
    assert "score_dataframe is public" in completed.stderr


def _chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("COHERENCE_METRIC_REQUIRE_CHROMIUM"):
        pytest.fail("no chromium on PATH (apt-get install chromium), and COHERENCE_METRIC_REQUIRE_CHROMIUM is set")
    pytest.skip("no chromium on PATH: apt-get install chromium (CI sets COHERENCE_METRIC_REQUIRE_CHROMIUM)")


def test_the_front_page_renders_in_headless_chromium(site, tmp_path):
    from PIL import Image

    shot = tmp_path / "front-page.png"
    completed = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900",
         "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", (site / "index.html").as_uri()],
        capture_output=True, text=True, timeout=300)
    assert shot.exists(), completed.stderr[-3000:]
    console = [line for line in completed.stderr.splitlines() if "CONSOLE" in line or "Failed to load" in line]
    assert not [line for line in console if re.search(r"Uncaught|Error|Failed to load", line)], console
    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 900)
    # Material's indigo header bar (#3f51b5) across the top: the stylesheet loaded from disk, no network needed
    header = [image.getpixel((x, 20)) for x in range(300, 1200, 50)]
    assert all(abs(r - 63) < 12 and abs(g - 81) < 12 and abs(b - 181) < 12 for r, g, b in header), header
    # the page body holds text: many dark pixels on white, not an empty or error page
    body = image.crop((296, 100, 980, 900))
    dark = sum(1 for x in range(0, body.width, 2) for y in range(0, body.height, 2) if sum(body.getpixel((x, y))) < 200)
    assert dark > 500, dark
    shutil.copy(shot, ROOT / "site-front-page.png") if os.environ.get("COHERENCE_METRIC_KEEP_SCREENSHOT") else None
