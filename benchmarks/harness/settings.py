"""``RunSettings``: what every benchmark run takes, declared once.

``coherence-metric benchmark`` builds one from its options and passes it to the suite's runner (``run_suite``,
``run_human_dev``, ``run_summeval_correlation``, ``run_localisation``, ``run_cohesentia``, ``run_speed``); each
runner takes only its own options beside it (which test sets, how many resamples, which mechanisms).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple, Union

from coherence_metric import ScorerSettings
from coherence_metric.research.datasets.base import DEFAULT_SEED

__all__ = ["RunSettings"]


@dataclass(frozen=True)
class RunSettings:
    """The model under test, how much of the data, the seed, how the model runs, the cache and where reports go.

    A runner reads the fields its suite has a use for and ignores the others (the speed suite has no cache, no
    baselines and no progress bars; the CoheSentia ruler scores every story, so it has no ``limit``).

    Attributes:
        model: anything ``CoherenceScorer`` accepts (``default``, a checkpoint folder, a Hub id).
        limit: score a seeded subset (quick runs): pairs per test set, articles or prompts per rated set, documents
            per kind (localisation), texts per set (speed); None: every one (localisation: its default sample).
        seed: seeds the subsets, the stand-ins' permutations, the corruptions, the bootstrap, the random baseline and
            the No FT head.
        batch_size: most texts per forward pass (scores do not depend on it).
        device: torch device; None picks a GPU when there is one.
        dtype: the scorer's dtype, ``auto``, ``fp32``, ``bf16`` or ``fp16`` (GPU); None: the runner's default
            (fp32 for localisation and the CoheSentia ruler, the scorer's ``auto`` elsewhere; the CLI passes fp32
            to every suite but speed).
        baselines: also score random, No FT, adjacent cosine (and, for the rated suites, the trivial baselines).
        use_cache: read and write cached scores, stand-ins and sets.
        cache_dir: the cache folder (default ``$COHERENCE_METRIC_CACHE`` or ``~/.cache/coherence_metric/benchmarks``).
        data_dir: the shared data folder; None finds it the usual way.
        out_dir: write the suite's ``.md``, ``.json`` (and charts) there; None writes no files.
        progress: progress bars on stderr while scoring.
        resume_from: the paper/probes/all suites only: earlier runs' ``<suite>.json`` files (partial or finished, of
            the same model, systems, limit and seed) whose finished test sets are taken instead of scored again.
    """

    model: str = "default"
    limit: Optional[int] = None
    seed: int = DEFAULT_SEED
    batch_size: int = 32
    device: Optional[str] = None
    dtype: Optional[str] = None
    baselines: bool = True
    use_cache: bool = True
    cache_dir: Union[str, Path, None] = None
    data_dir: Optional[Path] = None
    out_dir: Union[str, Path, None] = None
    progress: bool = False
    resume_from: Tuple[Path, ...] = ()

    def scorer_settings(self, default_dtype: Optional[str] = None, progress: bool = False) -> ScorerSettings:
        """The settings of the model's ``CoherenceScorer``: this run's device, batch size and dtype (None:
        ``default_dtype``), with ``progress`` bars or none."""
        return ScorerSettings(device=self.device, dtype=self.dtype or default_dtype, batch_size=self.batch_size,
                              progress=progress)
