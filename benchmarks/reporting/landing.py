"""The numbers of the README's landing page, generated from the benchmark reports that measured them.

Every figure the README shows (the headline table and the known limits) is read here from
``benchmarks/reports/<checkpoint>/*.json`` and written between ``<!-- generated:NAME -->`` and
``<!-- /generated:NAME -->`` markers, so a number is typed once, by the run that measured it (issue 57: the same
interval was typed in five files and drifted). ``make tables`` rewrites the blocks; ``--check`` (and
tests/benchmarks/test_landing.py) fails when the page and the reports disagree.

Run from a checkout: ``python -m coherence_metric.benchmarks.reporting.landing [--check] [--page README.md]``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

#: The checkpoints the landing page speaks for: the default and the accurate tier (their immutable names).
DEFAULT = "cm-minilm-gpu-joint-2026.11"
ACCURATE = "cm-mpnet-lora-joint-2026.11"
#: The report whose rows hold the trivial baselines scored here (they do not depend on the checkpoint; the 0.2.0
#: default's run scored them).
BASELINES = "cm-minilm-pointwise-2026.11"
HUMAN_SETS = ("HANNA", "DELTASCORE", "FFCI")
HUMAN_SET_NAMES = {"HANNA": "HANNA", "DELTASCORE": "DeltaScore", "FFCI": "FFCI"}

_BLOCK = re.compile(r"(<!-- generated:(?P<name>[a-z0-9.-]+) -->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)",
                    re.DOTALL)
#: A model card's measured table: ``card-<checkpoint>``.
CARD_PREFIX = "card-"


class LandingError(ValueError):
    """A report the landing page needs is missing or lacks a row; the message names the file and the row."""


@dataclass(frozen=True)
class HeadlineRow:
    """One row of the headline table: what it is called, where its SummEval and human-judged numbers come from."""

    label: str
    summeval: Optional[tuple]  # (report folder, row name) in summeval-correlation.json
    human: Optional[tuple]  # (report folder, row name) in human-dev.json
    source: str
    bold: bool = False


HEADLINE_ROWS: Sequence[HeadlineRow] = (
    HeadlineRow("G-Eval-4 (GPT-4)", (DEFAULT, "G-Eval-4"), None, "published (G-Eval paper, Table 1)"),
    HeadlineRow("UniEval", (DEFAULT, "UniEval"), None, "published (G-Eval paper, Table 1)"),
    HeadlineRow("shuffle-trained RoBERTa-large classifier", (DEFAULT, "ccl-roberta-large-ours-cnndm (S&M)"), None,
                "Steen & Markert 2022, their scores recomputed here"),
    HeadlineRow("BARTScore", (DEFAULT, "bartscore (S&M)"), None, "Steen & Markert's scores recomputed"),
    HeadlineRow(f"**accurate** (`{ACCURATE}`, opt-in)", (ACCURATE, ACCURATE), (ACCURATE, ACCURATE),
                "this package", bold=True),
    HeadlineRow(f"**default** (`{DEFAULT}`)", (DEFAULT, DEFAULT), (DEFAULT, DEFAULT), "this package", bold=True),
    HeadlineRow("BERTScore", (DEFAULT, "BERTScore"), None, "published (G-Eval paper)"),
    HeadlineRow("minus repeated-trigram share (one line)", (BASELINES, "minus repeated trigrams"),
                (BASELINES, "minus repeated trigrams"), "trivial baseline"),
    HeadlineRow("word count", (BASELINES, "word count"), (BASELINES, "word count"), "trivial baseline"),
    HeadlineRow("sentence count", (BASELINES, "sentence count"), (BASELINES, "sentence count"), "trivial baseline"),
    HeadlineRow("random", (BASELINES, "random"), (BASELINES, "random"), "baseline"),
)


class Reports:
    """The JSON reports under one folder, read once each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._cache: Dict[Path, Any] = {}

    def load(self, checkpoint: str, name: str) -> Any:
        path = self.folder / checkpoint / name
        if path not in self._cache:
            try:
                self._cache[path] = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise LandingError(f"{path}: report not found (run the benchmark that writes it)") from None
            except json.JSONDecodeError as error:
                raise LandingError(f"{path}: not valid JSON ({error})") from None
        return self._cache[path]

    def row(self, checkpoint: str, report: str, name: str) -> Mapping[str, Any]:
        rows = self.load(checkpoint, report)["rows"]
        for row in rows:
            if row["name"] == name:
                return row
        raise LandingError(f"{self.folder / checkpoint / report}: no row named {name!r}")


def _number(value: Optional[float], digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _with_interval(cell: Optional[Mapping[str, Any]], digits: int = 3, scale: float = 1.0) -> str:
    if not cell or cell.get("value", cell.get("accuracy")) is None:
        return ""
    value = float(cell.get("value", cell.get("accuracy"))) * scale
    text = f"{value:.{digits}f}"
    interval = cell.get("interval")
    if interval and None not in interval:
        text += f" [{interval[0] * scale:.{digits}f}, {interval[1] * scale:.{digits}f}]"
    return text


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
            summary = _with_interval(correlations["summary"]["spearman"])
            system = _with_interval((correlations.get("system") or {}).get("kendall"))
        if spec.human:
            mean = reports.row(spec.human[0], "human-dev.json", spec.human[1])["mean"]["dev-report"]
            human = _with_interval(mean, digits=1, scale=100.0)
        cells = [spec.label, _bold(summary, spec.bold), _bold(system, spec.bold), _bold(human, spec.bold), spec.source]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _order_truncation(reports: Reports, checkpoint: str) -> Mapping[str, Any]:
    entries = reports.load(checkpoint, "summeval-order-truncation.json")
    for entry in entries:
        if entry["model"] == checkpoint or f"|model:{checkpoint}@" in entry.get("signature", ""):
            return entry
    raise LandingError(f"{reports.folder / checkpoint / 'summeval-order-truncation.json'}: no entry for {checkpoint}")


def _per_set(sets: Mapping[str, Any], key: str) -> str:
    """One dev-report number of human_dev's sets, ``HANNA / DeltaScore / FFCI``: a share in % or a count."""
    cells = [sets[name]["dev-report"][key] for name in HUMAN_SETS]
    return " / ".join(str(cell) if isinstance(cell, int) else f"{100 * cell:.1f}" for cell in cells)


def _human_sets(reports: Reports, checkpoint: str, row: str) -> Mapping[str, Any]:
    return reports.row(checkpoint, "human-dev.json", row)["sets"]


def _test_set(reports: Reports, checkpoint: str, name: str) -> Mapping[str, Any]:
    for entry in reports.load(checkpoint, "all.json")["test_sets"]:
        if entry["name"] == name:
            return entry["results"][checkpoint]
    raise LandingError(f"{reports.folder / checkpoint / 'all.json'}: no test set {name}")


def known_limits(reports: Reports, docs: str = "docs/") -> str:
    """The limits a user should know before relying on the score, each with the number that measured it; ``docs``
    is the path from the page to the docs folder (``docs/`` from the README, empty from a docs page)."""
    def system_tau(checkpoint: str, row: str) -> str:
        correlations = reports.row(checkpoint, "summeval-correlation.json", row)["correlations"]
        return _number(correlations["system"]["kendall"]["value"])

    default_order = _order_truncation(reports, DEFAULT)
    accurate_order = _order_truncation(reports, ACCURATE)
    default_sets = _human_sets(reports, DEFAULT, DEFAULT)
    matched = _per_set(default_sets, "length_matched_accuracy")
    matched_accurate = _per_set(_human_sets(reports, ACCURATE, ACCURATE), "length_matched_accuracy")
    all_pairs = _per_set(default_sets, "accuracy")
    counts = _per_set(default_sets, "n_length_matched")
    names = " / ".join(HUMAN_SET_NAMES[name] for name in HUMAN_SETS)
    storycloze = _test_set(reports, DEFAULT, "STORYCLOZE")
    items = [
        f"**Ranking systems.** Its ranking of SummEval's 16 systems agrees with the experts' at Kendall τ "
        f"{system_tau(DEFAULT, DEFAULT)} (accurate tier: {system_tau(ACCURATE, ACCURATE)}), against "
        f"{system_tau(DEFAULT, 'bartscore (S&M)')} for BARTScore and "
        f"{system_tau(DEFAULT, 'ccl-roberta-large-ours-cnndm (S&M)')} for a shuffle-trained RoBERTa-large; with 16 "
        f"systems the intervals are wide (table above).",
        f"**Stopping early scores well.** A summary's first sentence alone scores above the whole summary on "
        f"{_percent(default_order['first_beats_whole'])} of SummEval's summaries "
        f"({_percent(accurate_order['first_beats_whole'])} with the accurate tier): a high score does not say "
        f"that an output is complete.",
        f"**Length.** On human-judged pairs whose lengths differ by at most 10% ({counts} pairs on {names}) the "
        f"default agrees with people {matched}% of the time, against {all_pairs}% on all their pairs (accurate "
        f"tier: {matched_accurate}%): part of its agreement is length. `compare` warns when systems' lengths differ.",
        f"**Own shuffles.** It ranks a SummEval summary above a shuffle of itself "
        f"{_percent(default_order['own_shuffle'])} of the time ({_percent(accurate_order['own_shuffle'])} accurate), "
        f"and picks the right StoryCloze ending at chance ({100 * storycloze['accuracy']:.1f}%).",
        f"**Format and scale.** A chat assistant's opening and closing lines lower a score about as much as "
        f"reversing the sentences does, and the same content as a Markdown list scores higher (one measured example: "
        f"[on LLM outputs]({docs}llm-outputs.md)): compare outputs of one format. Scores compare texts scored with the "
        "same signature and have no absolute meaning.",
    ]
    return "".join(textwrap.fill(item, width=118, initial_indent="- ", subsequent_indent="  ",
                                 break_long_words=False, break_on_hyphens=False) + "\n" for item in items)


def _speed_report(reports: Reports, checkpoint: str) -> Optional[Mapping[str, Any]]:
    """The checkpoint's speed run: ``speed.json``, else the first ``speed_limit*.json``; None when there is none."""
    folder = reports.folder / checkpoint
    candidates = [folder / "speed.json", *sorted(folder.glob("speed_limit*.json"))]
    for path in candidates:
        if path.is_file():
            return reports.load(checkpoint, path.name)
    return None


def model_card_table(reports: Reports, checkpoint: str) -> str:
    """A model card's numbers measured once after the choice, each with the report it comes from."""
    summeval = reports.row(checkpoint, "summeval-correlation.json", checkpoint)
    correlations = summeval["correlations"]
    human = reports.row(checkpoint, "human-dev.json", checkpoint)
    sets = human["sets"]
    words = _human_sets(reports, BASELINES, "word count")
    order = _order_truncation(reports, checkpoint)
    names = " / ".join(HUMAN_SET_NAMES[name] for name in HUMAN_SETS)

    rows = [
        ("SummEval summary-level Spearman ρ [95% CI]", _with_interval(correlations["summary"]["spearman"]),
         "summeval-correlation.json"),
        ("SummEval summary-level Kendall τ-b", _with_interval(correlations["summary"]["kendall"]),
         "summeval-correlation.json"),
        ("SummEval system-level Kendall τ (16 systems)", _with_interval(correlations["system"]["kendall"]),
         "summeval-correlation.json"),
        ("SummEval same-article pairs, accuracy %", f"{100 * summeval['pairwise']['accuracy']:.1f}",
         "summeval-correlation.json"),
        ("human-judged pairs, dev-report mean % [95% CI]", _with_interval(human["mean"]["dev-report"], 1, 100.0),
         "human-dev.json"),
        (f"… per set ({names})", _per_set(sets, "accuracy"), "human-dev.json"),
        (f"… length-matched pairs ({names}); word count", f"{_per_set(sets, 'length_matched_accuracy')}; "
         f"{_per_set(words, 'length_matched_accuracy')}", "human-dev.json"),
        (f"SummEval summaries of 3+ sentences ({order['n']}): above a shuffle of itself %",
         f"{100 * order['own_shuffle']:.1f}", "summeval-order-truncation.json"),
        ("… first sentence alone above the whole %; mean gap (sd)",
         f"{100 * order['first_beats_whole']:.1f}; {order['first_minus_whole_sd']:+.2f}",
         "summeval-order-truncation.json"),
    ]
    speed = _speed_report(reports, checkpoint)
    if speed is not None:
        row = next((entry for entry in speed["sets"] if entry.get("target_tokens") == 256), speed["sets"][0])
        run = row["runs"]["ours"]["docs_per_second"]
        ratio = row.get("ratios", {}).get("ours_speedup")
        text = f"{run:.2f} in {speed['model']['dtype']} ({speed.get('cpu') or speed['device']})"
        if ratio is not None:
            text += f"; {ratio:.1f}x the paper-faithful reference"
        rows.append((f"speed, texts/s at {row['name']}", text, Path(speed["outputs"]["json"]).name
                     if speed.get("outputs") else "speed.json"))
    lines = ["| measured once, after the choice | value | report |", "|---|---:|---|"]
    lines += [f"| {label} | {value} | `{report}` |" for label, value, report in rows]
    return "\n".join(lines) + "\n"


BLOCKS: Mapping[str, Callable[[Reports, str], str]] = {
    "headline-table": lambda reports, docs: headline_table(reports),
    "known-limits": known_limits,
}


def render(page: str, reports: Reports, docs: str = "docs/") -> str:
    """``page`` with every generated block rewritten from the reports; an unknown block name is an error. ``docs``
    is the path from the page to the docs folder, for the blocks' links."""
    def replace(match: "re.Match[str]") -> str:
        name = match.group("name")
        if name.startswith(CARD_PREFIX):
            return match.group(1) + model_card_table(reports, name[len(CARD_PREFIX):]) + match.group(4)
        if name not in BLOCKS:
            raise LandingError(f"unknown generated block {name!r} (known: {', '.join(BLOCKS)})")
        return match.group(1) + BLOCKS[name](reports, docs) + match.group(4)

    return _BLOCK.sub(replace, page)


#: The pages with generated blocks, relative to the checkout.
PAGES = (Path("README.md"), Path("docs/index.md"), Path("MODELS.md"))


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
                page.write_text(new, encoding="utf-8")
    if arguments.check and stale:
        print(f"landing: {', '.join(map(str, stale))} differ from the reports; run `make tables`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
