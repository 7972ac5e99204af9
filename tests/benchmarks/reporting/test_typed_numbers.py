"""Every target is written once, in targets.toml, and every measured number once, in its report.

The generated blocks of the pages are held to their reports by test_landing.py (MODEL_HISTORY.md, docs/benchmarks.md
and docs/explain.md among the pages). These tests hold the rest: the targets file itself, the one speed rule as the
card, the speed page and the history apply it, the targets the prose states, the history's prose, and that one
number changed in the targets file or in a report fails the pages' check.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import List

import pytest

from coherence_metric.benchmarks.reporting import (
    benchmark_tables,
    cpu_speed_table,
    explain_tables,
    landing,
    model_cards,
    model_history,
    targets,
    training_tables,
)
from coherence_metric.benchmarks.reporting.report_reader import ACCURATE, FAST

from ...conftest import REPO_DIR
from ..report_copies import REPORTS

HISTORY = REPO_DIR / "MODEL_HISTORY.md"
#: The pages whose prose may state a target, and so must state the file's.
PROSE_PAGES = ("README.md", "MODELS.md", "MODEL_HISTORY.md", "docs/benchmarks.md", "docs/explain.md",
               "docs/training.md", "docs/index.md")
AMX = "Intel(R) Xeon(R) Processor (amx_bf16, avx512_bf16)"
AVX512_BF16 = "AMD EPYC (avx512_bf16)"
AVX2 = "AMD EPYC (no native bf16)"


def _flat(path: str) -> str:
    return " ".join((REPO_DIR / path).read_text(encoding="utf-8").split())


def _prose(path: str) -> str:
    """A page without its generated blocks and code blocks, whitespace flattened: what a person typed."""
    text = (REPO_DIR / path).read_text(encoding="utf-8")
    text = re.sub(r"<!-- generated:(?P<name>[a-z0-9.-]+) -->\n.*?<!-- /generated:(?P=name) -->", "", text,
                  flags=re.DOTALL)
    text = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    return " ".join(text.split())


# --- the file --------------------------------------------------------------------------------------------------------

def test_the_targets_file_reads_with_every_section_and_ships_beside_its_reader():
    goals = targets.load()
    assert goals.speed.cpu_native_bf16_min_ratio > goals.speed.cpu_other_min_ratio > goals.speed.accurate_min_ratio
    assert 0 < goals.int8.min_winners_kept < 1 and 0 < goals.speed.min_share_of_limit <= 1
    assert targets.TARGETS_FILE.name == "targets.toml" and targets.TARGETS_FILE.parent == Path(targets.__file__).parent
    setup = (REPO_DIR / "setup.cfg").read_text(encoding="utf-8")
    assert re.search(r"coherence_metric\.benchmarks\.reporting =\s+targets\.toml", setup)


def test_the_python_3_10_reader_reads_the_file_as_tomllib_does():
    text = targets.TARGETS_FILE.read_text(encoding="utf-8")
    if sys.version_info >= (3, 11):
        import tomllib

        assert targets.parse_plain_tables(text) == tomllib.loads(text)
    with pytest.raises(ValueError, match="line 2"):
        targets.parse_plain_tables("[speed]\nname = 'text'\n")


@pytest.mark.parametrize("edit, message", [
    (lambda text: text.replace("min_speedup = 1.5", "min_speed_up = 1.5"), "unknown key 'min_speed_up'"),
    (lambda text: text.replace("auc_min = 0.65\n", ""), "lacks 'auc_min'"),
    (lambda text: text.replace("[localisation]", "[localization]"), "no [localisation] table"),
])
def test_a_misspelt_or_missing_target_is_refused_in_one_line(tmp_path, edit, message):
    path = tmp_path / "targets.toml"
    path.write_text(edit(targets.TARGETS_FILE.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(targets.TargetsError, match=re.escape(message)) as raised:
        targets.read(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


# --- the one speed rule ----------------------------------------------------------------------------------------------

def test_the_speed_rule_is_native_bf16_or_not_and_the_accurate_tier_everywhere():
    goals = targets.load()
    speed = goals.speed
    assert goals.cpu_min_ratio(AMX) == goals.cpu_min_ratio(AVX512_BF16) == speed.cpu_native_bf16_min_ratio
    assert goals.cpu_min_ratio(AVX2) == speed.cpu_other_min_ratio
    assert {goals.cpu_min_ratio(cpu, accurate=True) for cpu in (AMX, AVX512_BF16, AVX2)} == {speed.accurate_min_ratio}


def _row(key: str) -> model_cards.Row:
    return next(row for row in model_cards.ROWS if row.key == key)


def _speed_runs() -> List[tuple]:
    return [(path.parent.name, json.loads(path.read_text(encoding="utf-8")))
            for path in sorted(REPORTS.glob("*/speed*.json")) + sorted(REPORTS.glob("cpu-speed/*/speed*.json"))]


def test_the_card_the_speed_page_and_the_history_judge_a_speed_run_by_the_same_threshold():
    goals = targets.load()
    reports = landing.Reports(REPORTS)
    pages = {name: _flat(name) for name in ("MODELS.md", "MODEL_HISTORY.md", "docs/benchmarks.md")}
    past = {name for name, _ in model_history.past_defaults()}
    checked = 0
    for folder, run in _speed_runs():
        label = run["model"]["label"]
        wanted = goals.cpu_min_ratio(run["cpu"], accurate=label == ACCURATE)
        if label in cpu_speed_table.TIERS:
            assert cpu_speed_table.target_speedup(label, run["cpu"]) == wanted
            table = cpu_speed_table.table(reports)
            row = next(line for line in table.splitlines() if f"| {run['cpu']} |" in line
                       and line.startswith(f"| {cpu_speed_table.TIERS[label]} |"))
            assert f"(≥ {targets.times(wanted)}×:" in row and row in pages["docs/benchmarks.md"]
        measure = _row("cpu_speed").measure(reports, folder) if folder in past else None
        if measure is not None:
            (target,) = model_cards.release_targets()["cpu_speed"]
            cell = f"{target.wording(measure)}: {'met' if target.met(measure, None) else 'missed'}"
            assert f"≥ {targets.times(wanted)}x" in cell and cell in pages["MODEL_HISTORY.md"]
            assert (measure.value >= wanted) == cell.endswith(": met")
        checked += 1
    assert checked >= 5
    card = model_cards.card_table(reports, FAST)
    assert f"≥ {targets.times(goals.cpu_min_ratio(AVX512_BF16))}x the reference (native bf16): " in card
    assert f"≥ {targets.times(goals.cpu_min_ratio(AVX2))}x the reference (no native bf16) on each: " in card


def test_the_0_7_0_defaults_speed_reads_the_same_on_its_card_column_and_in_the_history():
    reports = landing.Reports(REPORTS)
    ratio = _row("cpu_speed").measure(reports, model_cards.DEFAULT_0_7)
    history = model_history.history_table(reports)
    row = next(line for line in history.splitlines() if f"[`{model_cards.DEFAULT_0_7}`]" in line)
    assert ratio is not None and ratio.text in row
    verdict = "met" if ratio.value >= targets.load().cpu_min_ratio(AVX512_BF16) else "missed"
    assert f"(native bf16): {verdict}" in row


# --- targets stated in prose -----------------------------------------------------------------------------------------

def prose_problems(goals: targets.Targets) -> List[str]:
    """Each target the prose states that is not the targets file's, as one line (empty when they agree)."""
    n = targets.times
    speed, int8, release, cohesentia = goals.speed, goals.int8, goals.release, goals.cohesentia
    stated = {
        "docs/benchmarks.md": [
            f"the fast tier's {n(speed.cpu_native_bf16_min_ratio)}× the reference on a CPU with native bf16",
            f"and {n(speed.cpu_other_min_ratio)}× on one without, the accurate tier's {n(speed.accurate_min_ratio)}× "
            "on every CPU",
            f"so the {n(speed.cpu_other_min_ratio)}× target is out of an exact path's reach",
            f"misses its {n(speed.accurate_min_ratio)}× there",
            f"the {n(speed.cpu_other_min_ratio)}× target for CPUs without native bf16",
            f"long texts' words/s at least {n(speed.long_text_min_ratio)} of short texts'",
            f"at least {n(int8.min_speedup)}x the faster float path and keeps the winner of at least "
            f"{n(100 * int8.min_winners_kept)}% of pairs",
            f"still runs {n(int8.min_speedup)}x the faster float path",
            f"the GPU goal of {speed.gpu_default_goal_texts_per_second:,.0f} texts/s at 256 tokens",
            f"(the goal is {speed.gpu_default_goal_texts_per_second:,.0f} texts/s at 256 tokens",
        ],
        "docs/explain.md": [
            f"ranked at an AUC of at least {n(cohesentia.auc_min)} by the evidence of its own kind",
            f"top-1 at least {n(cohesentia.top1_over_random_min)}x chance",
            f"at an AUC of at least {n(cohesentia.flags_auc_min)} and top-1 at least "
            f"{n(cohesentia.flags_top1_over_random_min)}x chance on each half",
            f"at least {n(100 * cohesentia.kinds_named_right_min)}% of the flags at each set's break name the kind",
            f"is that at most {n(100 * cohesentia.clean_texts_flagged_max)}% of clean texts get any flag",
            f"top-1 at least {n(goals.localisation.top1_over_random_min)}x random and above the adjacent cosine",
            f"where {n(goals.localisation.top1_over_random_min)}x that chance is out of reach",
        ],
        "docs/training.md": [
            f"(at most {n(release.first_sentence_above_whole_max_percent)}%, gap within "
            f"{n(release.first_minus_whole_max_sd)} sd)",
            f"in at most {n(release.first_sentence_above_whole_max_percent)}%, gap within "
            f"{n(release.first_minus_whole_max_sd)} sd",
            f"({n(speed.cpu_native_bf16_min_ratio)}x the paper-faithful reference on a CPU with native bf16)",
        ],
    }
    problems = [f"{page}: no {phrase!r}" for page, phrases in stated.items() for phrase in phrases
                if phrase not in _prose(page)]
    # Any other speed-ratio target in prose: the number must be one of the file's ratio targets.
    ratios = {n(speed.cpu_native_bf16_min_ratio), n(speed.cpu_other_min_ratio), n(speed.accurate_min_ratio)}
    pattern = re.compile(r"(\d+(?:\.\d+)?)\s?[x×] (?:the )?(?:paper-faithful )?reference(?!'s)|(\d+(?:\.\d+)?)\s?[x×] "
                         r"target|(?:tier's|its) (\d+(?:\.\d+)?)\s?[x×]")
    for page in PROSE_PAGES:
        for match in pattern.finditer(_prose(page)):
            value = next(group for group in match.groups() if group)
            if value not in ratios:
                problems.append(f"{page}: {match.group(0)!r} is not a speed target of targets.toml ({sorted(ratios)})")
    return problems


def test_every_target_the_prose_states_is_the_targets_files():
    problems = prose_problems(targets.load())
    assert not problems, "targets stated in prose differ from targets.toml:\n" + "\n".join(problems)


def test_the_history_types_no_measured_number_and_keeps_every_past_defaults_anchor():
    text = HISTORY.read_text(encoding="utf-8")
    typed = model_cards.typed_numbers(text)
    assert not typed, "numbers typed into MODEL_HISTORY.md's prose:\n" + "\n".join(typed)
    assert "history" in landing.block_names(text)
    for checkpoint, versions in model_history.past_defaults():
        assert f"\n## {model_history.heading(checkpoint, versions)}\n" in text, checkpoint
    # the anchors the changelog and the docs link to are the headings'
    for path in (REPO_DIR / "CHANGELOG.md", REPO_DIR / "MODELS.md", *sorted((REPO_DIR / "docs").glob("*.md"))):
        for anchor in re.findall(r"(?:MODEL_HISTORY|model-history)\.md#([a-z0-9-]+)", path.read_text("utf-8")):
            assert any(anchor == model_history.anchor(model_history.heading(name, versions))
                       for name, versions in model_history.past_defaults()), f"{path.name}: #{anchor}"


def test_the_history_lists_every_past_default_newest_first_with_its_versions():
    past = model_history.past_defaults()
    names = [name for name, _ in past]
    # 0.8.0's default is `fast` since 0.9.0 moved `default` to the accurate tier: the newest past default
    assert ACCURATE not in names and names[:2] == [FAST, model_cards.DEFAULT_0_7] and names[-1] == "cm-minilm-2026.11"
    assert dict(past)[FAST] == ["0.8.0"]
    assert dict(past)[model_cards.DEFAULT_0_4] == ["0.4.0", "0.5.0", "0.6.0"]
    assert model_history.version_range(dict(past)[model_cards.DEFAULT_0_4]) == "0.4.0-0.6.0"
    table = model_history.history_table(landing.Reports(REPORTS))
    report = json.loads((REPORTS / "cm-minilm-2026.11" / "summeval-correlation.json").read_text(encoding="utf-8"))
    spearman = next(row for row in report["rows"] if row["name"] == "default")["correlations"]["summary"]["spearman"]
    row = next(line for line in table.splitlines() if "[`cm-minilm-2026.11`]" in line)
    assert f"| {spearman['value']:.3f} [" in row and "| not measured |" in row  # no speed report of 0.1.0


# --- fail-able: one number changed fails the check ------------------------------------------------------------------

def _checkout_copy(tmp_path: Path) -> Path:
    """benchmarks/reports and the dev reports docs/explain.md and docs/training.md read, laid out as in the checkout;
    the reports folder."""
    reports = tmp_path / "benchmarks" / "reports"
    shutil.copytree(REPORTS, reports, ignore=shutil.ignore_patterns("*.png", "*.md"))
    dev = explain_tables.dev_reports_folder(landing.Reports(REPORTS))
    target = explain_tables.dev_reports_folder(landing.Reports(reports)).joinpath(*explain_tables.INTRUSION_DEV)
    target.parent.mkdir(parents=True)
    shutil.copy(dev.joinpath(*explain_tables.INTRUSION_DEV), target)
    copied = explain_tables.dev_reports_folder(landing.Reports(reports))
    shutil.copytree(dev / training_tables.DISTIL_STORED, copied / training_tables.DISTIL_STORED)
    shutil.copytree(training_tables.teacher_scores_folder(landing.Reports(REPORTS)),
                    training_tables.teacher_scores_folder(landing.Reports(reports)))
    for report in [*training_tables.dev_reports_read(), "/".join(benchmark_tables.WINDOW_OVERLAP)]:
        (copied / report).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(dev / report, copied / report)
    return reports


def _stale(reports: Path) -> List[str]:
    """The pages whose generated blocks differ from ``reports`` under the current targets."""
    stale = []
    for page in landing.PAGES:
        text = (REPO_DIR / page).read_text(encoding="utf-8")
        if landing.render(text, landing.Reports(reports), landing.docs_prefix(page)) != text:
            stale.append(str(page))
    return stale


def test_the_copies_hold_the_pages_as_they_are(tmp_path):
    assert _stale(_checkout_copy(tmp_path)) == []


@pytest.mark.parametrize("old, new, pages", [
    ("cpu_native_bf16_min_ratio = 60.0", "cpu_native_bf16_min_ratio = 55.0",
     {"MODELS.md", "MODEL_HISTORY.md", "docs/benchmarks.md"}),
    ("min_winners_kept = 0.99", "min_winners_kept = 0.98", {"docs/benchmarks.md"}),
    ("human_dev_mean_min_percent = 62.0", "human_dev_mean_min_percent = 61.0", {"MODELS.md", "MODEL_HISTORY.md"}),
])
def test_one_target_changed_in_the_file_fails_the_pages_and_the_prose(tmp_path, monkeypatch, old, new, pages):
    edited = tmp_path / "targets.toml"
    text = targets.TARGETS_FILE.read_text(encoding="utf-8")
    assert text.count(old) == 1
    edited.write_text(text.replace(old, new), encoding="utf-8")
    monkeypatch.setattr(targets, "TARGETS_FILE", edited)
    reports = _checkout_copy(tmp_path)
    assert pages <= set(_stale(reports))
    if "ratio" in old or "winners" in old:  # a target the prose states
        assert prose_problems(targets.load())


@pytest.mark.parametrize("report, edit, pages", [
    # the 0.7.0 default's speed is on its own history row and in the cards read against it
    ("cm-minilm-joint-boundary-2026.11/speed.json", "speed", ["MODELS.md", "MODEL_HISTORY.md"]),
    ("cm-minilm-gpu-joint-2026.11/int8-check-amd-avx2.json", "int8", ["docs/benchmarks.md"]),
    ("cm-minilm-joint-2026.11/localisation_limit100.json", "localisation", ["docs/explain.md"]),
    ("cm-mpnet-lora-joint-2026.11/localisation_cohesentia-dev.json", "cohesentia", ["docs/explain.md"]),
    ("cm-minilm-gpu-joint-2026.11/summeval-correlation.json", "seconds", ["docs/benchmarks.md"]),
    ("cm-minilm-gpu-joint-2026.11/dtype-tolerance.json", "dtype", ["docs/reading-scores.md"]),
])
def test_one_number_changed_in_a_report_fails_its_page(tmp_path, report, edit, pages):
    reports = _checkout_copy(tmp_path)
    path = reports / report
    data = json.loads(path.read_text(encoding="utf-8"))
    if edit == "speed":
        row = next(row for row in data["sets"] if row["target_tokens"] == 256)
        row["ratios"]["ours_speedup"] = 61.0  # across the native-bf16 target: the verdict turns too
    elif edit == "int8":
        data["texts_per_second"]["int8"] += 1.0
    elif edit == "localisation":
        data["rows"][0]["kinds"]["swap"]["top1"] += 0.01
    elif edit == "cohesentia":
        data["methods"]["all"]["cohesion"]["cohesion"]["auc"] += 0.01
    elif edit == "dtype":
        data["models"]["cm-minilm-gpu-joint-2026.11"]["all"]["max_abs"] += 0.01
    else:
        data["seconds"] += 60
    path.write_text(json.dumps(data), encoding="utf-8")
    assert _stale(reports) == pages


@pytest.mark.parametrize("report, key, page", [
    (training_tables.LONG_WINDOWS, "human_mean", "docs/training.md"),
    (training_tables.GPU_JOINT, "human_mean", "docs/training.md"),
    ("/".join(benchmark_tables.WINDOW_OVERLAP), "long_tokens_per_word", "docs/benchmarks.md"),
])
def test_one_number_changed_in_a_training_dev_report_fails_its_page(tmp_path, report, key, page):
    reports = _checkout_copy(tmp_path)
    path = explain_tables.dev_reports_folder(landing.Reports(reports)) / report
    data = json.loads(path.read_text(encoding="utf-8"))
    data["options"][-1][key] += 0.01
    path.write_text(json.dumps(data), encoding="utf-8")
    assert _stale(reports) == [page]


#: What the prose of these pages may still type: targets, rules and recipe settings, never a measured number.
SETTINGS_IN_PROSE = {
    "docs/training.md": {"0.1", "0.2", "0.5", "2.0", "5.0", "55%", "60%", "75%", "60x",
                         "30 s"},  # how long a lent device stays warm after a call
    "docs/llm-outputs.md": set(),
    # the transition's cosine weight, the cosine of identical words, interval levels, targets and budgets
    "docs/explain.md": {"2.2", "1.0", "95%", "0.65", "0.75", "80%", "2x", "3x", "10%", "8%", "100%"},
}


@pytest.mark.parametrize("page", sorted(SETTINGS_IN_PROSE))
def test_the_prose_of_the_training_explain_and_llm_pages_types_no_measured_number(page):
    typed = [line for line in model_cards.typed_numbers((REPO_DIR / page).read_text(encoding="utf-8"))
             if line.split("'")[1] not in SETTINGS_IN_PROSE[page]]
    assert not typed, f"numbers typed into {page}'s prose (generate them from their report):\n" + "\n".join(typed)
