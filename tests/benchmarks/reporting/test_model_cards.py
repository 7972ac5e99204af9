"""MODELS.md's numbers are the reports' numbers: every card's table is generated, and no number is typed.

A card's table is written by ``benchmarks/reporting/model_cards.py`` from ``benchmarks/reports/**/*.json`` (``make
tables``); test_landing.py fails while MODELS.md and the reports disagree. These tests hold the rest: each card has
its generated table, no measured number sits in MODELS.md's prose, the met/missed of a target follows the report, a
report that was never run reads "not measured", and each card stays one screen.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from coherence_metric.benchmarks.reporting import landing, model_cards, targets
from coherence_metric.benchmarks.reporting.report_reader import LandingError, tier_label

from ...conftest import REPO_DIR
from ..report_copies import REPORTS, copy_reports, set_system_tau

MODELS = REPO_DIR / "MODELS.md"
#: The checkpoints to use today, each with a card on MODELS.md.
CARD_CHECKPOINTS = (landing.FAST, landing.ACCURATE, model_cards.STUDENT, model_cards.WITH_TRANSITIONS,
                    model_cards.TRANSITION_MODEL)
#: A card is read on one screen: what it is, how it was chosen, its table, its limits.
CARD_MAX_LINES = 50


def _models() -> str:
    return MODELS.read_text(encoding="utf-8")


def _row(table: str, label: str) -> list:
    line = next(line for line in table.splitlines() if line.startswith(f"| {label}"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_every_card_has_its_generated_table_and_the_paper_suite_is_generated():
    names = landing.block_names(_models())
    for checkpoint in CARD_CHECKPOINTS:
        assert f"{model_cards.CARD_PREFIX}{checkpoint}" in names, checkpoint
    assert "paper-suite" in names


def test_models_md_types_no_measured_number():
    typed = model_cards.typed_numbers(_models())
    assert not typed, "numbers typed into MODELS.md's prose (generate them or point to a table):\n" + "\n".join(typed)


def test_a_typed_number_is_found_and_generated_ones_and_versions_are_not():
    page = ("Since 0.8.0, `model:x@1.2` and [a](docs/a-0.5.md), Apache-2.0.\n"
            "<!-- generated:paper-suite -->\n| 62.55 [60.7, 64.4] | 61.7x | 64.0% |\n<!-- /generated:paper-suite -->\n")
    assert model_cards.typed_numbers(page) == []
    typed = model_cards.typed_numbers(page + "It agrees 62.5% of the time, 0.322 on SummEval, 61.7x faster, "
                                             "in 1,475 s.\n")
    assert [item.split(" in: ")[0] for item in typed] == ["'62.5'", "'0.322'", "'61.7x'", "'1,475 s'"]


def test_each_card_fits_one_screen():
    sections = re.split(r"^(?=## )", _models(), flags=re.M)[1:]
    cards = [section for section in sections if any(f"`{name}`" in section.splitlines()[0]
                                                    for name in CARD_CHECKPOINTS)]
    assert len(cards) == len(CARD_CHECKPOINTS)
    for card in cards:
        assert len(card.splitlines()) <= CARD_MAX_LINES, card.splitlines()[0]


def test_the_default_card_reads_its_reports_and_the_0_7_default_beside_it():
    table = model_cards.card_table(landing.Reports(REPORTS), landing.FAST)
    report = json.loads((REPORTS / landing.FAST / "summeval-correlation.json").read_text(encoding="utf-8"))
    spearman = next(r for r in report["rows"] if r["name"] == landing.FAST)["correlations"]["summary"]["spearman"]
    older = json.loads((REPORTS / model_cards.DEFAULT_0_7 / "summeval-correlation.json").read_text(encoding="utf-8"))
    older_value = next(r for r in older["rows"] if r["name"] == model_cards.DEFAULT_0_7)
    row = _row(table, "SummEval summary-level Spearman")
    assert row[1].startswith(f"{spearman['value']:.3f} [{spearman['interval'][0]:.3f}")
    assert row[2].startswith(f"{older_value['correlations']['summary']['spearman']['value']:.3f}")
    assert row[3].endswith(": met" if spearman["value"] >= 0.40 and spearman["interval"][0] > 0.33 else ": missed")
    leans = report["per_system"]["length_kendall"]  # the per-system table's lean on length, beside the experts'
    row = _row(table, "… Kendall τ of its system means with the systems' mean length")
    assert row[0].endswith(f"(the experts': {leans['experts']:+.3f})") and row[1] == f"{leans[landing.FAST]:+.3f}"


def test_a_target_follows_its_report_and_make_tables_rewrites_the_card(tmp_path, capsys):
    reports = copy_reports(tmp_path)
    page = tmp_path / "MODELS.md"
    shutil.copy(MODELS, page)
    assert "≥ 0.60: missed" in page.read_text(encoding="utf-8")  # the accurate tier's system-level target today
    set_system_tau(reports, landing.ACCURATE, 0.65)

    assert landing.main(["--check", "--page", str(page), "--reports", str(reports)]) == 1
    assert "run `make tables`" in capsys.readouterr().err
    assert landing.main(["--page", str(page), "--reports", str(reports)]) == 0
    card = page.read_text(encoding="utf-8").split("## Accurate")[1].split("\n## ")[0]
    cells = _row(card, "SummEval system-level Kendall")
    assert cells[1].startswith("0.650 [") and cells[3] == "≥ 0.60: met"


def test_the_default_is_held_to_the_rule_for_a_default_beside_the_ship_rule_it_shipped_under(tmp_path):
    rule = targets.load().default
    reports = copy_reports(tmp_path)
    table = model_cards.card_table(landing.Reports(reports), landing.ACCURATE)
    header = [cell.strip() for cell in table.splitlines()[0].strip("|").split("|")]
    assert header[3:] == ["target (ship rule)", "target (default rule, 0.9.0)", "report"]
    assert _row(table, "the lowest linguistic probe")[4] == f"none below {targets.times(rule.probe_min_percent)}: met"
    for tau, verdict in ((rule.system_kendall_min - 0.01, "missed"), (rule.system_kendall_min, "met")):
        set_system_tau(reports, landing.ACCURATE, tau)
        cells = _row(model_cards.card_table(landing.Reports(reports), landing.ACCURATE),
                     "SummEval system-level Kendall")
        assert cells[3].endswith(": missed")  # the ship rule asks for more
        assert cells[4] == f"≥ {rule.system_kendall_min:.2f}: {verdict}"


def test_a_suite_never_run_reads_not_measured_with_its_targets(tmp_path):
    reports = copy_reports(tmp_path)
    (reports / landing.FAST / "all.json").unlink()
    table = model_cards.card_table(landing.Reports(reports), landing.FAST)
    cells = _row(table, "the paper's test sets and probes")
    assert cells[1] == "not measured"
    assert cells[3] == "≥ 90; ≥ 64.6; none below 50: not measured"
    assert "permuted news" not in table and "StoryCloze" not in table


def _suite_in_progress(reports, checkpoint: str, leave_out: tuple) -> dict:
    """Give ``checkpoint`` a paper suite in progress: the default's sets, relabelled, without those left out."""
    report = json.loads((reports / landing.FAST / "all.json").read_text(encoding="utf-8"))
    report["test_sets"] = [{**entry, "results": {checkpoint: entry["results"][landing.FAST]}}
                           for entry in report["test_sets"] if entry["name"] not in leave_out]
    report["partial"] = True
    (reports / checkpoint / "all.json").unlink(missing_ok=True)
    shutil.rmtree(reports / checkpoint / "in-progress", ignore_errors=True)
    (reports / checkpoint / "in-progress").mkdir()
    (reports / checkpoint / model_cards.IN_PROGRESS_SUITE).write_text(json.dumps(report), encoding="utf-8")
    return report


def test_a_suite_in_progress_shows_its_finished_sets_and_not_measured_for_the_rest(tmp_path):
    """A suite that takes longer than a machine lasts is committed set by set; its card and the paper-suite table
    show what is measured, "not measured" for the rest, and never the lowest of some probes as the lowest probe."""
    reports = copy_reports(tmp_path)
    report = _suite_in_progress(reports, landing.ACCURATE, leave_out=("NEWS-PERMUTED",))
    wsj = next(entry for entry in report["test_sets"] if entry["name"] == "WSJ-SAMPLE-PERMUTED")
    table = model_cards.card_table(landing.Reports(reports), landing.ACCURATE)
    cells = _row(table, "permuted WSJ sample")
    assert cells[1].startswith(f"{100 * wsj['results'][landing.ACCURATE]['accuracy']:.1f} [")
    assert cells[3] == "within 2 points of the fast tier: met" and cells[-1] == "`in-progress/all.json`"
    news = _row(table, "permuted news")
    assert news[1] == "not measured" and news[3] == "within 2 points of the fast tier: not measured"
    assert _row(table, "the lowest linguistic probe")[1] != "not measured"
    suite = model_cards.paper_suite_table(landing.Reports(reports))
    column = f"{tier_label(landing.ACCURATE)} (in progress)"  # "accurate (default)" since 0.9.0
    assert f"| {column} |" in suite and "14 of 15 sets so far" in " ".join(suite.split())
    header = [cell.strip() for cell in suite.splitlines()[0].strip("|").split("|")]
    assert _row(suite, "NEWS-PERMUTED")[header.index(column)] == ""

    _suite_in_progress(reports, landing.ACCURATE, leave_out=("PROBE-to_negation",))
    table = model_cards.card_table(landing.Reports(reports), landing.ACCURATE)
    assert _row(table, "the lowest linguistic probe")[1] == "not measured"
    _suite_in_progress(reports, landing.ACCURATE, leave_out=("NEWS-PERMUTED",))
    shutil.move(reports / landing.ACCURATE / model_cards.IN_PROGRESS_SUITE, reports / landing.ACCURATE / "all.json")
    with pytest.raises(LandingError, match="all.json: no test set NEWS-PERMUTED"):  # a finished suite has every set
        model_cards.card_table(landing.Reports(reports), landing.ACCURATE)


def test_a_missing_own_report_is_named_in_one_line(tmp_path, capsys):
    reports = copy_reports(tmp_path)
    (reports / model_cards.STUDENT / "human-dev.json").unlink()
    page = tmp_path / "MODELS.md"
    shutil.copy(MODELS, page)
    assert landing.main(["--check", "--page", str(page), "--reports", str(reports)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and error.endswith(f"{model_cards.STUDENT}/human-dev.json: report not found "
                                                     "(run the benchmark that writes it)")


def test_the_transition_model_card_reads_the_localisation_run():
    folder, name = model_cards.LOCALISATION_RUN
    report = json.loads((REPORTS / folder / name).read_text(encoding="utf-8"))
    alone = next(row for row in report["rows"] if row["name"] == "transition-model")["kinds"]
    table = model_cards.card_table(landing.Reports(REPORTS), model_cards.TRANSITION_MODEL)
    cells = _row(table, f"`{model_cards.TRANSITION_MODEL}` alone")
    assert [cell.split(" ")[0] for cell in cells[1:]] == [f"{100 * alone[kind]['top1']:.1f}"
                                                         for kind in ("intrusion", "moved", "swap")]


@pytest.mark.parametrize("checkpoint", [landing.FAST, model_cards.STUDENT])
def test_the_paper_suite_table_holds_each_checkpoints_all_json(checkpoint):
    report = json.loads((REPORTS / checkpoint / "all.json").read_text(encoding="utf-8"))
    news = next(entry for entry in report["test_sets"] if entry["name"] == "NEWS-PERMUTED")
    table = model_cards.paper_suite_table(landing.Reports(REPORTS))
    header = [cell.strip() for cell in table.splitlines()[0].strip("|").split("|")]
    label = dict(model_cards.SUITE_COLUMNS)[checkpoint]
    index = next(i for i, cell in enumerate(header) if cell.startswith(label))
    assert _row(table, "NEWS-PERMUTED")[index].startswith(f"{100 * news['results'][checkpoint]['accuracy']:.2f}")


def _other_cpu_run(reports, machine: str, cpu: str, ratio: float) -> None:
    """Add a ``cpu-speed/`` run of the accurate tier on ``cpu`` at this reference ratio (its 256-token set)."""
    source = next((reports / "cpu-speed").glob("*accurate*/speed*.json"))
    report = json.loads(source.read_text(encoding="utf-8"))
    report["cpu"] = cpu
    row = next(row for row in report["sets"] if row["target_tokens"] == 256)
    row["ratios"]["ours_speedup"] = ratio
    (reports / "cpu-speed" / machine).mkdir()
    (reports / "cpu-speed" / machine / source.name).write_text(json.dumps(report), encoding="utf-8")


def test_a_card_lists_each_other_cpu_and_its_target_reads_the_slowest(tmp_path):
    """A tier's own speed row comes from one machine; a user on another CPU must see that machine's number too,
    and the target may not read met while one CPU measured misses it."""
    reports = copy_reports(tmp_path)
    measured = sorted((reports / "cpu-speed").glob("*accurate*/speed*.json"))
    assert measured, "the accurate tier has a cpu-speed run"
    _other_cpu_run(reports, "zz-fast-cpu", "Some CPU (amx_bf16)", 12.5)
    cells = _row(model_cards.card_table(landing.Reports(reports), landing.ACCURATE), "… on the other CPUs measured")
    runs = cells[1].split("; ")
    assert len(runs) == len(measured) + 1 and runs[-1].endswith(", 12.50x (Some CPU (amx_bf16))")
    assert cells[3] == "≥ 8x the reference on each: missed"  # the AVX2 run's 4.1x
    listed = [*measured, reports / "cpu-speed" / "zz-fast-cpu" / measured[0].name]
    assert cells[-1] == "`" + ", ".join(f"../cpu-speed/{path.parent.name}/{path.name}" for path in listed) + "`"
    for path in measured:
        shutil.rmtree(path.parent)
    cells = _row(model_cards.card_table(landing.Reports(reports), landing.ACCURATE), "… on the other CPUs measured")
    assert cells[3] == "≥ 8x the reference on each: met"
