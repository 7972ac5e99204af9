"""Render a DiscoEval result: a Markdown table beside the published rows, a JSON file and a PNG bar chart.

Every rendering shows the flags that make our numbers differ in kind from the published ones: tasks trained on
valid because upstream lacks their train file, ``limit`` subsets, and groups that did not run. matplotlib is
imported only when a chart is drawn, through its object API (no pyplot, no global backend switch).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ..reporting.files import report_stem
from ..reporting.files import write_reports as write_reports_files
from .published import BERT_LARGE_PER_DOMAIN, PUBLISHED_ROWS, PublishedRow
from .tasks import GROUPS

TRAINED_ON_VALID_MARK = "†"
CHART_ROWS = (("BERT-Base", "Chen et al. 2019, Table 2"), ("BERT-Base", "Iter et al. 2020 (CONPONO), Table 1"),
              ("CONPONO (k=2)", "Iter et al. 2020 (CONPONO), Table 1"))
"""Published rows drawn beside ours in the chart (the table has them all)."""


def render_markdown(result: Mapping[str, Any], published: Sequence[PublishedRow] = PUBLISHED_ROWS) -> str:
    """Render the result as Markdown: group table with the published rows, per-task table, flags and caveats.

    Args:
        result: a dict returned by :func:`~coherence_metric.benchmarks.discoeval.runner.run_discoeval` (or read from its
        JSON).
        published: published rows to print beside ours.

    Returns:
        The Markdown text.
    """
    encoder = result["encoder"]
    flags = result["flags"]
    trained_on_valid = set(flags.get("trained_on_valid", []))
    lines = [f"## DiscoEval: {encoder['name']}", ""]
    lines.append(f"Encoder signature `{encoder['signature']}`; seed {result['seed']}; "
                 f"{_limit_text(result.get('limit'))}; {result['seconds']:.0f} s{_resumed_text(result)} "
                 f"(cache: {result['cache']['hits']} hits, {result['cache']['misses']} misses).")
    lines += ["", "| Model | Source | " + " | ".join(GROUPS) + " | avg |",
              "|---|---|" + "---:|" * (len(GROUPS) + 1)]
    lines.append(f"| **{escape_cell(encoder['name'])}** | this run | " + " | ".join(group_cells(result)) + " |")
    lines += published_lines(published)
    lines += ["", *_notes(result, trained_on_valid), "", "### Per task", ""]
    lines += ["| Task | Test acc. | Valid acc. | Trained on valid | n train | n valid | n test | Chosen | "
              "BERT-Large (Chen et al. Table 5) |", "|---|---:|---:|---|---:|---:|---:|---|---:|"]
    for name, row in result["tasks"].items():
        chosen = ", ".join(f"{key}={_format_setting(value)}" for key, value in row["chosen"].items())
        reference = BERT_LARGE_PER_DOMAIN.get(name)
        lines.append(
            f"| {name} | {row['test_accuracy']:.2f} | {row['valid_accuracy']:.2f} | "
            f"{'yes ' + TRAINED_ON_VALID_MARK if row['trained_on_valid'] else 'no'} | "
            f"{'-' if row['n_train'] is None else row['n_train']} | {row['n_valid']} | {row['n_test']} | {chosen} | "
            f"{'-' if reference is None else f'{reference:.1f}'} |")
    return "\n".join(lines) + "\n"


def group_cells(result: Mapping[str, Any]) -> List[str]:
    """A run's seven group scores and avg as table cells, marked where a group's classifier was trained on valid."""
    marked_groups = trained_on_valid_groups(result)
    cells = [_cell(result["groups"].get(group), TRAINED_ON_VALID_MARK if group in marked_groups else "")
             for group in GROUPS]
    cells.append(_cell(result["groups"].get("avg"), TRAINED_ON_VALID_MARK if marked_groups else ""))
    return cells


def trained_on_valid_groups(result: Mapping[str, Any]) -> set:
    """The groups with a task whose classifier was trained on the valid split (no train file upstream)."""
    return {result["tasks"][name]["group"] for name in result["flags"].get("trained_on_valid", [])}


def published_lines(published: Sequence[PublishedRow]) -> List[str]:
    """Table rows (Model | Source | groups | avg) for published results, as printed in their papers (one decimal,
    or two where the paper gives two: rounding 43.55 again would print a number the paper does not)."""
    return [f"| {escape_cell(row.model)} | {row.source} | "
            + " | ".join(_as_published(value) for value in (*row.scores, row.avg)) + " |" for row in published]


def _as_published(value: float) -> str:
    return f"{value:.1f}" if round(value, 1) == value else f"{value:.2f}"


def escape_cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|")


def _notes(result: Mapping[str, Any], trained_on_valid: set) -> List[str]:
    notes: List[str] = []
    if trained_on_valid:
        notes.append(f"{TRAINED_ON_VALID_MARK} Includes tasks with no train file upstream "
                     f"({', '.join(sorted(trained_on_valid))}): their classifier is trained on the valid split "
                     "(hyper-parameter chosen on a seeded 20% of it, then refit on all of it); test is untouched. "
                     "Published numbers had the train files.")
    if result.get("limit") is not None:
        notes.append(f"Smoke run: at most {result['limit']} rows per split; not comparable with published numbers.")
    incomplete = result["flags"].get("incomplete_groups", [])
    if incomplete:
        notes.append(f"Not run (or not all domains): {', '.join(incomplete)}; avg needs all seven groups.")
    notes.append("Group scores average the group's domains; avg is the mean of the seven groups. Chen et al.'s "
                 "avg column is printed as published (for their own models it is not the mean of the seven "
                 "columns), and the two papers' BERT rows differ although CONPONO quotes Chen et al.")
    return notes


def plot_groups(result: Mapping[str, Any], path: Union[str, Path]) -> Path:
    """Draw our group scores beside a few published rows as a grouped bar chart (PNG).

    Args:
        result: a run result.
        path: the PNG file to write.

    Returns:
        The path written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = list(GROUPS) + ["avg"]
    series: List[tuple] = [(result["encoder"]["name"], [result["groups"].get(c) for c in columns])]
    for model, source in CHART_ROWS:
        row = next((r for r in PUBLISHED_ROWS if r.model == model and r.source == source), None)
        if row is not None:
            series.append((f"{model} ({source.split(',')[0].split(' (')[0]})", list(row.scores) + [row.avg]))
    marked = trained_on_valid_groups(result)
    figure = Figure(figsize=(11, 4.5), dpi=120)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    width = 0.8 / len(series)
    for number, (label, values) in enumerate(series):
        positions = [i + (number - (len(series) - 1) / 2) * width for i in range(len(columns))]
        heights = [0.0 if value is None else value for value in values]
        axes.bar(positions, heights, width=width, label=label)
    axes.set_xticks(range(len(columns)))
    axes.set_xticklabels([c + (TRAINED_ON_VALID_MARK if c in marked else "") for c in columns])
    axes.set_ylabel("test accuracy (%)")
    title = f"DiscoEval: {result['encoder']['name']}"
    if result["flags"].get("trained_on_valid"):
        title += f"  ({TRAINED_ON_VALID_MARK} {len(result['flags']['trained_on_valid'])} tasks trained on valid)"
    if result.get("limit") is not None:
        title += f"  [limit {result['limit']}]"
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8, loc="upper center", ncol=len(series), frameon=False)
    axes.set_ylim(0, 100)
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    return path


def write_reports(result: Mapping[str, Any], out_dir: Union[str, Path]) -> Dict[str, str]:
    """Write ``discoeval_<encoder>.json``, ``.md`` and ``.png`` into ``out_dir``.

    The chart is skipped with a warning when matplotlib is not installed (it is in the ``bench`` extra).

    Args:
        result: a run result.
        out_dir: output folder (created if needed).

    Returns:
        Paths written, keyed ``json``, ``markdown`` and (if drawn) ``png``.
    """
    stem = report_stem("discoeval_" + slugify(result["encoder"]["name"]), result.get("limit"))
    return write_reports_files(result, out_dir, stem, render_markdown, plot_groups)


def slugify(text: str) -> str:
    """File-name-safe form of an encoder name (``all-MiniLM-L6-v2 [layer=-1, pool=cls]`` -> ``all-MiniLM...``)."""
    return re.sub(r"[^A-Za-z0-9.]+", "_", text).strip("_")[:80] or "encoder"


def _cell(value: Optional[float], mark: str = "") -> str:
    return "-" if value is None else f"{value:.1f}{mark}"


def _format_setting(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _resumed_text(result: Mapping[str, Any]) -> str:
    resumed = result.get("resumed") or {}
    if not resumed.get("tasks"):
        return ""
    return (f", plus {resumed['seconds']:.0f} s in {len(resumed['tasks'])} task(s) resumed from an interrupted run "
            f"({', '.join(resumed['tasks'])})")


def _limit_text(limit: Optional[int]) -> str:
    return "full splits" if limit is None else f"limit {limit} rows per split"

