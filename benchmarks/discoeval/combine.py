"""One DiscoEval table from several runs: a row per trained encoder, then the papers' rows it is compared with.

Each encoder is benchmarked on its own (``coherence-metric benchmark discoeval --encoder X --output DIR``);
a training objective's results (CONPONO k=1 vs k=2, the DiscoEval criteria rows, the multi-view views) are
read side by side with the published rows of the same shape. Runs are combined only when they were
evaluated alike (same seed and row limit), so every row is measured on the same DiscoEval items.

    python -m coherence_metric.benchmarks.discoeval.combine "CONPONO k=2 (ours)=runs/benchmarks/a/discoeval_x.json" \\
        "MiniLM (no training)=runs/benchmarks/b/discoeval_y.json" --published "CONPONO (k=2)" --published BERT-Base
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from coherence_metric.errors import CoherenceMetricError, InputError
from coherence_metric.toolkit import parse_json

from ..reporting.combine import check_comparable_runs, parse_labelled_report
from .published import ALL_PUBLISHED_ROWS, PUBLISHED_ROWS, PublishedRow
from .reporting import TRAINED_ON_VALID_MARK, escape_cell, group_cells, published_lines
from .tasks import GROUPS


def read_discoeval_run(path: Path) -> dict[str, Any]:
    """Read one DiscoEval report (the ``.json`` that ``benchmark discoeval`` writes), or a one-line error."""
    try:
        result = parse_json(Path(path).read_bytes(), f"DiscoEval report {path}")
    except FileNotFoundError:
        raise InputError(f"DiscoEval report not found: {path}") from None
    except OSError as error:
        raise InputError(f"DiscoEval report {path}: cannot read it ({error.strerror or error})") from None
    if not isinstance(result, dict) or result.get("suite") != "discoeval" or "groups" not in result:
        raise InputError(f"{path} is not a DiscoEval report: was it written by `benchmark discoeval`?")
    return result


def select_published(models: Optional[Sequence[str]]) -> List[PublishedRow]:
    """The published rows named (every source that has the model), in report order; the main tables' rows (not
    the CONPONO ablations) for None."""
    if models is None:
        return list(PUBLISHED_ROWS)
    known = {row.model for row in ALL_PUBLISHED_ROWS}
    unknown = [model for model in models if model not in known]
    if unknown:
        raise InputError(f"no published DiscoEval row named {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(sorted(known))}")
    return [row for row in ALL_PUBLISHED_ROWS if row.model in models]


def render_combined_discoeval(runs: Sequence[Tuple[str, Mapping[str, Any]]],
                              published: Sequence[PublishedRow]) -> str:
    """Markdown: our rows (labelled), the published rows, each run's encoder signature and the caveats.

    Raises:
        InputError: no runs, a repeated label, or runs evaluated with a different seed or row limit.
    """
    check_comparable_runs(runs, part="row", done="evaluated", items="items")
    first = runs[0][1]
    sample = "full splits" if first.get("limit") is None else f"at most {first['limit']} rows per split"
    lines = [f"DiscoEval test accuracy (%); seed {first.get('seed')}; {sample}.", "",
             "| Model | Source | " + " | ".join(GROUPS) + " | avg |", "|---|---|" + "---:|" * (len(GROUPS) + 1)]
    lines += [f"| **{escape_cell(label)}** | this project | " + " | ".join(group_cells(result)) + " |"
              for label, result in runs]
    lines += published_lines(published)
    lines += ["", "Encoders:"]
    lines += [f"- {label}: {result['encoder']['name']} (`{result['encoder']['signature']}`)" for label, result in runs]
    lines.append("")
    trained_on_valid = sorted({name for _, result in runs for name in result["flags"].get("trained_on_valid", [])})
    if trained_on_valid:
        lines.append(f"- {TRAINED_ON_VALID_MARK} Groups with tasks that have no train file upstream "
                     f"({', '.join(trained_on_valid)}): their classifier is trained on the valid split; the "
                     "published numbers had the train files.")
    incomplete = [label for label, result in runs if result["flags"].get("incomplete_groups")]
    if incomplete:
        lines.append(f"- Not every group ran for {', '.join(incomplete)} (their avg is missing).")
    if first.get("limit") is not None:
        lines.append("- Smoke runs (row limit): not comparable with the published numbers.")
    lines.append("- Our avg is the mean of the seven groups; the published avg is printed as in its paper.")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the combined table; one-line errors (exit status 2) for bad arguments or reports."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", metavar="LABEL=REPORT.json",
                        help="a row label and the DiscoEval report (.json) that fills it")
    parser.add_argument("--published", action="append", metavar="MODEL",
                        help="a published row to print (repeatable; e.g. 'CONPONO (k=2)', BERT-Base); default: all")
    args = parser.parse_args(argv)
    try:
        runs = [(label, read_discoeval_run(path)) for label, path in map(parse_labelled_report, args.rows)]
        print(render_combined_discoeval(runs, select_published(args.published)), end="")
    except CoherenceMetricError as error:
        parser.exit(2, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
