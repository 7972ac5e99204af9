"""``family: multiview`` recipes: sections, checks, and ``run_recipe`` (what ``coherence-metric train run`` calls).

A recipe names the corpora (train split for training, dev split for the held-out numbers and the saved
principal components), the word vectors and bi-GRU size, the objective (``generative`` or ``discriminative``
with their hyper-parameters) and the shared loop (:class:`coherence_metric.training.loop.LoopConfig`). The paper's
values are the defaults: N = 512, d = 1024, K = 5, beta = 0.01, c = 3, tau initialised to 1, 5 power iterations,
Adam at 5e-4 without annealing, gradient clipping.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from coherence_metric.errors import InputError

from ..checks import refuse_failed
from ..config import build_family_recipe, read_recipe_mapping
from ..loop import LoopConfig, ObjectiveLoop
from ..resume import seed_random_states
from ..wordvec import DEFAULT_WORD_VECTORS, WordVectors
from .data import SentenceStream, split_documents
from .discriminative import DiscriminativeObjective
from .generative import GenerativeObjective, UnigramSampler, count_word_pieces

OBJECTIVES = ("generative", "discriminative")


@dataclass
class MultiViewData:
    """``data:``: corpora, how much of them, the batch (a block of N consecutive sentences) and held-out sizes.

    ``max_documents`` / ``dev_max_documents`` cap each corpus's train / dev documents (reader order);
    ``unigram_sentences`` is how many training sentences the negative-sampling counts come from;
    ``pc_sentences`` how many held-out sentences the saved principal components come from (at most the
    ``eval_batches * batch_size`` sentences of the held-out blocks).
    """

    corpora: Union[List[str], str] = field(default_factory=lambda: ["wiki", "bbc", "reuters"])
    max_documents: Optional[int] = None
    dev_max_documents: Optional[int] = None
    batch_size: int = 512
    max_tokens: int = 40
    eval_batches: int = 10
    pc_sentences: int = 2000
    unigram_sentences: int = 200000


@dataclass
class MultiViewModel:
    """``model:``: the frozen word vectors (a Hugging Face encoder's input embeddings), the bi-GRU size d
    (units per direction; each view's vectors have 2d numbers) and the device."""

    word_vectors: str = DEFAULT_WORD_VECTORS
    hidden: int = 1024
    device: str = "cpu"


@dataclass
class MultiViewObjectiveConfig:
    """``objective:``: ``generative`` (negatives K, beta, invertible) or ``discriminative`` (context c,
    include_self, temperature, train_temperature, remove_pc, power_iterations)."""

    name: str = "discriminative"
    negatives: int = 5
    beta: float = 0.01
    invertible: bool = True
    context: int = 3
    include_self: bool = True
    temperature: float = 1.0
    train_temperature: bool = True
    remove_pc: bool = True
    power_iterations: int = 5


@dataclass
class MultiViewRecipe:
    """A whole ``family: multiview`` recipe."""

    family: str = "multiview"
    data: MultiViewData = field(default_factory=MultiViewData)
    model: MultiViewModel = field(default_factory=MultiViewModel)
    objective: MultiViewObjectiveConfig = field(default_factory=MultiViewObjectiveConfig)
    loop: LoopConfig = field(default_factory=LoopConfig)


def corpus_list(value: Union[List[str], str], where: str) -> List[str]:
    """``data.corpora`` as a list: a YAML list or one comma-separated string (handy with ``--set``)."""
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        return list(value)
    raise InputError(f"{where}: data.corpora must be a list of corpus names, got {value!r}")


def recipe_from_mapping(values: Dict[str, Any], where: str = "recipe") -> MultiViewRecipe:
    """Build and check a recipe from a parsed mapping (YAML or a test's dict)."""
    recipe = build_family_recipe(MultiViewRecipe, values, where)
    recipe.data.corpora = corpus_list(recipe.data.corpora, where)
    checks = [
        (recipe.objective.name in OBJECTIVES, f"objective.name must be one of {', '.join(OBJECTIVES)}"),
        (recipe.data.batch_size >= 2, "data.batch_size must be at least 2 (a batch is a block of sentences)"),
        (recipe.data.max_tokens >= 1, "data.max_tokens must be at least 1"),
        (recipe.data.eval_batches >= 1 and recipe.data.pc_sentences >= 2,
         "data.eval_batches must be at least 1 and data.pc_sentences at least 2"),
        (recipe.data.unigram_sentences >= 1, "data.unigram_sentences must be at least 1"),
        (recipe.model.hidden >= 1, "model.hidden must be at least 1"),
    ]
    refuse_failed(checks, where)
    recipe.loop.check(where)
    return recipe


def build_objective(recipe: MultiViewRecipe, word_vectors: Optional[WordVectors] = None,
                    data_dir: Optional[Path] = None) -> Union[GenerativeObjective, DiscriminativeObjective]:
    """The objective a recipe describes, with its data read from the shared corpora."""
    data, model, settings = recipe.data, recipe.model, recipe.objective
    words = word_vectors if word_vectors is not None else WordVectors.load(model.word_vectors)
    corpora = corpus_list(data.corpora, "recipe")
    names = ",".join(corpora)
    train = SentenceStream(split_documents(corpora, "train", data.max_documents, data_dir), data.batch_size,
                           seed=recipe.loop.seed, where=f"the train split of {names}")
    dev = SentenceStream(split_documents(corpora, "dev", data.dev_max_documents, data_dir), data.batch_size,
                         where=f"the dev split of {names}")
    common: Dict[str, Any] = {"hidden": model.hidden, "max_tokens": data.max_tokens, "eval_batches": data.eval_batches,
              "pc_sentences": data.pc_sentences, "device": model.device, "seed": recipe.loop.seed}
    if settings.name == "generative":
        counts = count_word_pieces(words, train.sentences[: data.unigram_sentences], data.max_tokens)
        return GenerativeObjective(words, train, dev, sampler=UnigramSampler(counts), negatives=settings.negatives,
                                   beta=settings.beta, invertible=settings.invertible, **common)
    return DiscriminativeObjective(words, train, dev, context=settings.context, include_self=settings.include_self,
                                   temperature=settings.temperature, train_temperature=settings.train_temperature,
                                   remove_pc=settings.remove_pc, power_iterations=settings.power_iterations,
                                   **common)


def run_recipe(path: Path, overrides: Dict[str, Any], progress: bool) -> Dict[str, Any]:
    """Train a ``family: multiview`` recipe file; returns :meth:`coherence_metric.training.loop.ObjectiveLoop.run`'s
    numbers."""
    recipe = recipe_from_mapping(read_recipe_mapping(Path(path), overrides), str(path))
    seed_random_states(recipe.loop.seed)  # before the model is built: its initial weights follow the seed
    objective = build_objective(recipe)
    return ObjectiveLoop(objective, recipe.loop, recipe=asdict(recipe), progress=progress).run()


__all__ = ["MultiViewData", "MultiViewModel", "MultiViewObjectiveConfig", "MultiViewRecipe", "build_objective",
           "corpus_list", "recipe_from_mapping", "run_recipe"]
