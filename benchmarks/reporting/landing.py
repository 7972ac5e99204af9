"""The numbers of the README's landing page and of MODELS.md, generated from the benchmark reports that measured them.

Every figure the README shows (the headline table and the known limits), every number of MODELS.md's model cards and
of MODEL_HISTORY.md, and the measured tables of docs/benchmarks.md, docs/explain.md and docs/training.md are read
from ``benchmarks/reports/**/*.json`` (and the dev reports under ``training/ablation/reports/``) and written between
``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->`` markers, so a number is typed once, by the run that
measured it (a number typed into several files drifts from its report); every target beside them comes from
``targets.toml``. The cards' blocks are ``model_cards.py``'s, the history's ``model_history.py``'s, the docs pages'
``benchmark_tables.py``'s, ``explain_tables.py``'s and ``training_tables.py``'s. ``make tables`` rewrites the blocks;
``--check`` (and tests/benchmarks/reporting/test_landing.py) fails when a page and the reports disagree.

Run from a checkout: ``python -m coherence_metric.benchmarks.reporting.landing [--check] [--page README.md]``.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Sequence

from . import benchmark_tables, cpu_speed_table, explain_tables, training_tables
from .files import write_script_output
from .gpu_speed_markdown import render_gpu_speed_markdown, render_host_ceiling_markdown
from .model_cards import CARD_PREFIX, card_table, paper_suite_table
from .model_history import history_table
from .report_reader import (
    ACCURATE,
    BASELINES,
    DEFAULT_TIER,
    FAST,
    HUMAN_SET_NAMES,
    HUMAN_SETS,
    TIER_NAMES,
    LandingError,
    Reports,
    human_sets,
    number,
    order_truncation,
    per_set,
    percent,
    suite_result,
    with_interval,
)

_BLOCK = re.compile(r"(<!-- generated:(?P<name>[a-z0-9.-]+) -->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)",
                    re.DOTALL)


@dataclass(frozen=True)
class HeadlineRow:
    """One row of the headline table: what it is called, where its SummEval and human-judged numbers come from."""

    label: str
    summeval: Optional[tuple]  # (report folder, row name) in summeval-correlation.json
    human: Optional[tuple]  # (report folder, row name) in human-dev.json
    source: str
    bold: bool = False


#: What the headline table adds to a tier's name when it is not the default.
OPT_IN_NOTES: Mapping[str, str] = {ACCURATE: "opt-in", FAST: "opt-in, for bulk CPU scoring"}


def _tier_row(checkpoint: str) -> HeadlineRow:
    """A tier's own row, named by what selects it: ``default`` (and the tier's own alias) for the tier ``default``
    names, the tier's alias and why one would opt in for the other one."""
    name = TIER_NAMES[checkpoint]
    label = (f"**default** (`{checkpoint}`, also `{name}`)" if checkpoint == DEFAULT_TIER
             else f"**{name}** (`{checkpoint}`, {OPT_IN_NOTES[checkpoint]})")
    return HeadlineRow(label, (checkpoint, checkpoint), (checkpoint, checkpoint), "this package", bold=True)


#: The published and recomputed scorers' rows read the fast tier's report (every tier's report holds them).
HEADLINE_ROWS: Sequence[HeadlineRow] = (
    HeadlineRow("G-Eval-4 (GPT-4)", (FAST, "G-Eval-4"), None, "published (G-Eval paper, Table 1)"),
    HeadlineRow("UniEval", (FAST, "UniEval"), None, "published (G-Eval paper, Table 1)"),
    HeadlineRow("shuffle-trained RoBERTa-large classifier", (FAST, "ccl-roberta-large-ours-cnndm (S&M)"), None,
                "Steen & Markert 2022, their scores recomputed here"),
    HeadlineRow("BARTScore", (FAST, "bartscore (S&M)"), None, "Steen & Markert's scores recomputed"),
    _tier_row(ACCURATE),
    _tier_row(FAST),
    HeadlineRow("BERTScore", (FAST, "BERTScore"), None, "published (G-Eval paper)"),
    HeadlineRow("minus repeated-trigram share (one line)", (BASELINES, "minus repeated trigrams"),
                (BASELINES, "minus repeated trigrams"), "trivial baseline"),
    HeadlineRow("word count", (BASELINES, "word count"), (BASELINES, "word count"), "trivial baseline"),
    HeadlineRow("sentence count", (BASELINES, "sentence count"), (BASELINES, "sentence count"), "trivial baseline"),
    HeadlineRow("random", (BASELINES, "random"), (BASELINES, "random"), "baseline"),
)


def _bold(text: str, bold: bool) -> str:
    return f"**{text}**" if bold and text else text


def headline_table(reports: Reports) -> str:
    """The landing page's one table: SummEval summary- and system-level agreement and human-judged pairs."""
    lines = [
        "| scorer | SummEval summary-level ρ [95% CI] | SummEval system-level τ [95% CI] "
        "| human-judged pairs, dev-report % [95% CI] | source |",
        "|---|---:|---:|---:|---|",
    ]
    for spec in HEADLINE_ROWS:
        summary = system = human = ""
        if spec.summeval:
            correlations = reports.row(spec.summeval[0], "summeval-correlation.json", spec.summeval[1])["correlations"]
            summary = with_interval(correlations["summary"]["spearman"])
            system = with_interval((correlations.get("system") or {}).get("kendall"))
        if spec.human:
            mean = reports.row(spec.human[0], "human-dev.json", spec.human[1])["mean"]["dev-report"]
            human = with_interval(mean, digits=1, scale=100.0)
        cells = [spec.label, _bold(summary, spec.bold), _bold(system, spec.bold), _bold(human, spec.bold), spec.source]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def known_limits(reports: Reports, docs: str = "docs/") -> str:
    """The limits a user should know before relying on the score, each with the number that measured it; ``docs``
    is the path from the page to the docs folder (``docs/`` from the README, empty from a docs page)."""
    def system_tau(checkpoint: str, row: str) -> str:
        correlations = reports.row(checkpoint, "summeval-correlation.json", row)["correlations"]
        return number(correlations["system"]["kendall"]["value"])

    default, other = DEFAULT_TIER, next(tier for tier in TIER_NAMES if tier != DEFAULT_TIER)
    other_name = TIER_NAMES[other]
    default_order = order_truncation(reports, default)
    other_order = order_truncation(reports, other)
    default_sets = human_sets(reports, default, default)
    matched = per_set(default_sets, "length_matched_accuracy")
    matched_other = per_set(human_sets(reports, other, other), "length_matched_accuracy")
    all_pairs = per_set(default_sets, "accuracy")
    counts = per_set(default_sets, "n_length_matched")
    names = " / ".join(HUMAN_SET_NAMES[name] for name in HUMAN_SETS)
    storycloze = suite_result(reports, default, "STORYCLOZE")
    items = [
        f"**Ranking systems.** Its ranking of SummEval's 16 systems agrees with the experts' at Kendall τ "
        f"{system_tau(default, default)} ({other_name} tier: {system_tau(other, other)}), against "
        f"{system_tau(FAST, 'bartscore (S&M)')} for BARTScore and "
        f"{system_tau(FAST, 'ccl-roberta-large-ours-cnndm (S&M)')} for a shuffle-trained RoBERTa-large; with 16 "
        f"systems the intervals are wide (table above).",
        f"**Stopping early scores well.** A summary's first sentence alone scores above the whole summary on "
        f"{percent(default_order['first_beats_whole'])} of SummEval's summaries "
        f"({percent(other_order['first_beats_whole'])} with the {other_name} tier): a high score does not say "
        f"that an output is complete.",
        f"**Length.** On human-judged pairs whose lengths differ by at most 10% ({counts} pairs on {names}) the "
        f"default agrees with people {matched}% of the time, against {all_pairs}% on all their pairs ({other_name} "
        f"tier: {matched_other}%): part of its agreement is length. `compare` warns when systems' lengths differ.",
        f"**Own shuffles.** It ranks a SummEval summary above a shuffle of itself "
        f"{percent(default_order['own_shuffle'])} of the time ({percent(other_order['own_shuffle'])} {other_name}), "
        f"and picks the right StoryCloze ending {100 * storycloze['accuracy']:.1f}% of the time (chance: 50%).",
        f"**Format and scale.** A chat assistant's opening and closing lines, or the same content as a Markdown "
        f"list, move a score by a good part of what reversing the sentences costs, and not the same way in both "
        f"tiers (one measured example: [on LLM outputs]({docs}llm-outputs.md)): compare outputs of one format. "
        "Scores compare texts scored with the same signature and have no absolute meaning.",
    ]
    return "".join(textwrap.fill(item, width=118, initial_indent="- ", subsequent_indent="  ",
                                 break_long_words=False, break_on_hyphens=False) + "\n" for item in items)


#: The folder of benchmarks/reports that holds the GPU speed reports.
GPU_SPEED = "gpu-speed"
#: The folder of benchmarks/reports that holds the host-ceiling reports measured on a machine without a GPU.
HOST_CEILING = "host-ceiling"


def _newest_report_table(reports: Reports, folder: str, command: str, render: Callable[[Any], str]) -> str:
    """``render`` of the newest report of ``folder`` (by file name, ``<machine>-<date>.json``); none is one line
    naming the folder and the ``command`` that writes one."""
    found = sorted((reports.folder / folder).glob("*.json"))
    if not found:
        raise LandingError(f"{reports.folder / folder}: no report (run {command})")
    return render(reports.load(folder, found[-1].name))


def gpu_speed_table(reports: Reports) -> str:
    """The speed-on-a-GPU table of docs/benchmarks.md, from the newest report of ``gpu-speed/``."""
    return _newest_report_table(reports, GPU_SPEED, "python -m coherence_metric.benchmarks.speed.gpu_speed on a GPU",
                                render_gpu_speed_markdown)


def host_ceiling_table(reports: Reports) -> str:
    """The host-ceiling table of docs/benchmarks.md, from the newest report of ``host-ceiling/``."""
    return _newest_report_table(reports, HOST_CEILING,
                                "python -m coherence_metric.benchmarks.speed.gpu_speed --host-only --device cpu",
                                render_host_ceiling_markdown)


def _ignoring_docs(table: Callable[[Reports], str]) -> Callable[[Reports, str], str]:
    """A block that links nowhere, so the path from its page to the docs folder does not matter."""
    return lambda reports, docs: table(reports)


BLOCKS: Mapping[str, Callable[[Reports, str], str]] = {
    "headline-table": lambda reports, docs: headline_table(reports),
    "known-limits": known_limits,
    "paper-suite": lambda reports, docs: paper_suite_table(reports),
    "cpu-speed": lambda reports, docs: cpu_speed_table.table(reports),
    "gpu-speed": lambda reports, docs: gpu_speed_table(reports),
    "host-ceiling": lambda reports, docs: host_ceiling_table(reports),
    "history": lambda reports, docs: history_table(reports),
    **{name: _ignoring_docs(table) for name, table in {**benchmark_tables.BLOCKS, **explain_tables.BLOCKS,
                                                               **training_tables.BLOCKS}.items()},
}


def render(page: str, reports: Reports, docs: str = "docs/") -> str:
    """``page`` with every generated block rewritten from the reports; an unknown block name is an error. ``docs``
    is the path from the page to the docs folder, for the blocks' links."""
    def replace(match: "re.Match[str]") -> str:
        name = match.group("name")
        if name.startswith(CARD_PREFIX):
            return match.group(1) + card_table(reports, name[len(CARD_PREFIX):]) + match.group(4)
        if name not in BLOCKS:
            raise LandingError(f"unknown generated block {name!r} (known: {', '.join(BLOCKS)})")
        return match.group(1) + BLOCKS[name](reports, docs) + match.group(4)

    return _BLOCK.sub(replace, page)


#: The pages with generated blocks, relative to the checkout.
PAGES = (Path("README.md"), Path("docs/index.md"), Path("MODELS.md"), Path("MODEL_HISTORY.md"),
         Path("docs/benchmarks.md"), Path("docs/explain.md"), Path("docs/llm-outputs.md"),
         Path("docs/training.md"), Path("docs/reading-scores.md"))


def docs_prefix(page: Path) -> str:
    """The path from ``page`` to the docs folder: empty for a page inside ``docs/``, ``docs/`` elsewhere."""
    return "" if "docs" in page.parts[:-1] else "docs/"


def block_names(page: str) -> List[str]:
    """The names of the generated blocks of ``page``, in order."""
    return [match.group("name") for match in _BLOCK.finditer(page)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", type=Path, action="append",
                        help=f"page to rewrite (default: {' and '.join(map(str, PAGES))})")
    parser.add_argument("--reports", type=Path, default=Path("benchmarks/reports"))
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page differs")
    arguments = parser.parse_args(argv)
    reports = Reports(arguments.reports)
    stale = []
    for page in arguments.page or PAGES:
        try:
            text = page.read_text(encoding="utf-8")
            new = render(text, reports, docs_prefix(page))
        except (OSError, LandingError) as error:
            print(f"landing: {error}", file=sys.stderr)
            return 2
        if new != text:
            stale.append(page)
            if not arguments.check:
                write_script_output(page, new, "the page")
    if arguments.check and stale:
        print(f"landing: {', '.join(map(str, stale))} differ from the reports; run `make tables`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
