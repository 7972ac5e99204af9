"""How the command line prints comparisons for people: the per-system table as Markdown or LaTeX.

p-values are written by :mod:`coherence_metric.statistics.p_values` (the HTML report writes them the same way). The
Markdown and LaTeX tables are what a paper's results section needs: each system's score with its interval, and every
pair's difference with its interval and p-values.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

from ..statistics.p_values import floor_note, format_p_value
from ..statistics.significance import bootstrap_p_note
from .labels import escape_label

TABLE_FORMATS = ("markdown", "latex")


def left_out_line(count: int, total: int, on_empty: str) -> str:
    """The last line of a paired comparison that left out inputs with an empty text (``--on-empty``)."""
    return (f"left out: {count} of {total} inputs, each with an empty text (--on-empty {on_empty}); the numbers "
            "above are over the rest")


def _cell_interval(low: float, high: float, signed: bool = False) -> str:
    return f"[{low:+.4f}, {high:+.4f}]" if signed else f"[{low:.4f}, {high:.4f}]"


def markdown_cell(text: str) -> str:
    """``text`` safe inside one Markdown table cell: line breaks, tabs and backslashes written as ``\\n``, ``\\t``,
    ``\\\\`` (as the text and TSV outputs show labels) and pipes as ``\\|``. A file named
    ``x<NEWLINE>| injected | 9.9999 |`` added a row to the table; a pipe alone split its cell in two."""
    return escape_label(text).replace("|", "\\|")


_MARKDOWN_MARKUP = re.compile(r"[<>*_`\[\]]")


def markdown_label(text: str) -> str:
    """A system name or text label as one Markdown cell that shows as written: :func:`markdown_cell`, and every
    character Markdown reads as markup (``<`` ``>`` of raw HTML, ``*`` ``_`` of emphasis, backticks, ``[`` ``]`` of
    links) escaped with a backslash, so a file named ``<b>x</b>`` or ``*x*`` is not rendered as bold."""
    return _MARKDOWN_MARKUP.sub(lambda match: "\\" + match.group(), markdown_cell(text))


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}


def _latex_escape(text: str) -> str:
    """Escape the characters LaTeX treats specially in a system name or file path; line breaks, tabs and other
    control characters become spaces (a raw newline in a cell ends the row's line, a blank line ends the table)."""
    return "".join(_LATEX_SPECIAL.get(character, " " if _is_control(character) else character)
                   for character in text)


def _is_control(character: str) -> bool:
    """A C0 or C1 control character, or a line or paragraph separator."""
    code = ord(character)
    return code < 0x20 or 0x7F <= code < 0xA0 or character in "\u2028\u2029"


def _rows(comparison: Any) -> List[List[str]]:
    ranks = comparison.ranks
    rows = []
    for name in comparison.ranking:
        result = comparison.systems[name]
        low, high = result.system_score_interval
        rows.append([str(ranks[name]), name, f"{result.system_score:.4f}", _cell_interval(low, high)])
    return rows


def _pair_rows(comparison: Any) -> List[List[str]]:
    rows = []
    for pair in comparison.pairs:
        diff_low, diff_high = pair.mean_difference_interval
        win_low, win_high = pair.win_rate_interval
        rows.append([pair.a, pair.b, f"{pair.mean_difference:+.4f}", _cell_interval(diff_low, diff_high, signed=True),
                     f"{pair.win_rate:.3f}", f"[{win_low:.3f}, {win_high:.3f}]",
                     format_p_value(pair.p_value_bootstrap, comparison.bootstrap_resamples),
                     format_p_value(pair.p_value_randomization, comparison.randomization_trials)])
    return rows


def _caption(comparison: Any) -> str:
    percent = round(100 * comparison.confidence)
    n_inputs = len(next(iter(comparison.systems.values())).scores)
    note = bootstrap_p_note(n_inputs)
    return (f"Coherence (higher is better) of {len(comparison.systems)} systems on {n_inputs} inputs; {percent}% "
            f"paired-bootstrap intervals ({comparison.bootstrap_resamples} resamples, seed {comparison.seed}); "
            f"p-values two-sided, per pair, uncorrected (approximate randomization: {comparison.randomization_trials}"
            " trials)." + (f" -: {note}." if note else ""))


def _notes(comparison: Any) -> str:
    """The comparison's notes (a length gap, the known limits), one sentence after another, for a caption."""
    return " ".join(getattr(comparison, "notes", ()))


def render_markdown(comparison: Any) -> str:
    """The systems table and the pairs table of a ``SystemsComparison`` as Markdown, signature last."""
    percent = round(100 * comparison.confidence)
    lines = [f"| rank | system | coherence | {percent}% CI |", "|---:|---|---:|---|"]
    lines += [_markdown_row(row, labels=(1,)) for row in _rows(comparison)]
    lines += ["", f"| A | B | mean diff | {percent}% CI | A win rate | {percent}% CI | p (bootstrap) | "
                  "p (randomization) |", "|---|---|---:|---|---:|---|---:|---:|"]
    lines += [_markdown_row(row, labels=(0, 1)) for row in _pair_rows(comparison)]
    lines += ["", _caption(comparison) + " " + floor_note(comparison.bootstrap_resamples,
                                                          comparison.randomization_trials) + ".",
              "", markdown_cell(_notes(comparison)), "", f"Signature: `{comparison.signature}`"]
    return "\n".join(lines)


def _markdown_row(cells: List[str], labels: Tuple[int, ...]) -> str:
    """One Markdown table row; the cells at positions ``labels`` are system names (:func:`markdown_label`)."""
    shown = [markdown_label(cell) if index in labels else markdown_cell(cell) for index, cell in enumerate(cells)]
    return "| " + " | ".join(shown) + " |"


def render_latex(comparison: Any) -> str:
    """The systems table of a ``SystemsComparison`` as a LaTeX ``table`` (booktabs), the pairs as a second
    ``tabular``, the signature in a comment."""
    percent = round(100 * comparison.confidence)
    lines = ["% requires \\usepackage{booktabs}", f"% signature: {comparison.signature}", r"\begin{table}[t]",
             r"\centering", r"\begin{tabular}{rlrl}", r"\toprule",
             rf"Rank & System & Coherence & {percent}\% CI \\", r"\midrule"]
    lines += [rf"{rank} & {_latex_escape(name)} & {value} & {interval} \\"
              for rank, name, value, interval in _rows(comparison)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\vspace{0.5em}", "", r"\begin{tabular}{llrlrlrr}", r"\toprule",
              rf"A & B & Mean diff. & {percent}\% CI & A win rate & {percent}\% CI & $p$ (boot.) & $p$ (rand.) \\",
              r"\midrule"]
    for row in _pair_rows(comparison):
        cells = [_latex_escape(row[0]), _latex_escape(row[1]), *row[2:6],
                 *(f"${cell}$" if cell.startswith("<") else cell for cell in row[6:])]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              rf"\caption{{{_latex_escape(_caption(comparison))} $<$: at the test's floor 1/(N+1). "
              rf"{_latex_escape(_notes(comparison))}}}",
              r"\end{table}"]
    return "\n".join(lines)


def render_score_markdown(labels: List[str], result: Any, values: Optional[List[float]] = None) -> str:
    """One row per text and the system score (with its interval when there is one), as Markdown; ``values``: the
    scores shown per label (NaN for an empty text under ``--on-empty nan``), else ``result.scores``."""
    lines = ["| text | coherence |", "|---|---:|"]
    lines += [f"| {markdown_label(label)} | {value:.4f} |" for label, value in zip(labels, values or result.scores)]
    lines.append(f"| **system score** (mean of {len(result.scores)}) | **{result.system_score:.4f}** |")
    lines += ["", _score_summary(result), "", f"Signature: `{result.signature}`"]
    return "\n".join(lines)


def render_score_latex(labels: List[str], result: Any, values: Optional[List[float]] = None) -> str:
    """One row per text and the system score, as a LaTeX ``tabular`` (booktabs), the signature in a comment;
    ``values`` as for :func:`render_score_markdown`."""
    lines = ["% requires \\usepackage{booktabs}", f"% signature: {result.signature}", r"\begin{tabular}{lr}",
             r"\toprule", r"Text & Coherence \\", r"\midrule"]
    lines += [rf"{_latex_escape(label)} & {value:.4f} \\" for label, value in zip(labels, values or result.scores)]
    lines += [r"\midrule", rf"System score & {result.system_score:.4f} \\"]
    if result.system_score_interval is not None:
        low, high = result.system_score_interval
        lines.append(rf"{round(100 * result.confidence)}\% CI & [{low:.4f}, {high:.4f}] \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def _score_summary(result: Any) -> str:
    if result.system_score_interval is None:
        return f"System score {result.system_score:.4f} ({plural(len(result.scores), 'text')})."
    low, high = result.system_score_interval
    return (f"System score {result.system_score:.4f}, {round(100 * result.confidence)}% CI [{low:.4f}, {high:.4f}] "
            f"(bootstrap over the {len(result.scores)} texts).")


def plural(count: int, noun: str) -> str:
    """``1 text``, ``2 texts``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
