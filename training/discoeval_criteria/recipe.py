"""``family: discoeval`` recipes: read the YAML, build the objective, train it with :class:`ObjectiveLoop`.

A recipe has the sections ``data`` (:class:`DataSettings`), ``model`` (:class:`ModelSettings`), ``objective``
(:class:`CriteriaSettings`; ``objective.losses`` picks the row of the paper's Table 2) and ``loop``
(:class:`coherence_metric.training.loop.LoopConfig`). Unknown keys are errors naming the key. Besides what the loop
writes, the run folder gets ``data_summary.json``: the files, articles and sentences read, and sentences per
recovered nesting level.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Tuple

from ..config import build_family_recipe, read_recipe_mapping
from ..loop import LoopConfig, ObjectiveLoop
from ..resume import seed_random_states
from ..state_files import write_text_atomically
from ..wordvec import WordVectors
from .data import load_examples
from .objective import DiscoEvalObjective
from .settings import CriteriaSettings, DataSettings, ModelSettings, check_data, check_model

FAMILY = "discoeval"


@dataclass
class DiscoEvalRecipe:
    """A whole ``family: discoeval`` recipe."""

    family: str = FAMILY
    data: DataSettings = field(default_factory=DataSettings)
    model: ModelSettings = field(default_factory=ModelSettings)
    objective: CriteriaSettings = field(default_factory=CriteriaSettings)
    loop: LoopConfig = field(default_factory=LoopConfig)


def recipe_from_mapping(values: Dict[str, Any], where: str = "recipe") -> DiscoEvalRecipe:
    """Build and check a recipe from a parsed mapping (YAML or a test's dict).

    Raises:
        InputError: an unknown section or key, a mistyped value, or an invalid setting, naming ``where``.
    """
    recipe = build_family_recipe(DiscoEvalRecipe, values, where)
    check_data(recipe.data, where)
    check_model(recipe.model, where)
    recipe.objective.check(where)
    recipe.loop.check(where)
    return recipe


def build_objective(recipe: DiscoEvalRecipe) -> Tuple[DiscoEvalObjective, Dict[str, Any]]:
    """Load the word vectors and the corpus slice; return the objective and a summary of the data read."""
    word_vectors = WordVectors.load(recipe.model.word_vectors)
    examples = load_examples(recipe.data)
    objective = DiscoEvalObjective(recipe.objective, recipe.model, word_vectors, examples.train, examples.dev,
                                   seed=recipe.loop.seed)
    summary = {**examples.summary, "row": objective.row,
               "vocabulary_sizes": {"sentences": len(objective.vocabularies.sentences),
                                    "sections": len(objective.vocabularies.sections),
                                    "titles": len(objective.vocabularies.titles)}}
    return objective, summary


def run_recipe(path: Path, overrides: Dict[str, Any], progress: bool) -> Dict[str, Any]:
    """Train a ``family: discoeval`` recipe (``overrides``: dotted keys such as ``loop.max_steps``).

    Returns:
        ObjectiveLoop.run()'s result: steps, best, select, seconds, output_dir, stopped_early.
    """
    recipe = recipe_from_mapping(read_recipe_mapping(Path(path), overrides), str(path))
    seed_random_states(recipe.loop.seed)  # before the model is built: its initial weights follow the seed
    objective, summary = build_objective(recipe)
    output = Path(recipe.loop.output_dir)
    output.mkdir(parents=True, exist_ok=True)
    write_text_atomically(json.dumps(summary, indent=2), output / "data_summary.json")
    return ObjectiveLoop(objective, recipe.loop, recipe=asdict(recipe), progress=progress).run()


__all__ = ["DiscoEvalRecipe", "build_objective", "recipe_from_mapping", "run_recipe"]
