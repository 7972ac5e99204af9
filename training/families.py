"""Recipe families: which code trains a recipe, chosen by its top-level ``family:`` key.

``coherence`` (the default when the key is absent) is the coherence paper's pairwise / contrastive /
full objectives in :mod:`coherence_metric.training.trainer`. The other papers' objectives each live in their own package
and train through :class:`coherence_metric.training.loop.ObjectiveLoop`; each package exposes
``run_recipe(path, overrides, progress) -> dict`` (the loop's result: steps, best, select, seconds,
output_dir). Packages are imported only when their recipe runs.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Dict

from coherence_metric.errors import InputError

COHERENCE = "coherence"
FAMILIES: Dict[str, str] = {
    "conpono": "coherence_metric.training.conpono.recipe",  # seed 001
    "discoeval": "coherence_metric.training.discoeval_criteria.recipe",  # seed 002, section 4: NSP / NL / SPP / SDT
    "dissent": "coherence_metric.training.dissent.recipe",  # seed 003
    "multiview": "coherence_metric.training.multiview.recipe",  # seed 004
    # one scale across texts, generator-like negatives
    "pointwise": "coherence_metric.training.pointwise.recipe",
    # a sentence-level term beside a finished checkpoint (cm-minilm-2026.11's, the 0.1.0 default)
    "sentence_scorer": "coherence_metric.training.sentence_scorer.recipe",
    # per-boundary values for `explain` from frozen sentence embeddings
    "transition_model": "coherence_metric.training.transition_model.recipe",
}


def recipe_family(values: Dict[str, Any], where: str) -> str:
    """The family a parsed recipe names (``coherence`` when it names none)."""
    family = values.get("family", COHERENCE)
    if family != COHERENCE and family not in FAMILIES:
        known = ", ".join([COHERENCE, *FAMILIES])
        raise InputError(f"{where}: unknown family {family!r} (known: {known})")
    return str(family)


def run_family_recipe(family: str, path: Path, overrides: Dict[str, Any], progress: bool) -> Dict[str, Any]:
    """Train a non-coherence recipe with its family's ``run_recipe``."""
    module = importlib.import_module(FAMILIES[family])
    result: Dict[str, Any] = module.run_recipe(path, overrides, progress)
    return result


__all__ = ["COHERENCE", "FAMILIES", "recipe_family", "run_family_recipe"]
