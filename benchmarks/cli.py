"""``coherence-metric benchmark``: run a suite on a checkpoint and print its report (files go to ``--out``).

Mounted lazily by the main CLI, so ``coherence-metric --help`` never imports torch. User mistakes (an unknown
suite, a missing model, a bad option value) raise CoherenceMetricError subclasses, which the main CLI prints as
one line with exit status 2. Every option is validated here or by the scorer before any long work starts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
import sys
from pathlib import Path
from typing import Any, Iterator, Optional, Tuple

import click

from coherence_metric.errors import InputError
from coherence_metric.research.catalogue import ALL_SUITE_NAMES
from coherence_metric.statistics.bootstrap import MAX_RESAMPLES

from .run_settings import RunSettings

LOGGER = logging.getLogger("coherence_metric.benchmarks")
DEFAULT_OUT_ROOT = Path("runs") / "benchmarks"
#: Suites of human-rated texts (correlations and pairwise accuracy with people), run by ``_rated``.
RATED_SUITES = ("summeval-correlation", "human-dev")
#: Suites of test sets, run by ``_suite``: the ones ``--resume-from`` can take finished sets of.
TEST_SET_SUITES = ("paper", "probes", "all")


@click.command("benchmark", short_help="Measure a checkpoint: test sets, probes, human ratings, speed.")
@click.option("--model", "-m", default="default", show_default=True,
              help="'default', a packaged checkpoint, a checkpoint folder, or a Hub repo id.")
@click.option("--suite", "-s", type=click.Choice(ALL_SUITE_NAMES, case_sensitive=False), default="paper",
              show_default=True, help="Which suite to run.")
@click.option("--limit", type=int, default=None,
              help="Score a seeded subset of N pairs per test set (texts per set for speed; rows per split for "
                   "discoeval; articles for summeval-correlation; prompts/articles per set for human-dev; "
                   "documents per kind for localisation, default 300).")
@click.option("--output", "-o", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the .md, .json and .png reports [default: runs/benchmarks/<model label>].")
@click.option("--out", "out_alias", type=click.Path(file_okay=False, path_type=Path), default=None, hidden=True,
              help="The old name of --output, kept working.")
@click.option("--seed", type=int, default=None,
              help="Seeds subsets, stand-in permutations, the random baseline and the No FT head "
                   "[default: 0; DiscoEval's own 1111 for --suite discoeval].")
@click.option("--batch-size", type=int, default=32, show_default=True, help="Most texts per forward pass.")
@click.option("--device", default=None, help="cpu, cuda, cuda:N or mps [default: a GPU if there is one].")
@click.option("--dtype", type=click.Choice(["auto", "fp32", "bf16", "fp16"], case_sensitive=False), default=None,
              help="auto, fp32, bf16 or fp16 (GPU only) [default: auto for --suite speed (bf16 on CPUs with native "
                   "bf16), fp32 for the others, whose numbers are compared across machines].")
@click.option("--no-cache", is_flag=True, help="Score everything afresh and write nothing to the cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Cache folder [default: $COHERENCE_METRIC_CACHE or ~/.cache/coherence_metric/benchmarks].")
@click.option("--baselines/--no-baselines", default=True, show_default=True,
              help="Also score random, No FT (untrained head) and adjacent-sentence cosine.")
@click.option("--bootstrap", "resamples", type=click.IntRange(0, MAX_RESAMPLES), default=1000, show_default=True,
              help=f"summeval-correlation and human-dev: bootstrap resamples of articles/prompts, 0 to {MAX_RESAMPLES} "
                   "(0: no intervals).")
@click.option("--encoder", default=None, help="DiscoEval only: the encoder spec (minilm, hf:PATH[:pool=mean] ...).")
@click.option("--tasks", default=None, help="DiscoEval only: comma-separated tasks or groups (SP,BSO,PDTB-E ...).")
@click.option("--mechanisms", default=None,
              help="Localisation only: comma-separated transition mechanisms (local-term, pair-alone, cut-drop, "
                   "window, adjacent-cosine) [default: every one the checkpoint can run].")
@click.option("--split", type=click.Choice(["test", "dev", "cohesentia-dev"], case_sensitive=False), default=None,
              help="Localisation only: corrupt the news corpora's test documents (reported numbers) or their dev "
                   "documents (for choosing a mechanism or a setting), or cohesentia-dev: the real-error dev ruler "
                   "(CoheSentia's GPT-3 stories with the sentences people marked, and explain's calibrated flags) "
                   "[default: test].")
@click.option("--resume-from", type=click.Path(exists=True, dir_okay=False, path_type=Path), multiple=True,
              help="paper/probes/all: an earlier run's <suite>.json (partial or finished, same model, systems, "
                   "limit and seed, e.g. from another machine) whose finished test sets are taken, not scored again, "
                   "with the score parts of a set it had begun (its folder's score-parts/); repeat it to take sets "
                   "from several reports.")
@click.option("--progress/--quiet", default=None,
              help="Progress bars on stderr [default: when stderr is a terminal; otherwise (nohup, a job log) the "
                   "timestamped lines of --verbose]; --quiet: neither.")
@click.option("--no-progress", "no_progress_alias", is_flag=True, hidden=True, help="The old name of --quiet.")
@click.option("--verbose", "-v", is_flag=True, help="Log each test set's result to stderr as it finishes.")
def benchmark(model: str, suite: str, limit: Optional[int], out_dir: Optional[Path], seed: Optional[int],
              batch_size: int,
              device: Optional[str], dtype: Optional[str], no_cache: bool, cache_dir: Optional[Path], baselines: bool,
              resamples: int, encoder: Optional[str], tasks: Optional[str], mechanisms: Optional[str],
              split: Optional[str], resume_from: Tuple[Path, ...], progress: Optional[bool], verbose: bool,
              out_alias: Optional[Path] = None, no_progress_alias: bool = False) -> None:
    """Benchmark a checkpoint: the paper's test sets, the linguistic probes, agreement with human ratings
    (summeval-correlation, human-dev), DiscoEval, or scoring speed."""
    out_dir = out_dir or out_alias
    if no_progress_alias:
        progress = False
    name = suite.strip().casefold()
    if name not in ALL_SUITE_NAMES:
        raise InputError(f"unknown suite {suite!r}: choose one of {', '.join(ALL_SUITE_NAMES)}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be a positive integer, got {limit}")
    if batch_size < 1:
        raise InputError(f"--batch-size must be a positive integer, got {batch_size}")
    if split is not None and name != "localisation":
        raise InputError(f"--split is for --suite localisation only; --suite {name} measures its own test sets")
    if mechanisms:
        from coherence_metric.analysis.mechanisms import check_mechanism_name

        for mechanism in _mechanism_names(mechanisms):
            check_mechanism_name(mechanism)  # a typo is refused before the checkpoint and the data load
    if resume_from and name not in TEST_SET_SUITES:
        raise InputError(f"--resume-from is for --suite {', '.join(TEST_SET_SUITES)}; --suite {name} has no test "
                         "sets to take from an earlier run")
    if dtype is None:
        dtype = "auto" if name == "speed" else "fp32"
    settings = RunSettings(model=model, limit=limit, seed=seed or 0, batch_size=batch_size, device=device,
                           dtype=dtype, baselines=baselines, use_cache=not no_cache, cache_dir=cache_dir,
                           out_dir=out_dir, progress=sys.stderr.isatty() if progress is None else progress,
                           resume_from=resume_from)
    # A run hours long under nohup or in a job log has no bar: it says what it finished instead of nothing.
    with _logging_to_stderr(verbose or (progress is None and not sys.stderr.isatty())):
        if name == "discoeval":
            _discoeval(settings, encoder, tasks, seed)
            return
        settings = dataclasses.replace(settings, out_dir=out_dir or default_out_dir(model))
        if name in RATED_SUITES:
            _rated(name, settings, resamples)
        elif name == "speed":
            _speed(settings)
        elif name == "localisation" and (split or "").casefold() == "cohesentia-dev":
            _cohesentia(settings)
        elif name == "localisation":
            _localisation(settings, mechanisms, (split or "test").casefold())
        else:
            _suite(name, settings)


def _suite(suite: str, settings: RunSettings) -> None:
    from .reporting import render_suite_markdown
    from .suites import run_suite

    result = run_suite(suite, settings)
    click.echo(render_suite_markdown(result))
    _echo_outputs(result)


def _rated(suite: str, settings: RunSettings, resamples: int) -> None:
    """Run a suite of human-rated texts (summeval-correlation or human-dev) and print its report."""
    if suite == "human-dev":
        from .human_dev import run_human_dev as run
        from .reporting.human_dev_markdown import render_human_dev_markdown as render
    else:
        from .reporting.correlation_markdown import render_correlation_markdown as render
        from .summeval_correlation import run_summeval_correlation as run
    result = run(settings, resamples=resamples)
    click.echo(render(result))
    _echo_outputs(result)


def _speed(settings: RunSettings) -> None:
    from .reporting import render_speed_markdown
    from .speed import run_speed

    result = run_speed(settings)
    click.echo(render_speed_markdown(result))
    _echo_outputs(result)


def _localisation(settings: RunSettings, mechanisms: Optional[str], split: str) -> None:
    """Where the lowest transition of corrupted held-out documents (of the test or the dev split) falls, per
    transition mechanism."""
    from .localisation import run_localisation
    from .reporting.localisation_markdown import render_localisation_markdown

    result = run_localisation(settings, mechanisms=_mechanism_names(mechanisms) if mechanisms else None, split=split)
    click.echo(render_localisation_markdown(result))
    _echo_outputs(result)


def _mechanism_names(mechanisms: str) -> list[str]:
    """The names of a comma-separated ``--mechanisms``."""
    return [name.strip() for name in mechanisms.split(",") if name.strip()]


def _cohesentia(settings: RunSettings) -> None:
    """The real-error dev ruler: how explain's evidence ranks the sentences people marked, and its flags."""
    from .cohesentia import run_cohesentia
    from .reporting.cohesentia_markdown import render_cohesentia_markdown

    result = run_cohesentia(settings)
    click.echo(render_cohesentia_markdown(result))
    _echo_outputs(result)


def _discoeval(settings: RunSettings, encoder: Optional[str], tasks: Optional[str], seed: Optional[int]) -> None:
    """DiscoEval probes a sentence encoder; ``seed`` None keeps DiscoEval's own."""
    from .discoeval import registered_prefixes, render_markdown, run_discoeval

    if encoder is None:
        if "checkpoint" not in registered_prefixes():
            raise InputError("--suite discoeval needs --encoder SPEC (e.g. minilm or hf:PATH[:pool=mean]): "
                             "DiscoEval probes a sentence encoder, not a coherence score")
        encoder = f"checkpoint:{settings.model}"
    task_list = [task.strip() for task in tasks.split(",") if task.strip()] if tasks else None
    folder = settings.out_dir or DEFAULT_OUT_ROOT / "discoeval"
    cache_dir = Path(settings.cache_dir) / "discoeval" if settings.cache_dir else None
    seeded: dict[str, Any] = {} if seed is None else {"seed": seed}
    result = run_discoeval(encoder, tasks=task_list, limit=settings.limit, out_dir=folder, cache_dir=cache_dir,
                           use_cache=settings.use_cache, **seeded)
    click.echo(render_markdown(result))
    _echo_outputs(result)


def default_out_dir(model: str) -> Path:
    """Return ``runs/benchmarks/<model label>`` (resolving the model first, so a missing one fails at once)."""
    from coherence_metric.models.registry import resolve_model

    label = resolve_model(model).label
    return DEFAULT_OUT_ROOT / (re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-") or "model")


def _echo_outputs(result: dict[str, Any]) -> None:
    outputs = result.get("outputs") or {}
    if outputs:
        click.echo("Reports: " + ", ".join(str(path) for path in outputs.values()))


@contextlib.contextmanager
def _logging_to_stderr(enabled: bool) -> Iterator[None]:
    """Send the benchmarks logger's INFO lines to stderr for the command's duration (library code stays silent)."""
    if not enabled:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    previous = LOGGER.level
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)
    try:
        yield
    finally:
        LOGGER.removeHandler(handler)
        LOGGER.setLevel(previous)
