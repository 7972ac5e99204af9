"""``coherence-metric benchmark SUITE``: run one suite on a checkpoint and print its report (files go to ``--output``).

Mounted lazily by the main CLI, so ``coherence-metric --help`` never imports torch. Each suite is a subcommand that
takes only the options its runner reads, so another suite's option is click's usage error before anything loads,
not an option silently ignored. The options every suite shares are declared once (``run_options``), which also
builds the run's ``RunSettings`` once. User mistakes (a missing model, a bad option value) raise CoherenceMetricError
subclasses or click usage errors, which the main CLI prints as one line with exit status 2.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Tuple

import click

from coherence_metric.errors import InputError
from coherence_metric.research.catalogue import ALL_SUITE_NAMES
from coherence_metric.toolkit import MAX_RESAMPLES, resolve_model

from . import discoeval
from .agreement.human_dev import run_human_dev
from .agreement.summeval_correlation import run_summeval_correlation
from .harness.settings import RunSettings
from .localisation.cohesentia import run_cohesentia
from .paper.runner import run_suite
from .reporting import render_speed_markdown, render_suite_markdown
from .reporting.cohesentia_markdown import render_cohesentia_markdown
from .reporting.correlation_markdown import render_correlation_markdown
from .reporting.human_dev_markdown import render_human_dev_markdown
from .reporting.localisation_markdown import render_localisation_markdown
from .speed.cpu_speed import run_speed

LOGGER = logging.getLogger("coherence_metric.benchmarks")
DEFAULT_OUT_ROOT = Path("runs") / "benchmarks"
#: Suites of human-rated texts (correlations and pairwise accuracy with people), run by ``_rated``.
RATED_SUITES = ("summeval-correlation", "human-dev")
#: Suites of test sets, run by ``_suite``: the ones ``--resume-from`` can take finished sets of.
TEST_SET_SUITES = ("paper", "probes", "all")
#: explain's flags on CoheSentia's dev ruler, the suite of its own.
COHESENTIA_DEV = "cohesentia-dev"
DTYPES = ("auto", "fp32", "bf16", "fp16")
#: The keyword arguments ``run_options`` declares and turns into ``RunSettings`` fields (with the suites' own
#: ``--baselines`` and ``--resume-from``, which are settings too).
_SETTINGS_OPTIONS = ("model", "limit", "out_dir", "seed", "batch_size", "device", "dtype", "no_cache", "cache_dir",
                     "baselines", "resume_from", "progress")
class SuiteCommand(click.Command):
    """A suite's subcommand: another suite's option is refused in a line that names the suites taking it."""

    def parse_args(self, ctx: click.Context, args: List[str]) -> List[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            owners = _suites_taking(ctx.parent, error.option_name) if ctx.parent is not None else []
            if not owners:
                raise
            raise click.NoSuchOption(error.option_name, ctx=ctx, message=(
                f"{error.option_name} is an option of benchmark {', '.join(owners)}, not of benchmark {self.name}"
            )) from None


def _suites_taking(group_context: click.Context, option: str) -> List[str]:
    """The suites (subcommands of the group of ``group_context``) that declare ``option``."""
    group = group_context.command
    if not isinstance(group, click.Group):
        return []
    commands = [(name, group.get_command(group_context, name)) for name in group.list_commands(group_context)]
    return [name for name, command in commands if command is not None
            and any(option in param.opts + param.secondary_opts for param in command.params)]


class BenchmarkGroup(click.Group):
    """``benchmark``: one subcommand per suite, listed in the catalogue's order, the suite's name before its options."""

    command_class = SuiteCommand

    def list_commands(self, ctx: click.Context) -> List[str]:
        """The suites in the catalogue's order (click would sort them), any other command after them."""
        order = {name: index for index, name in enumerate(ALL_SUITE_NAMES)}
        return sorted(self.commands, key=lambda name: order.get(name, len(order)))

    def parse_args(self, ctx: click.Context, args: List[str]) -> List[str]:
        if args and args[0].startswith("-") and args[0] not in ctx.help_option_names:
            usage = f"coherence-metric benchmark SUITE [OPTIONS], SUITE one of {', '.join(self.list_commands(ctx))}"
            if any(token in ("--suite", "-s") or token.startswith("--suite=") for token in args):
                ctx.fail(f"benchmark --suite was removed after 0.9.0: the suite is the first argument: {usage}")
            ctx.fail(f"{args[0]} goes after the suite: {usage}")
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: click.Context, args: List[str]) -> Tuple[Optional[str], Optional[click.Command],
                                                                             List[str]]:
        name = args[0].casefold() if args else ""
        if name not in self.commands:
            ctx.fail(f"unknown suite {args[0]!r}: choose one of {', '.join(self.list_commands(ctx))}")
        return super().resolve_command(ctx, [name, *args[1:]])


@click.group("benchmark", cls=BenchmarkGroup, subcommand_metavar="SUITE [OPTIONS]",
             short_help="Measure a checkpoint: test sets, probes, human ratings, speed.")
def benchmark() -> None:
    """Benchmark a checkpoint on one SUITE: the paper's test sets, the linguistic probes, agreement with human
    ratings (summeval-correlation, human-dev), scoring speed, where explain's lowest transition falls (localisation,
    cohesentia-dev), or DiscoEval's probes of a sentence encoder. `coherence-metric benchmark SUITE --help` lists
    the suite's options."""


def _default_dtype(suite: str) -> str:
    """Speed measures what a user gets (``auto``); every other suite's numbers are compared across machines (fp32)."""
    return "auto" if suite == "speed" else "fp32"


def _shared_options(suite: str, limit: Optional[str], scorer: bool, cache: bool, seed: bool) -> List[Any]:
    """The click options of ``run_options``, in the order ``--help`` lists them."""
    options = [click.option("--model", "-m", default="default", show_default=True,
                            help="'default', a packaged checkpoint, a checkpoint folder, or a Hub repo id.")]
    if limit is not None:
        options.append(click.option("--limit", type=click.IntRange(min=1), default=None,
                                    help=f"Score a seeded subset: {limit}."))
    options.append(click.option("--output", "-o", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                                default=None, help="Folder for the .md, .json and .png reports "
                                                   f"[default: {_default_out_help(suite)}]."))
    if seed:
        options.append(click.option("--seed", type=int, default=0, show_default=True,
                                    help="Seeds subsets, stand-in permutations, corruptions, the bootstrap, the "
                                         "random baseline and the No FT head."))
    if scorer:
        options += [
            click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True,
                         help="Most texts per forward pass."),
            click.option("--device", default=None, help="cpu, cuda, cuda:N or mps [default: a GPU if there is one]."),
            click.option("--dtype", type=click.Choice(DTYPES, case_sensitive=False), default=_default_dtype(suite),
                         show_default=True, help=_dtype_help(suite)),
        ]
    if cache:
        options += [
            click.option("--no-cache", is_flag=True, help="Score everything afresh and write nothing to the cache."),
            click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                         help="Cache folder [default: $COHERENCE_METRIC_CACHE or "
                              "~/.cache/coherence_metric/benchmarks]."),
        ]
    return options + [
        click.option("--progress/--quiet", default=None,
                     help="Progress bars on stderr [default: when stderr is a terminal; otherwise (nohup, a job log) "
                          "the timestamped lines of --verbose]; --quiet: neither."),
        click.option("--verbose", "-v", is_flag=True, help="Log each finished part of the run to stderr."),
    ]


def _default_out_help(suite: str) -> str:
    return "runs/benchmarks/discoeval" if suite == "discoeval" else "runs/benchmarks/<model label>"


def _dtype_help(suite: str) -> str:
    if suite == "speed":
        return "auto, fp32, bf16 or fp16 (GPU only); auto is bf16 on CPUs with native bf16, as users get it."
    return "auto, fp32, bf16 or fp16 (GPU only); fp32 by default, since these numbers are compared across machines."


def run_options(suite: str, *, limit: Optional[str], scorer: bool = True, cache: bool = True,
                seed: bool = True) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Declare the options every suite shares, and call the suite with one ``RunSettings`` built from them.

    One declaration keeps the spellings, defaults and checks alike across suites; a suite whose runner has no use
    for some of them leaves them out, so they are refused rather than ignored.

    Args:
        suite: the subcommand's name (its default dtype and report folder).
        limit: what ``--limit N`` counts for this suite (``"N pairs per test set"``); None: no ``--limit``.
        scorer: ``--batch-size``, ``--device``, ``--dtype`` (the suite runs the coherence scorer).
        cache: ``--no-cache``, ``--cache-dir`` (the suite caches what it scored).
        seed: ``--seed`` (default 0); False where the suite declares its own.
    """

    def decorate(function: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(function, updated=())
        def command(**options: Any) -> None:
            verbose, progress = options.pop("verbose"), options.get("progress")
            settings = _run_settings(suite, {name: options.pop(name) for name in _SETTINGS_OPTIONS if name in options})
            # A run hours long under nohup or in a job log has no bar: it says what it finished instead of nothing.
            with _logging_to_stderr(verbose or (progress is None and not sys.stderr.isatty())):
                function(settings, **options)

        command.__click_params__ = list(getattr(function, "__click_params__", []))  # type: ignore[attr-defined]
        for option in reversed(_shared_options(suite, limit, scorer, cache, seed)):
            command = option(command)
        return command

    return decorate


def _run_settings(suite: str, options: dict[str, Any]) -> RunSettings:
    """The run's settings from the options its suite declared (the others keep RunSettings' defaults)."""
    model = options.get("model", "default")
    progress = options.pop("progress", None)
    return RunSettings(
        model=model, limit=options.get("limit"), seed=options.get("seed", 0),
        batch_size=options.get("batch_size", 32), device=options.get("device"),
        dtype=options.get("dtype") or _default_dtype(suite), baselines=options.get("baselines", True),
        use_cache=not options.get("no_cache", False), cache_dir=options.get("cache_dir"),
        out_dir=options.get("out_dir") or _default_out_dir(suite, model),
        progress=sys.stderr.isatty() if progress is None else progress, resume_from=options.get("resume_from", ()))


def _default_out_dir(suite: str, model: str) -> Path:
    """DiscoEval's reports go to one folder (its encoder need not be a checkpoint); the others' to the model's."""
    return DEFAULT_OUT_ROOT / "discoeval" if suite == "discoeval" else default_out_dir(model)


def _baselines_option(which: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option("--baselines/--no-baselines", default=True, show_default=True, help=f"Also score {which}.")


_RESUME_OPTION = click.option(
    "--resume-from", type=click.Path(exists=True, dir_okay=False, path_type=Path), multiple=True,
    help="An earlier run's <suite>.json (partial or finished, same model, systems, limit and seed, e.g. from another "
         "machine) whose finished test sets are taken, not scored again, with the score parts of a set it had begun "
         "(its folder's score-parts/); repeat it to take sets from several reports.")
_BOOTSTRAP_OPTION = click.option(
    "--bootstrap", "resamples", type=click.IntRange(0, MAX_RESAMPLES), default=1000, show_default=True,
    help=f"Bootstrap resamples of articles or prompts, 0 to {MAX_RESAMPLES} (0: no intervals).")
_TEST_SET_BASELINES = "random, No FT (an untrained head) and adjacent-sentence cosine"
_RATED_BASELINES = _TEST_SET_BASELINES + ", and word count, sentence count and repeated word trigrams"


def _test_set_command(name: str, short: str, what: str) -> None:
    """``benchmark paper|probes|all``: one command each, the same options."""

    @benchmark.command(name, short_help=short,
                       help=f"{what} Accuracy of the model and the baselines, beside the published numbers.")
    @run_options(name, limit="N pairs per test set")
    @_baselines_option(_TEST_SET_BASELINES)
    @_RESUME_OPTION
    def command(settings: RunSettings) -> None:
        _suite(name, settings)


def _rated_command(name: str, short: str, what: str, limit: str) -> None:
    """``benchmark summeval-correlation|human-dev``: one command each, the same options."""

    @benchmark.command(name, short_help=short, help=what)
    @run_options(name, limit=limit)
    @_baselines_option(_RATED_BASELINES)
    @_BOOTSTRAP_OPTION
    def command(settings: RunSettings, resamples: int) -> None:
        _rated(name, settings, resamples)


_test_set_command("paper", "The paper's test sets and our stand-ins.",
                  "The paper's test sets (SummEval, LMvLM, INSTED-WIKI, StoryCloze) and our stand-ins.")
_test_set_command("probes", "The eight linguistic probes.", "The eight linguistic probes.")
_test_set_command("all", "The paper suite and the probes.", "The paper suite and the probes, in one report.")
_rated_command("summeval-correlation", "Correlation with SummEval's experts.",
               "The field's protocol: correlation with SummEval's expert coherence ratings (summary, system and "
               "dataset level), beside published metrics.", "N articles (all 16 summaries of each)")
_rated_command("human-dev", "Agreement with people on the dev sets.",
               "Pairwise agreement with people on the human-judged dev sets (HANNA, DeltaScore, FFCI), for each "
               "fixed half (dev-select, dev-report).", "N prompts or articles per set")


@benchmark.command("speed", short_help="Texts per second and memory.",
                   help="Texts per second and memory against a paper-faithful reference and the encoder's "
                        "forward-only limit; run it alone on the machine.")
@run_options("speed", limit="N texts per row [default: 1,000]", cache=False)
def speed_command(settings: RunSettings) -> None:
    _speed(settings)


def _check_mechanisms(ctx: click.Context, param: click.Parameter, value: Optional[str]) -> Optional[str]:
    """Refuse a misspelt mechanism while the options are read, before the checkpoint and the data load."""
    from coherence_metric.toolkit import check_mechanism_name

    try:
        for mechanism in _mechanism_names(value or ""):
            check_mechanism_name(mechanism)
    except InputError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None
    return value


@benchmark.command("localisation", short_help="Where the lowest transition falls.",
                   help="Where the lowest transition of corrupted held-out news documents falls, per transition "
                        "mechanism.")
@run_options("localisation", limit="N documents per kind [default: 300]")
@_baselines_option("random and adjacent-sentence cosine")
@click.option("--mechanisms", default=None, callback=_check_mechanisms,
              help="Comma-separated transition mechanisms (local-term, pair-alone, cut-drop, window, adjacent-cosine) "
                   "[default: every one the checkpoint can run].")
@click.option("--split", type=click.Choice(["test", "dev"], case_sensitive=False), default="test", show_default=True,
              help="Corrupt the test documents (reported numbers) or the dev documents (for choosing a mechanism or "
                   "a setting).")
def localisation_command(settings: RunSettings, mechanisms: Optional[str], split: str) -> None:
    _localisation(settings, mechanisms, split.casefold())


@benchmark.command(COHESENTIA_DEV, short_help="Explain's flags on real errors (dev).",
                   help="The real-error dev ruler: how explain's evidence ranks the sentences people marked in "
                        "CoheSentia's GPT-3 stories, and its calibrated flags.")
@run_options(COHESENTIA_DEV, limit=None)
def cohesentia_command(settings: RunSettings) -> None:
    _cohesentia(settings)


@benchmark.command("discoeval", short_help="DiscoEval's probes of a sentence encoder.",
                   help="DiscoEval's probes of a sentence encoder (--encoder), or of a checkpoint's backbone "
                        "(--model) where the checkpoint encoder is installed.")
@run_options("discoeval", limit="N rows per split", scorer=False, seed=False)
@click.option("--seed", "discoeval_seed", type=int, default=None,
              help="Seeds the subsets, the inner valid split and the probe [default: DiscoEval's own, 1111].")
@click.option("--encoder", default=None,
              help="The encoder spec: minilm[:pool=mean], hf:PATH_OR_ID[:layer=N|avg][:pool=cls|mean], "
                   "checkpoint:MODEL or trained:FOLDER [default: checkpoint:MODEL of --model].")
@click.option("--tasks", default=None, help="Comma-separated tasks or groups (SP,BSO,PDTB-E ...) [default: all].")
def discoeval_command(settings: RunSettings, discoeval_seed: Optional[int], encoder: Optional[str],
                      tasks: Optional[str]) -> None:
    _discoeval(settings, encoder, tasks, discoeval_seed)


def _suite(suite: str, settings: RunSettings) -> None:
    result = run_suite(suite, settings)
    click.echo(render_suite_markdown(result))
    _echo_outputs(result)


def _rated(suite: str, settings: RunSettings, resamples: int) -> None:
    """Run a suite of human-rated texts (summeval-correlation or human-dev) and print its report."""
    if suite == "human-dev":

        result = run_human_dev(settings, resamples=resamples)
        click.echo(render_human_dev_markdown(result))
    else:

        result = run_summeval_correlation(settings, resamples=resamples)
        click.echo(render_correlation_markdown(result))
    _echo_outputs(result)


def _speed(settings: RunSettings) -> None:
    result = run_speed(settings)
    click.echo(render_speed_markdown(result))
    _echo_outputs(result)


def _localisation(settings: RunSettings, mechanisms: Optional[str], split: str) -> None:
    """Where the lowest transition of corrupted held-out documents (of the test or the dev split) falls, per
    transition mechanism."""
    from .localisation.corrupted_news import run_localisation

    result = run_localisation(settings, mechanisms=_mechanism_names(mechanisms) if mechanisms else None, split=split)
    click.echo(render_localisation_markdown(result))
    _echo_outputs(result)


def _mechanism_names(mechanisms: str) -> list[str]:
    """The names of a comma-separated ``--mechanisms``."""
    return [name.strip() for name in mechanisms.split(",") if name.strip()]


def _cohesentia(settings: RunSettings) -> None:
    """The real-error dev ruler: how explain's evidence ranks the sentences people marked, and its flags."""
    result = run_cohesentia(settings)
    click.echo(render_cohesentia_markdown(result))
    _echo_outputs(result)


def _discoeval(settings: RunSettings, encoder: Optional[str], tasks: Optional[str], seed: Optional[int]) -> None:
    """DiscoEval probes a sentence encoder; ``seed`` None keeps DiscoEval's own."""
    if encoder is None:
        if "checkpoint" not in discoeval.registered_prefixes():
            raise InputError("benchmark discoeval needs --encoder SPEC (e.g. minilm or hf:PATH[:pool=mean]): "
                             "DiscoEval probes a sentence encoder, not a coherence score")
        encoder = f"checkpoint:{settings.model}"
    task_list = [task.strip() for task in tasks.split(",") if task.strip()] if tasks else None
    cache_dir = Path(settings.cache_dir) / "discoeval" if settings.cache_dir else None
    seeded: dict[str, Any] = {} if seed is None else {"seed": seed}
    result = discoeval.run_discoeval(encoder, tasks=task_list, limit=settings.limit, out_dir=settings.out_dir,
                                     cache_dir=cache_dir, use_cache=settings.use_cache, **seeded)
    click.echo(discoeval.render_markdown(result))
    _echo_outputs(result)


def default_out_dir(model: str) -> Path:
    """Return ``runs/benchmarks/<model label>`` (resolving the model first, so a missing one fails at once)."""
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

