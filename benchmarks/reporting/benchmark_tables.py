"""The measured tables of docs/benchmarks.md that are not the CPU, GPU and host-ceiling speed tables: how long each
tier's suites ran, one past speed run in detail, long texts against short ones, and the int8 check.

Each was typed into the page by hand and drifted from its report (a suite's run time typed as another run's), so
each block is now rendered from the committed reports under ``benchmarks/reports/`` and judged against
``targets.toml``; ``make tables`` rewrites the blocks and tests/benchmarks/reporting/test_landing.py fails while they
differ.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import targets
from .cpu_speed_table import other_machine_runs
from .explain_tables import dev_reports_folder
from .report_reader import ACCURATE, FAST, LandingError, Reports, tier_label
from .speed_markdown import share_of_fastest_limit

#: The past speed run shown in detail: the 0.2.0 default's, with its rerun beside it.
DETAILED_SPEED_RUN = ("cm-minilm-pointwise-2026.11", "speed.json")
DETAILED_SPEED_RERUNS = ("speed_rerun_*.json",)
#: The tiers whose run times the page lists, and what it calls them (the label follows the alias).
TIMED_TIERS = ((FAST, tier_label(FAST)), (ACCURATE, tier_label(ACCURATE)))


def _verdict(met: bool) -> str:
    return "met" if met else "missed"


def _table(header: Sequence[str], align: str, rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + align.strip("|") + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# --- run times -------------------------------------------------------------------------------------------------------

def _timed_reports(reports: Reports, checkpoint: str) -> List[Tuple[str, Mapping[str, Any]]]:
    """(file name, report) of every top-level JSON report of ``checkpoint`` that records its run's ``seconds``."""
    found: List[Tuple[str, Mapping[str, Any]]] = []
    for path in sorted((reports.folder / checkpoint).glob("*.json")):
        report = reports.load(checkpoint, path.name)
        if isinstance(report, dict) and isinstance(report.get("seconds"), (int, float)):
            found.append((path.name, report))
    return found


def run_times_table(reports: Reports) -> str:
    """Each tier's committed suite reports with the wall time of the run that wrote them, what it read from the score
    cache, and what it took from earlier runs (``--resume-from``), so a run time is never read without its cache."""
    rows = []
    for checkpoint, tier in TIMED_TIERS:
        timed = _timed_reports(reports, checkpoint)
        if not timed:
            raise LandingError(f"{reports.folder / checkpoint}: no report with a run time")
        for name, report in timed:
            cache = report.get("cache") or {}
            hits = f"{cache['hits']:,} / {cache['misses']:,}" if "hits" in cache else ""
            resumed = report.get("resumed") or {}
            earlier = (f"{len(resumed.get('test_sets', ()))} sets, {resumed['seconds']:,.0f} s"
                       if resumed.get("seconds") else "")
            rows.append([tier, f"`{checkpoint}/{name}`", f"{report['seconds']:,.0f}", hits, earlier,
                         str(report.get("threads", ""))])
    return _table(["tier", "report", "seconds (the run that wrote it)", "scores from the cache (hits / misses)",
                   "taken from earlier runs", "torch threads"], "---|---|---:|---:|---:|---:", rows)


# --- one speed run in detail -----------------------------------------------------------------------------------------

def _rate(run: Optional[Mapping[str, Any]]) -> str:
    return "" if run is None else f"{run['docs_per_second']:.1f}"


def speed_run_table(reports: Reports) -> str:
    """The detailed speed run (``DETAILED_SPEED_RUN``): per text length, the scorer in ``auto``, in fp32 and in input
    order, the forward-only limits, the share of the fastest one, the reference and the ratio; then one line with
    the run's memory, score deviation and profile, and one per rerun of the same checkpoint."""
    folder, name = DETAILED_SPEED_RUN
    report = reports.load(folder, name)
    dtype = report["model"]["dtype"]
    limits = list(report["sets"][0].get("forward_limit", {}))
    rows = []
    for row in report["sets"]:
        runs = row["runs"]
        share = share_of_fastest_limit(row, "ours")
        rows.append([row["name"], f"**{_rate(runs['ours'])}**", _rate(runs.get("ours_fp32")),
                     _rate(runs.get("ours_unsorted")),
                     " / ".join(_rate(row["forward_limit"].get(key)) for key in limits),
                     "" if share is None else f"{100 * share:.0f}%", f"{runs['paper']['docs_per_second']:.2f}",
                     f"{row['ratios']['ours_speedup']:.0f}x"])
    header = [f"speed, {report.get('limit') or 1000:,} texts per row", f"ours, `auto` = {dtype} (docs/s)", "ours, fp32",
              "ours, input order", f"forward-only limit {' / '.join(limits)}", "share of the fastest limit",
              "paper-faithful*", "speed-up"]
    text = (f"`{folder}`, {report['cpu']}, {report['threads']} torch threads, {report['seconds']:,.0f} s "
            f"(`{folder}/{name}`):\n\n")
    text += _table(header, "---|" + "---:|" * (len(header) - 1), rows)
    memory = [row["runs"]["ours"] for row in report["sets"]]
    fp32 = [row["runs"]["ours_fp32"] for row in report["sets"] if "ours_fp32" in row["runs"]]
    ratios = [row["ratios"]["ours_memory"] for row in report["sets"]]
    deviation = [row["deviation"] for row in report["sets"] if row.get("deviation")]
    passes = [profile["document pass"] / profile["wall"] for row in report["sets"]
              for profile in row.get("profiles", {}).values() if profile.get("wall")]
    notes = [f"Peak memory (weights + the rise while scoring) {min(r['peak_memory_mb'] for r in memory):.0f}-"
             f"{max(r['peak_memory_mb'] for r in memory):.0f} MiB, {min(ratios):.2f}-{max(ratios):.2f}x the "
             f"reference's"]
    if fp32:
        notes[-1] += (f" (fp32: {min(r['peak_memory_mb'] for r in fp32):.0f}-"
                      f"{max(r['peak_memory_mb'] for r in fp32):.0f} MiB)")
    if deviation:
        notes.append(f"{dtype} moved the scores by at most {max(d['max_abs'] for d in deviation):.4f} (mean "
                     f"at most {max(d['mean_abs'] for d in deviation):.4f}) from fp32 on these texts")
    if passes:
        notes.append(f"the document pass took {100 * min(passes):.0f}-{100 * max(passes):.0f}% of every "
                     "configuration's time")
    prose = "; ".join(notes) + "."
    for pattern in DETAILED_SPEED_RERUNS:
        for path in sorted((reports.folder / folder).glob(pattern)):
            rerun = reports.load(folder, path.name)
            cells = " / ".join(_rate(row["runs"]["ours"]) for row in rerun["sets"])
            at_256 = next((row for row in rerun["sets"] if row.get("target_tokens") == 256), None)
            ratio = "" if at_256 is None else f", {at_256['ratios']['ours_speedup']:.0f}x at 256 tokens"
            prose += (f" A rerun of the same command ({rerun['cpu']}, `{folder}/{path.name}`) ran "
                      f"{cells} docs/s{ratio}.")
    return text + "\n" + textwrap.fill(prose, width=118, break_long_words=False, break_on_hyphens=False) + "\n"


# --- long texts ------------------------------------------------------------------------------------------------------

def _long_text_runs(reports: Reports) -> List[Tuple[str, Mapping[str, Any]]]:
    """The fast tier's long-text runs (the only tier measured so), its own and those of other machines."""
    runs = []
    if reports.exists(FAST, "long-text-speed.json"):
        runs.append((f"{FAST}/long-text-speed.json", reports.load(FAST, "long-text-speed.json")))
    runs += other_machine_runs(reports, "long-text-speed.json")
    if not runs:
        raise LandingError(f"{reports.folder}: no long-text-speed.json (run python -m "
                           "coherence_metric.benchmarks.speed.long_text_speed)")
    return runs


def long_text_table(reports: Reports) -> str:
    """Words/s of short and long texts per CPU and dtype, their ratio against the target, the document pass's share
    of a long call, and the word pieces read per word (a long text's windows read most words twice)."""
    wanted = targets.load().speed.long_text_min_ratio
    rows = []
    for name, run in _long_text_runs(reports):
        for dtype in ("fp32", "bf16"):
            cell = run.get(dtype)
            if not cell:
                continue
            words = cell["words_per_second"]
            ratio = cell["long_over_short"]
            rows.append([run["cpu"], dtype, f"{words['short']:,}", f"{words['long']:,}",
                         f"{ratio:.2f} (≥ {wanted:g}: {_verdict(ratio >= wanted)})",
                         f"{100 * cell['long_document_pass_share']:.0f}%",
                         f"{run['tokens_per_word']['short']:.2f} / {run['tokens_per_word']['long']:.2f}",
                         f"`{name}`"])
    first = _long_text_runs(reports)[0][1]
    header = ["CPU (2 torch threads)", "dtype", f"words/s, {first['short_texts']} texts of about "
              f"{first['short_words']} words", f"{first['long_texts']} of about {first['long_words']}",
              "long / short (target)", "document pass, share of a long call", "word pieces per word, short / long",
              "report"]
    return _table(header, "---|---|---:|---:|---:|---:|---:|---", rows)


# --- bf16 against fp32 -----------------------------------------------------------------------------------------------

#: The report of ``python -m coherence_metric.benchmarks.speed.dtype_tolerance --limit 200 --out ...``.
DTYPE_TOLERANCE_REPORT = "dtype-tolerance.json"


def dtype_tolerance_table(reports: Reports) -> str:
    """How far bf16 autocast moves each tier's scores from fp32 over the paper suite's pairs (every set, pooled): the
    largest, 99th-percentile and mean move, the pairs whose winner stays, and pairwise accuracy in both dtypes; a
    tier without a committed run has no row."""
    rows = []
    for tier in (FAST, ACCURATE):
        if not reports.exists(tier, DTYPE_TOLERANCE_REPORT):
            continue
        run = reports.load(tier, DTYPE_TOLERANCE_REPORT)
        (cell,) = [entry["all"] for entry in run["models"].values()]
        rows.append([f"{tier_label(tier)}, `{tier}`", f"{cell['pairs']:,}", f"{cell['max_abs']:.4f}",
                     f"{cell['p99_abs']:.4f}", f"{cell['mean_abs']:.4f}", f"{100 * cell['same_winner']:.2f}%",
                     f"{100 * cell['accuracy_fp32']:.2f}% -> {100 * cell['accuracy_bf16']:.2f}%",
                     f"`{tier}/{DTYPE_TOLERANCE_REPORT}`"])
    if not rows:
        raise LandingError(f"{reports.folder}: no tier has a {DTYPE_TOLERANCE_REPORT} (run python -m "
                           "coherence_metric.benchmarks.speed.dtype_tolerance --limit 200 --out FILE CHECKPOINT)")
    header = ["tier", "pairs", "max \\|bf16 - fp32\\|", "99th percentile", "mean", "pairs keeping their winner",
              "pairwise accuracy fp32 -> bf16", "report"]
    return _table(header, "---|---:|---:|---:|---:|---:|---:|---", rows)


# --- int8 ------------------------------------------------------------------------------------------------------------

def _int8_reports(reports: Reports) -> List[Tuple[str, Mapping[str, Any]]]:
    """The fast tier's int8 checks (the only tier checked so)."""
    found = [(path.name, reports.load(FAST, path.name))
             for path in sorted((reports.folder / FAST).glob("int8-check*.json"))]
    if not found:
        raise LandingError(f"{reports.folder / FAST}: no int8-check*.json (run python -m "
                           "coherence_metric.benchmarks.speed.int8_check --output FILE)")
    return found


def int8_table(reports: Reports) -> str:
    """Each int8 check's paths: texts/s, and for each int8 scheme the three rules of ``targets.toml``'s ``[int8]``
    judged here from the numbers (a rule the run did not measure reads "not measured" and fails)."""
    rule = targets.load().int8
    rows = []
    for name, run in _int8_reports(reports):
        rates = run["texts_per_second"]
        floats = [path for path in ("fp32", "bf16") if path in rates]
        fastest = max(rates[path] for path in floats)
        dependence = run.get("batch_dependence") or {}
        for path, rate in rates.items():
            if path in floats:
                deviation = run.get("max_abs_deviation_from_fp32", {}).get(path)
                kept = run.get("winners_kept", {}).get(path)
                rows.append([run["cpu"], path, f"{rate:.1f}", "", "" if deviation is None else f"{deviation:.3f}",
                             "" if kept is None else f"{100 * kept:.1f}",
                             "" if path not in dependence else f"{dependence[path]:.2f}", "", f"`{name}`"])
                continue
            speedup = rate / fastest
            kept = run["winners_kept"][path]
            alone = dependence.get(path)
            checks = [speedup >= rule.min_speedup, kept >= rule.min_winners_kept,
                      alone is not None and alone <= rule.max_batch_dependence]
            failed = [label for label, ok in zip(("speed", "pairs", "batch" if alone is not None else
                                                  "batch (not measured)"), checks) if not ok]
            rows.append([run["cpu"], path, f"{rate:.1f}", f"{speedup:.2f}x",
                         f"{run['max_abs_deviation_from_fp32'][path]:.3f}", f"{100 * kept:.1f}",
                         "not measured" if alone is None else f"{alone:.2f}",
                         "ships" if not failed else "fails " + ", ".join(failed), f"`{name}`"])
    header = ["CPU (2 torch threads)", "path", "texts/s", f"× the faster float path (≥ {rule.min_speedup:g})",
              "max \\|Δ score\\| from fp32", f"pairs kept % (≥ {100 * rule.min_winners_kept:g})",
              f"alone vs in the batch, max \\|Δ\\| (≤ {rule.max_batch_dependence:g})", "rules", "report"]
    return _table(header, "---|---|---:|---:|---:|---:|---:|---|---", rows)


# --- less window overlap, on dev ------------------------------------------------------------------------------------

#: The dev comparison of window overlaps (``python -m coherence_metric.training.pointwise.window_overlap``), under
#: training/ablation/reports.
WINDOW_OVERLAP = ("window_overlap", "default.json")


def window_overlap_prose(reports: Reports) -> str:
    """What windows that repeat fewer sentences change on dev, against the scorer's half-overlapping windows: word
    pieces read per word of a long text, same-prompt pairs whose winner changes, long texts whose first sentence beats
    the whole, and agreement with people (paired)."""
    path = dev_reports_folder(reports).joinpath(*WINDOW_OVERLAP)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LandingError(f"{path}: report not found (run python -m "
                           "coherence_metric.training.pointwise.window_overlap)") from None
    by_overlap = {option["overlap"]: option for option in report["options"]}
    half = by_overlap.pop("half")
    fewer = sorted(by_overlap.items())
    (name, _), *_ = sorted(fewer[0][1]["same_winner_as_half"].items(), key=lambda item: item[1])

    def each(text: Callable[[Mapping[str, Any]], str]) -> str:
        return " and ".join(text(option) for _, option in fewer)

    def paired(option: Mapping[str, Any]) -> str:
        low, high = option["vs_half"]["interval"]
        return f"{100 * option['vs_half']['difference']:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}]"

    sentences = [
        f"Windows repeating {' or '.join(overlap for overlap, _ in fewer)} sentences read "
        f"{each(lambda option: format(option['long_tokens_per_word'], '.2f'))} word pieces per word on dev's long "
        f"texts, respectively, instead of {half['long_tokens_per_word']:.2f}.",
        f"But they change which of two same-prompt {name} stories (dev-select) scores higher in "
        f"{each(lambda option: format(100 * (1 - option['same_winner_as_half'][name]), '.1f'))}% of the pairs, "
        f"against the {100 * (1 - report['tolerance']):.0f}% a faster path may change (the bf16 rule).",
        f"A long text's first sentence beats the whole in "
        f"{each(lambda option: format(100 * option['long_first_beats_whole'], '.0f'))}% of dev's long texts, against "
        f"{100 * half['long_first_beats_whole']:.0f}% with half-overlapping windows.",
        f"Agreement with people on dev-select moves by {each(paired)} (paired; the run took {report['seconds']:.0f} s, "
        f"`training/ablation/reports/{'/'.join(WINDOW_OVERLAP)}`).",
    ]
    return textwrap.fill(" ".join(sentences), width=118, break_long_words=False, break_on_hyphens=False) + "\n"


# --- what bf16 gains on a GPU ----------------------------------------------------------------------------------------

GPU_SPEED = "gpu-speed"
GPU_BATCH = 64


def gpu_bf16_gain_table(reports: Reports) -> str:
    """Each tier's bf16 rate over its fp32 rate at batch 64 per text length, from the newest GPU speed report: where a
    tier's time is the matrix work, bf16 shows; where it is the host's, it does not."""
    found = sorted((reports.folder / GPU_SPEED).glob("*.json"))
    if not found:
        raise LandingError(f"{reports.folder / GPU_SPEED}: no report (run "
                           "python -m coherence_metric.benchmarks.speed.gpu_speed on a GPU)")
    report = reports.load(GPU_SPEED, found[-1].name)
    # Labelled by checkpoint, not by the row's "tier" (the reports name the fast tier's rows "default").
    rates: Dict[Tuple[str, str, int, str], float] = {
        (tier_label(row["checkpoint"], row["tier"]), row["checkpoint"], row["tokens"], row["dtype"]):
            row["texts_per_second"]
        for row in report["rows"] if row["batch"] == GPU_BATCH}
    tiers = list(dict.fromkeys((tier, checkpoint) for tier, checkpoint, _, _ in rates))
    lengths = sorted({tokens for _, _, tokens, _ in rates})

    def gain(tier: str, checkpoint: str, tokens: int) -> str:
        bf16, fp32 = rates.get((tier, checkpoint, tokens, "bf16")), rates.get((tier, checkpoint, tokens, "fp32"))
        return "" if bf16 is None or fp32 is None else f"{bf16 / fp32:.2f}×"

    rows = [[f"{tier} (`{checkpoint}`)", *(gain(tier, checkpoint, tokens) for tokens in lengths)]
            for tier, checkpoint in tiers]
    header = [f"{report['device']}, bf16 texts/s over fp32's, batch {GPU_BATCH}",
              *(f"{tokens} tokens" for tokens in lengths)]
    return _table(header, "---|" + "---:|" * len(lengths), rows)


BLOCKS: Mapping[str, Callable[[Reports], str]] = {
    "run-times": run_times_table,
    "speed-run-detail": speed_run_table,
    "long-text-speed": long_text_table,
    "int8": int8_table,
    "window-overlap": window_overlap_prose,
    "gpu-bf16-gain": gpu_bf16_gain_table,
    "dtype-tolerance": dtype_tolerance_table,
}

__all__ = ["BLOCKS", "dtype_tolerance_table", "gpu_bf16_gain_table", "int8_table", "long_text_table",
           "run_times_table", "speed_run_table", "window_overlap_prose"]
